/* The mpi transport of `backplane bench comm`: every rank is a process that
 * mpirun started, running the plugin's collectives over Open MPI
 * (BACKPLANE_COMM_TRANSPORT=mpi: vcpu's libbackplane_vcpu_mpi.so). The
 * command a user starts is not a rank (OMPI_COMM_WORLD_SIZE is unset): it
 * makes the unique id, runs `mpirun -np N` on this same bench with the same
 * options and the id in the ranks' environment, and reads what rank 0
 * measured from a file it names in BACKPLANE_BENCH_COMM_ROWS (so rank 0 runs
 * on the launching host, as mpirun places it by default). Nothing here links
 * MPI: mpirun is a program, and MPI lives in the plugin's module and in the
 * bench's baseline module (bench_mpi_baseline.h), opened by the ranks.
 * Not thread-safe (it changes the environment): the bench's thread only. */
#ifndef BACKPLANE_CLI_BENCH_COMM_MPI_H_
#define BACKPLANE_CLI_BENCH_COMM_MPI_H_

#include <stdio.h>

#include "bench.h"
#include "bench_mpi_baseline.h"

/* Whether this process is a rank under mpirun. */
int bench_comm_mpi_is_rank(void);

/* Rank: this process's rank, after checking that the world has
 * ctx->comm.ranks ranks and that the bench started it (the id and the rows
 * file are in its environment). On failure prints why on stderr and returns
 * BP_ERR_INVALID_ARGUMENT. */
bp_status_t bench_comm_mpi_rank(const bench_ctx_t *ctx, size_t *out_rank);

/* Rank 0: the rows file its launcher named, opened for writing; NULL (errno
 * set) if it cannot be opened. The caller closes it. */
FILE *bench_comm_mpi_rows_output(void);

/* Rank: Open MPI's MPI_Allreduce and its helpers in this process, from
 * lib/backplane/libbackplane_bench_mpi.so beside the binary (loaded once);
 * NULL, saying why on stderr, when it cannot be loaded or MPI lacks
 * MPI_THREAD_MULTIPLE. */
const bench_mpi_baseline_t *bench_comm_mpi_baseline(void);

/* Launcher: runs mpirun on this bench with ctx->comm.ranks ranks and the
 * `id_size` bytes of `id` in their environment, and waits for it. On success
 * *out_rows is rank 0's rows file open for reading (already unlinked; the
 * caller closes it). Errors, each explained on stderr: BP_ERR_NOT_FOUND when
 * mpirun is not on PATH, BP_ERR_PLUGIN when a rank failed (the rank and
 * mpirun said why), BP_ERR_INTERNAL when no temporary file or process could
 * be made. */
bp_status_t bench_comm_mpi_launch(const bench_ctx_t *ctx,
                                  const unsigned char *id, size_t id_size,
                                  FILE **out_rows);

#endif /* BACKPLANE_CLI_BENCH_COMM_MPI_H_ */
