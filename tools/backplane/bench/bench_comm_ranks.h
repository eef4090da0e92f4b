/* Rank processes of `backplane bench comm` (transports shm and mpi): the
 * command line a rank process runs, and the communicator's unique id handed
 * to it in the environment (BACKPLANE_BENCH_COMM_ID, hex). Not thread-safe:
 * called from the bench's thread only. */
#ifndef BACKPLANE_CLI_BENCH_COMM_RANKS_H_
#define BACKPLANE_CLI_BENCH_COMM_RANKS_H_

#include <stddef.h>

#include "bench.h"

enum { BENCH_COMM_ID_BYTES_MAX = 1024 };

#define BENCH_COMM_ID_VARIABLE "BACKPLANE_BENCH_COMM_ID"

/* Writes `backplane bench comm` with this run's plugin, --plugin-path words,
 * --op, --ranks, --transport, --quick and --hosts (when set) into argv[at..],
 * NULL-terminated within `capacity` slots. argv[0..at) are the caller's (the
 * program, or a launcher and its options). The strings point into static
 * storage that the next call overwrites. Returns the number of words, not
 * counting the NULL. */
size_t bench_comm_rank_args(const bench_ctx_t *ctx, char **argv, size_t at,
                            size_t capacity);

/* Sets BENCH_COMM_ID_VARIABLE to `size` (<= BENCH_COMM_ID_BYTES_MAX) bytes
 * of id, in hex, for the rank processes started after it. */
void bench_comm_id_export(const unsigned char *id, size_t size);

/* Reads BENCH_COMM_ID_VARIABLE into out (capacity bytes). Returns the
 * id's size: 0 when the variable is unset or not hex. */
size_t bench_comm_id_import(unsigned char *out, size_t capacity);

#endif /* BACKPLANE_CLI_BENCH_COMM_RANKS_H_ */
