/* Open MPI's own MPI_Allreduce inside the ranks of `backplane bench comm
 * --transport mpi` (and --hosts), so that each size is timed against it in
 * the same processes, on the same buffers, alternating with the plugin's
 * collectives. The functions live in lib/backplane/libbackplane_bench_mpi.so
 * (bench/comm/mpi_baseline.c, linked with MPI); the bench opens it beside
 * its binary only in a rank under mpirun, so `backplane` itself never
 * depends on MPI. Every function works on MPI_COMM_WORLD, is collective
 * (every rank calls it, in the same order) and may be called from any one
 * thread at a time; MPI is initialized with MPI_THREAD_MULTIPLE on first
 * use unless it already is (the vcpu plugin's MPI module initializes it the
 * same way). Each returns MPI_SUCCESS (0) or Open MPI's error code. */
#ifndef BACKPLANE_CLI_BENCH_MPI_BASELINE_H_
#define BACKPLANE_CLI_BENCH_MPI_BASELINE_H_

#include <stddef.h>

typedef struct bench_mpi_baseline {
  /* MPI_Allreduce of `count` floats, sum; MPI_IN_PLACE when send == recv. */
  int (*all_reduce)(const float *send, float *recv, size_t count);
  int (*barrier)(void);
  /* MPI_Bcast of `bytes` bytes from `root`. */
  int (*broadcast)(void *buffer, size_t bytes, size_t root);
  /* The largest of every rank's `mine`, on every rank (MPI_MAX); 0 on an
   * MPI error. */
  double (*largest)(double mine);
} bench_mpi_baseline_t;

/* The module's one exported function: its table, or NULL when MPI cannot be
 * initialized with MPI_THREAD_MULTIPLE. */
#define BENCH_MPI_BASELINE_SYMBOL "backplane_bench_mpi_baseline"
#define BENCH_MPI_BASELINE_FILE "lib/backplane/libbackplane_bench_mpi.so"
typedef const bench_mpi_baseline_t *(*bench_mpi_baseline_fn_t)(void);

#endif /* BACKPLANE_CLI_BENCH_MPI_BASELINE_H_ */
