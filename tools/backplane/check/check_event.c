/* Event checks: an event behind a blocked stream is NOT_READY, and OK once
 * the stream drains; an event never recorded is OK; elapsed times between
 * three events are >= 0 and consistent (start->end covers both halves). */
#include <stdio.h>

#include "check.h"
#include "check_gate.h"
#include "check_look.h"
#include "check_pool.h"
#include "check_report.h"

enum { GATE_DEADLINE_MS = 15000, TIMED_WORK_SIZE = 4 << 20 };

static void check_unrecorded(check_ctx_t *ctx, check_pool_t *pool) {
  const char *name = "events.unrecorded";
  bp_event_t *event;
  bp_status_t status = check_pool_event(pool, ctx->devices[0], &event);
  if (status != BP_OK)
    check_fail_call(ctx, name, "bp_event_create", status);
  else if ((status = bp_event_query(event)) != BP_OK)
    check_fail(ctx, name,
               "query of a never-recorded event gives %s; "
               "expected BP_OK",
               bp_status_name(status));
  else if ((status = bp_event_synchronize(event)) != BP_OK)
    check_fail_call(ctx, name, "bp_event_synchronize (never recorded)", status);
  else
    check_pass(ctx, name, "a never-recorded event is complete");
}

/* Records an event behind a gate: NOT_READY while held (asynchronous
 * streams only), OK after synchronize. */
static void check_completion(check_ctx_t *ctx, check_pool_t *pool) {
  const char *name = "events.query";
  int gated = ctx->streams == CHECK_STREAMS_ASYNCHRONOUS;
  check_gate_t gate;
  check_gate_init(&gate, GATE_DEADLINE_MS);
  bp_stream_t *stream;
  bp_event_t *event, *done;
  bp_status_t status, held = BP_ERR_NOT_READY, held_elapsed = BP_ERR_NOT_READY;
  float ms = 0;
  const char *step = "setup";
  if ((status = check_pool_stream(pool, ctx->devices[0], &stream)) == BP_OK &&
      (status = check_pool_event(pool, ctx->devices[0], &event)) == BP_OK &&
      (status = check_pool_event(pool, ctx->devices[0], &done)) == BP_OK) {
    step = "bp_event_record";
    status = bp_event_record(done, stream);
  }
  if (status == BP_OK && (status = bp_event_synchronize(done)) != BP_OK)
    step = "bp_event_synchronize";
  if (status == BP_OK && gated) {
    step = "holding the stream";
    status = check_gate_enqueue(&gate, stream);
  }
  if (status == BP_OK) {
    step = "bp_event_record";
    status = bp_event_record(event, stream);
  }
  check_look_t look = CHECK_LOOK_UNGATED;
  if (status == BP_OK && gated) {
    held = bp_event_query(event);
    held_elapsed = bp_event_elapsed_time(done, event, &ms);
    look = check_look_judge(0, held == BP_OK || held_elapsed == BP_OK,
                            check_gate_holding(&gate));
  }
  /* Complete is right once the gate gave up: only other answers fail. */
  int cannot_tell = look == CHECK_LOOK_CANNOT_TELL;
  check_gate_open(&gate);
  bp_status_t after = BP_ERR_NOT_READY;
  if (status == BP_OK && (status = bp_event_synchronize(event)) != BP_OK)
    step = "bp_event_synchronize";
  if (status == BP_OK)
    after = bp_event_query(event);
  if (status != BP_OK)
    check_fail_call(ctx, name, step, status);
  else if (held != BP_ERR_NOT_READY && !(cannot_tell && held == BP_OK))
    check_fail(ctx, name,
               "query of an event behind a blocked stream gives "
               "%s; expected BP_ERR_NOT_READY",
               bp_status_name(held));
  else if (held_elapsed != BP_ERR_NOT_READY &&
           held_elapsed != BP_ERR_UNSUPPORTED &&
           !(cannot_tell && held_elapsed == BP_OK))
    check_fail(ctx, name,
               "elapsed time to a pending event gives %s; "
               "expected BP_ERR_NOT_READY",
               bp_status_name(held_elapsed));
  else if (after != BP_OK)
    check_fail(ctx, name, "query after bp_event_synchronize gives %s",
               bp_status_name(after));
  else if (cannot_tell)
    check_skip(ctx, name,
               "inconclusive: the held stream was let go at its deadline "
               "before the event could be queried; OK after");
  else if (gated)
    check_pass(ctx, name, "NOT_READY while the stream is held, OK after");
  else
    check_pass(ctx, name,
               "OK after synchronize (streams are synchronous: "
               "the pending state cannot be observed)");
  check_gate_open(&gate);
  check_pool_release(pool);
  check_gate_destroy(&gate);
}

/* Three events around two copies: every elapsed time is >= 0 and the whole
 * span is at least each half. */
static void check_timing(check_ctx_t *ctx, check_pool_t *pool) {
  const char *name = "events.elapsed_time";
  bp_device_t *device = ctx->devices[0];
  bp_stream_t *stream;
  bp_event_t *e[3];
  void *d;
  unsigned char *host = check_pool_host_memory(pool, TIMED_WORK_SIZE);
  bp_status_t status = host ? BP_OK : BP_ERR_OUT_OF_MEMORY;
  for (int i = 0; i < 3 && status == BP_OK; i++)
    status = check_pool_event(pool, device, &e[i]);
  if (status == BP_OK)
    status = check_pool_stream(pool, device, &stream);
  if (status == BP_OK)
    status = check_pool_device_memory(pool, device, TIMED_WORK_SIZE, &d);
  if (status != BP_OK) {
    check_fail_call(ctx, name, "setup", status);
    return;
  }
  for (size_t i = 0; i < TIMED_WORK_SIZE; i++)
    host[i] = (unsigned char)i;
  for (int i = 0; i < 3 && status == BP_OK; i++) {
    status = bp_event_record(e[i], stream);
    if (status == BP_OK && i < 2)
      status = bp_copy(device, d, NULL, host, TIMED_WORK_SIZE, stream);
  }
  if (status == BP_OK)
    status = bp_event_synchronize(e[2]);
  if (status != BP_OK) {
    check_fail_call(ctx, name, "recording three events", status);
    return;
  }
  float first = -1, second = -1, whole = -1;
  status = bp_event_elapsed_time(e[0], e[1], &first);
  if (status == BP_ERR_UNSUPPORTED) {
    check_skip(ctx, name, "the plugin has no event timing");
    return;
  }
  if (status == BP_OK)
    status = bp_event_elapsed_time(e[1], e[2], &second);
  if (status == BP_OK)
    status = bp_event_elapsed_time(e[0], e[2], &whole);
  if (status != BP_OK)
    check_fail_call(ctx, name, "bp_event_elapsed_time", status);
  else if (!(first >= 0) || !(second >= 0) || !(whole >= 0))
    check_fail(ctx, name, "negative elapsed time: %g, %g, %g ms", first, second,
               whole);
  else if (whole + 1e-3f < first || whole + 1e-3f < second)
    check_fail(ctx, name,
               "not monotone: e0->e2 %g ms is shorter than e0->e1 "
               "%g ms or e1->e2 %g ms",
               whole, first, second);
  else
    check_pass(ctx, name, "e0->e1 %.3f ms, e1->e2 %.3f ms, e0->e2 %.3f ms",
               first, second, whole);
}

void check_events(check_ctx_t *ctx) {
  check_pool_t pool = {0};
  check_unrecorded(ctx, &pool);
  check_pool_release(&pool);
  check_completion(ctx, &pool);
  check_timing(ctx, &pool);
  check_pool_release(&pool);
}
