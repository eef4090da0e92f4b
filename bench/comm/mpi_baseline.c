/* The in-process MPI_Allreduce baseline of `backplane bench comm` under
 * mpirun: tools/backplane/bench/bench_mpi_baseline.h says what each function
 * does. */
#include <limits.h>
#include <mpi.h>

#include "bench_mpi_baseline.h"

static int all_reduce(const float *send, float *recv, size_t count) {
  if (count > INT_MAX)
    return MPI_ERR_COUNT;
  const void *source = send == recv ? MPI_IN_PLACE : send;
  return MPI_Allreduce(source, recv, (int)count, MPI_FLOAT, MPI_SUM,
                       MPI_COMM_WORLD);
}

static int barrier(void) {
  return MPI_Barrier(MPI_COMM_WORLD);
}

static int broadcast(void *buffer, size_t bytes, size_t root) {
  if (bytes > INT_MAX || root > INT_MAX)
    return MPI_ERR_COUNT;
  return MPI_Bcast(buffer, (int)bytes, MPI_BYTE, (int)root, MPI_COMM_WORLD);
}

static double largest(double mine) {
  double all = 0;
  return MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) ==
                 MPI_SUCCESS
             ? all
             : 0;
}

__attribute__((visibility("default"))) const bench_mpi_baseline_t *
backplane_bench_mpi_baseline(void) {
  static const bench_mpi_baseline_t table = {all_reduce, barrier, broadcast,
                                             largest};
  int initialized = 0, provided = MPI_THREAD_SINGLE;
  MPI_Initialized(&initialized);
  if (!initialized)
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
  else
    MPI_Query_thread(&provided);
  return provided == MPI_THREAD_MULTIPLE ? &table : NULL;
}
