/* Dead-peer detection time: per repetition a fresh communicator of two
 * ranks, rank 1 in a process started for it, one all-reduce completed, a
 * second one pending on rank 0 while rank 1 never calls it; rank 1 is
 * killed and rank 0's stream is synchronized. The deadline
 * (BACKPLANE_COMM_TIMEOUT_MS) is far longer than what is measured, so only
 * the detection can end the wait in time. */
#include "bench_comm_dead_peer.h"

#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_comm_ranks.h"
#include "cli/cli_timing.h"

extern char **environ;

enum { FULL_REPS = 15, QUICK_REPS = 3, SETTLE_MS = 20 };

#define RANK_VARIABLE "BACKPLANE_BENCH_COMM_RANK"

typedef struct rank_side {
  bp_device_t *device;
  bp_stream_t *stream;
  bp_comm_t *comm;
  float *data; /* device memory, one element */
} rank_side_t;

static bp_status_t open_side(bench_ctx_t *ctx, const unsigned char *id,
                             size_t id_size, size_t rank, rank_side_t *side) {
  side->device = ctx->device;
  bp_status_t status = bp_stream_create(side->device, &side->stream);
  if (status == BP_OK)
    status =
        bp_device_malloc(side->device, sizeof(float), (void **)&side->data);
  if (status == BP_OK)
    status = bp_memset(side->device, side->data, 0, sizeof(float), NULL);
  if (status == BP_OK)
    status = bp_comm_init_rank(side->device, 2, id, id_size, rank, &side->comm);
  return status;
}

static void close_side(rank_side_t *side) {
  if (side->stream)
    bp_stream_synchronize(side->stream);
  bp_comm_destroy(side->comm);
  if (side->data)
    bp_device_free(side->device, side->data);
  bp_stream_destroy(side->stream);
}

static bp_status_t all_reduce(rank_side_t *side) {
  return bp_comm_all_reduce(side->data, side->data, 1, BP_DTYPE_FLOAT32,
                            BP_REDUCE_SUM, side->comm, side->stream);
}

/* Rank 1: joins, runs one all-reduce, then waits to be killed. */
static _Noreturn void be_the_victim(bench_ctx_t *ctx) {
  unsigned char id[BENCH_COMM_ID_BYTES_MAX];
  size_t id_size = bench_comm_id_import(id, sizeof id);
  rank_side_t side = {0};
  bp_status_t status =
      id_size ? open_side(ctx, id, id_size, 1, &side) : BP_ERR_INVALID_ARGUMENT;
  if (status == BP_OK)
    status = all_reduce(&side);
  if (status == BP_OK)
    status = bp_stream_synchronize(side.stream);
  if (status != BP_OK) {
    fprintf(stderr, "bench comm --dead-peer: rank 1: %s\n", bp_last_error());
    exit(1);
  }
  for (;;)
    pause();
}

static bp_status_t spawn_victim(bench_ctx_t *ctx, const unsigned char *id,
                                size_t id_size, pid_t *out_pid) {
  static char program[PATH_MAX] = "backplane";
  char *argv[64] = {program};
  size_t end =
      bench_comm_rank_args(ctx, argv, 1, sizeof argv / sizeof *argv - 1);
  argv[end] = "--dead-peer";
  argv[end + 1] = NULL;
  bench_comm_id_export(id, id_size);
  setenv(RANK_VARIABLE, "1", 1);
  int failed =
      posix_spawn(out_pid, "/proc/self/exe", NULL, NULL, argv, environ);
  unsetenv(RANK_VARIABLE);
  unsetenv(BENCH_COMM_ID_VARIABLE);
  return failed ? bench_error(ctx, "starting rank 1", BP_ERR_INTERNAL) : BP_OK;
}

/* One repetition: the milliseconds from the kill to the end of rank 0's
 * pending all-reduce into *out_ms. */
static bp_status_t one_death(bench_ctx_t *ctx, double *out_ms) {
  unsigned char id[BENCH_COMM_ID_BYTES_MAX];
  size_t id_size = 0;
  bp_status_t status = bp_comm_unique_id_size(ctx->device, &id_size);
  if (status == BP_OK && id_size > sizeof id)
    status = BP_ERR_UNSUPPORTED;
  if (status == BP_OK)
    status = bp_comm_get_unique_id(ctx->device, id, id_size);
  if (status != BP_OK)
    return bench_error(ctx, "making the unique id", status);
  pid_t victim = 0;
  if ((status = spawn_victim(ctx, id, id_size, &victim)) != BP_OK)
    return status;
  rank_side_t side = {0};
  status = open_side(ctx, id, id_size, 0, &side);
  if (status == BP_OK)
    status = all_reduce(&side);
  if (status == BP_OK)
    status = bp_stream_synchronize(side.stream);
  if (status == BP_OK)
    status = all_reduce(&side); /* rank 1 never calls this one */
  if (status == BP_OK) {
    cli_sleep_us(SETTLE_MS * 1000); /* rank 0's worker waits in it now */
    uint64_t killed = cli_now_ns();
    kill(victim, SIGKILL);
    bp_stream_synchronize(side.stream);
    *out_ms = (double)(cli_now_ns() - killed) / 1e6;
    status = bp_comm_async_error(side.comm);
    status = status == BP_ERR_PEER_LOST
                 ? BP_OK
                 : bench_error(ctx,
                               "the pending all-reduce did not end with "
                               "BP_ERR_PEER_LOST",
                               status == BP_OK ? BP_ERR_INTERNAL : status);
  } else {
    bench_error(ctx, "rank 0's first all-reduce", status);
    kill(victim, SIGKILL);
  }
  waitpid(victim, NULL, 0);
  close_side(&side);
  return status;
}

bp_status_t bench_comm_dead_peer(bench_ctx_t *ctx) {
  if (getenv(RANK_VARIABLE))
    be_the_victim(ctx);
  size_t reps = ctx->quick ? QUICK_REPS : FULL_REPS;
  double ms[FULL_REPS];
  for (size_t r = 0; r < reps; r++) {
    bp_status_t status = one_death(ctx, &ms[r]);
    if (status != BP_OK)
      return status;
  }
  bench_record(ctx, &(bench_result_t){
                        .bench_case = "dead peer noticed (kill -9), 2 procs",
                        .value = cli_median(ms, reps),
                        .unit = "ms",
                        .budget = BENCH_BUDGET_MAX_VALUE,
                        .limit = 100.0,
                        .budget_text = "< 100 ms",
                    });
  return BP_OK;
}
