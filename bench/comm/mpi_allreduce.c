/* backplane_mpi_allreduce BYTES...: Open MPI's MPI_Allreduce (float32 sum)
 * timed the nccl-tests way, the baseline of `backplane bench comm`. Run under
 * mpirun; rank 0 prints one line per size: "<bytes> <out-of-place us>
 * <in-place us>", the slowest rank's average over the iterations after a
 * warm-up. Buffers are touched first so page faults are not timed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double time_allreduce(float *send, float *recv, int count, int iters,
                             int in_place) {
  const void *source = in_place ? MPI_IN_PLACE : send;
  for (int i = 0; i < 10; i++) /* warm-up */
    MPI_Allreduce(source, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 0; i < iters; i++)
    MPI_Allreduce(source, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double mine = (MPI_Wtime() - start) / iters, slowest = 0;
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return slowest * 1e6;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int a = 1; a < argc; a++) {
    size_t bytes = strtoull(argv[a], NULL, 10);
    int count = (int)(bytes / sizeof(float));
    float *send = malloc(bytes + 4), *recv = malloc(bytes + 4);
    if (send == NULL || recv == NULL)
      MPI_Abort(MPI_COMM_WORLD, 1);
    memset(send, 0, bytes + 4);
    memset(recv, 0, bytes + 4);
    int iters = bytes >= (64u << 20) ? 5 : bytes >= (1u << 20) ? 20 : 200;
    double oop = time_allreduce(send, recv, count, iters, 0);
    double ip = time_allreduce(send, recv, count, iters, 1);
    if (rank == 0)
      printf("%zu %.3f %.3f\n", bytes, oop, ip);
    free(send);
    free(recv);
  }
  MPI_Finalize();
  return 0;
}
