/* What `backplane bench comm` runs: the collective, the number of ranks and
 * how ranks are hosted (threads, shm or mpi; or mpi on several hosts made
 * for the run), from `--op`, `--ranks`, `--transport` and `--hosts` (each
 * falling back to BACKPLANE_BENCH_COMM_OP / _RANKS / _TRANSPORT / _HOSTS
 * when absent). Parsed by the bench driver before anything runs, so
 * a bad value is a usage error. */
#ifndef BACKPLANE_CLI_BENCH_COMM_SETTINGS_H_
#define BACKPLANE_CLI_BENCH_COMM_SETTINGS_H_

#include <stddef.h>

enum { BENCH_COMM_MAX_RANKS = 8, BENCH_COMM_MAX_HOSTS = 4 };

typedef enum bench_comm_op {
  BENCH_COMM_ALL_REDUCE,
  BENCH_COMM_BROADCAST,
  BENCH_COMM_REDUCE,
  BENCH_COMM_ALL_GATHER,
  BENCH_COMM_REDUCE_SCATTER,
  BENCH_COMM_OP_COUNT
} bench_comm_op_t;

typedef enum bench_comm_transport {
  BENCH_COMM_THREADS, /* every rank a device of this process (default) */
  BENCH_COMM_SHM,     /* rank r > 0 in a child process, over shared memory */
  BENCH_COMM_MPI,     /* every rank a process under mpirun, over Open MPI */
  BENCH_COMM_TRANSPORT_COUNT
} bench_comm_transport_t;

typedef struct bench_comm_settings {
  bench_comm_op_t op; /* default all_reduce */
  size_t ranks;       /* 2 (default) .. BENCH_COMM_MAX_RANKS */
  bench_comm_transport_t transport;
  int dead_peer; /* --dead-peer: time a dead peer's detection instead */
  /* --hosts H (2..BENCH_COMM_MAX_HOSTS): the ranks under mpirun on H hosts
   * made as network namespaces (bench_comm_hosts.h), ranks / H on each
   * (--ranks defaults to 2 per host then); 0: this machine as it is. */
  size_t hosts;
} bench_comm_settings_t;

/* The op's name as `--op` spells it, e.g. "all_reduce". */
const char *bench_comm_op_name(bench_comm_op_t op);

/* The transport's name as `--transport` spells it: "threads", "shm" or
 * "mpi". */
const char *bench_comm_transport_name(bench_comm_transport_t transport);

/* Fills *out from the option values (NULL: not given; the environment
 * variable, then the default, apply). Returns 0, or 2 (the usage exit code)
 * after printing on stderr which value was wrong and what is accepted. */
int bench_comm_settings_parse(const char *op, const char *ranks,
                              const char *transport, const char *hosts,
                              bench_comm_settings_t *out);

#endif /* BACKPLANE_CLI_BENCH_COMM_SETTINGS_H_ */
