/* stream: round trip of one no-op command (an event record, or a host
 * callback) plus bp_stream_synchronize, against a spin hand-off between two
 * threads (budget: <= 2 us); and enqueue throughput on one stream (budget:
 * >= 5 M commands/s). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "bench.h"
#include "bench_opencl.h"
#include "cli/cli_timing.h"

enum { FULL_REPS = 7 };

/* ---- baseline: spin hand-off --------------------------------------------- */

typedef struct spin_pair {
  atomic_long turn; /* odd: the echo thread's move; -1: stop */
} spin_pair_t;

static void *echo(void *arg) {
  spin_pair_t *pair = arg;
  for (;;) {
    long turn = atomic_load_explicit(&pair->turn, memory_order_acquire);
    if (turn < 0)
      return NULL;
    if (turn & 1)
      atomic_store_explicit(&pair->turn, turn + 1, memory_order_release);
  }
}

/* Median ns of one hand-off and back, or 0 if no thread could be started. */
static double spin_round_trip_ns(size_t trips, size_t reps) {
  spin_pair_t pair;
  atomic_init(&pair.turn, 0);
  pthread_t thread;
  if (pthread_create(&thread, NULL, echo, &pair) != 0)
    return 0;
  double samples[FULL_REPS + 1];
  long turn = 0;
  for (size_t r = 0; r <= reps; r++) { /* repetition 0 warms up */
    uint64_t start = cli_now_ns();
    for (size_t i = 0; i < trips; i++) {
      atomic_store_explicit(&pair.turn, turn + 1, memory_order_release);
      turn += 2;
      while (atomic_load_explicit(&pair.turn, memory_order_acquire) != turn) {
      }
    }
    samples[r] = (double)(cli_now_ns() - start) / (double)trips;
  }
  atomic_store_explicit(&pair.turn, -1, memory_order_release);
  pthread_join(thread, NULL);
  return cli_median(samples + 1, reps);
}

/* ---- the stream ---------------------------------------------------------- */

typedef enum command_kind { EVENT_RECORD, HOST_CALLBACK } command_kind_t;

static const char *const command_names[] = {"event record", "host callback"};

static void no_op(void *user_data) {
  (void)user_data;
}

static bp_status_t enqueue(bp_stream_t *stream, bp_event_t *event,
                           command_kind_t kind) {
  if (kind == EVENT_RECORD)
    return bp_event_record(event, stream);
  return bp_stream_add_callback(stream, no_op, NULL);
}

/* Median ns of enqueue + synchronize; 0 on error (reported). */
static double stream_round_trip_ns(bench_ctx_t *ctx, bp_stream_t *stream,
                                   bp_event_t *event, command_kind_t kind,
                                   size_t trips, size_t reps) {
  double samples[FULL_REPS + 1];
  for (size_t r = 0; r <= reps; r++) {
    uint64_t start = cli_now_ns();
    for (size_t i = 0; i < trips; i++) {
      bp_status_t status = enqueue(stream, event, kind);
      if (status == BP_OK)
        status = bp_stream_synchronize(stream);
      if (status != BP_OK) {
        bench_error(ctx, command_names[kind], status);
        return 0;
      }
    }
    samples[r] = (double)(cli_now_ns() - start) / (double)trips;
  }
  return cli_median(samples + 1, reps);
}

/* Median M commands/s of enqueueing `count` commands (the stream is drained
 * outside the timed part); 0 on error (reported). */
static double enqueue_rate(bench_ctx_t *ctx, bp_stream_t *stream,
                           bp_event_t *event, command_kind_t kind, size_t count,
                           size_t reps) {
  double samples[FULL_REPS + 1];
  for (size_t r = 0; r <= reps; r++) {
    bp_status_t status = BP_OK;
    uint64_t start = cli_now_ns();
    for (size_t i = 0; i < count && status == BP_OK; i++)
      status = enqueue(stream, event, kind);
    uint64_t elapsed = cli_now_ns() - start;
    if (status == BP_OK)
      status = bp_stream_synchronize(stream);
    if (status != BP_OK) {
      bench_error(ctx, command_names[kind], status);
      return 0;
    }
    samples[r] = (double)count * 1e3 / (double)(elapsed ? elapsed : 1);
  }
  return cli_median(samples + 1, reps);
}

/* The opencl plugin: an event record + synchronize against an empty
 * clEnqueueMarkerWithWaitList + clFinish called directly, interleaved. */
static bp_status_t round_trip_against_opencl(bench_ctx_t *ctx,
                                             bp_stream_t *stream,
                                             bp_event_t *event, size_t trips,
                                             size_t reps) {
  bench_opencl_t *cl = bench_opencl_open(ctx, 4096);
  if (!cl)
    return BP_ERR_UNSUPPORTED;
  double ours[FULL_REPS + 1], direct[FULL_REPS + 1];
  bp_status_t status = BP_OK;
  for (size_t r = 0; r <= reps && status == BP_OK; r++) { /* 0: warm-up */
    uint64_t start = cli_now_ns();
    for (size_t i = 0; i < trips && status == BP_OK; i++) {
      status = bp_event_record(event, stream);
      if (status == BP_OK)
        status = bp_stream_synchronize(stream);
    }
    ours[r] = (double)(cli_now_ns() - start) / (double)trips;
    double total = 0;
    for (size_t i = 0; i < trips && status == BP_OK; i++) {
      double ns = bench_opencl_marker_ns(cl);
      if (ns == 0)
        status = BP_ERR_PLUGIN;
      total += ns;
    }
    direct[r] = total / (double)trips;
  }
  if (status == BP_OK) {
    char baseline[192];
    snprintf(baseline, sizeof baseline,
             "clEnqueueMarkerWithWaitList + clFinish (%s)",
             bench_opencl_device_name(cl));
    bench_record(ctx, &(bench_result_t){
                          .bench_case = "round trip: event record + sync",
                          .value = cli_median(ours + 1, reps) / 1000,
                          .unit = "us",
                          .baseline = baseline,
                          .baseline_value = cli_median(direct + 1, reps) / 1000,
                      });
  } else {
    bench_error(ctx, "round trip against OpenCL directly", status);
  }
  bench_opencl_close(cl);
  return status;
}

static bp_status_t run(bench_ctx_t *ctx, bp_stream_t *stream,
                       bp_event_t *event) {
  size_t reps = bench_reps(ctx, FULL_REPS);
  size_t trips = ctx->quick ? 200 : 20000;
  double spin_ns = spin_round_trip_ns(ctx->quick ? trips : trips * 10, reps);
  if (spin_ns == 0)
    return bench_error(ctx, "starting the spin thread", BP_ERR_INTERNAL);
  for (int kind = EVENT_RECORD; kind <= HOST_CALLBACK; kind++) {
    double ns = stream_round_trip_ns(ctx, stream, event, (command_kind_t)kind,
                                     trips, reps);
    if (ns == 0)
      return BP_ERR_PLUGIN;
    char bench_case[64];
    snprintf(bench_case, sizeof(bench_case), "round trip: %s + sync",
             command_names[kind]);
    bench_record(ctx, &(bench_result_t){
                          .bench_case = bench_case,
                          .value = ns / 1000,
                          .unit = "us",
                          .baseline = "spin hand-off",
                          .baseline_value = spin_ns / 1000,
                          .budget = BENCH_BUDGET_MAX_VALUE,
                          .limit = 2.0,
                          .budget_text = "<= 2 us",
                      });
  }
  if (bench_opencl_wanted(ctx)) {
    bp_status_t status = round_trip_against_opencl(
        ctx, stream, event, ctx->quick ? 200 : 2000, reps);
    if (status != BP_OK)
      return status;
  }
  size_t count = ctx->quick ? 2000 : 200000;
  for (int kind = EVENT_RECORD; kind <= HOST_CALLBACK; kind++) {
    double rate =
        enqueue_rate(ctx, stream, event, (command_kind_t)kind, count, reps);
    if (rate == 0)
      return BP_ERR_PLUGIN;
    char bench_case[64];
    snprintf(bench_case, sizeof(bench_case), "enqueue: %s",
             command_names[kind]);
    bench_record(ctx, &(bench_result_t){
                          .bench_case = bench_case,
                          .value = rate,
                          .unit = "M/s",
                          .budget = BENCH_BUDGET_MIN_VALUE,
                          .limit = 5.0,
                          .budget_text = ">= 5 M/s",
                      });
  }
  return BP_OK;
}

bp_status_t bench_stream(bench_ctx_t *ctx) {
  bp_stream_t *stream = NULL;
  bp_event_t *event = NULL;
  bp_status_t status = bp_stream_create(ctx->device, &stream);
  if (status == BP_OK)
    status = bp_event_create(ctx->device, &event);
  if (status != BP_OK)
    bench_error(ctx, "creating a stream and an event", status);
  else
    status = run(ctx, stream, event);
  bp_event_destroy(event);
  bp_stream_destroy(stream);
  return status;
}
