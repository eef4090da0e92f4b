/* Cross-stream checks: stream A (held by a gate) writes a pattern to device
 * memory; stream B (same or other device) is told to wait for A, then
 * copies the data into pinned host memory and runs a callback (across
 * devices: runs the callback, then, once A is released, copies the data
 * over and out). Nothing on B may happen before A is released, and B must
 * see A's data. The copy to the host is asynchronous (pinned memory, or
 * bp_copy_async_unsafe where the plugin has none), so queueing B's work
 * never waits for A: a call that does is a failure, and a look the gate's
 * deadline spoiled is a SKIP. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "check_cross_verdict.h"
#include "check_gate.h"
#include "check_pattern.h"
#include "check_pool.h"
#include "check_report.h"
#include "cli/cli_timing.h"

enum {
  GATE_DEADLINE_MS = 15000, /* the checker opens the gate in milliseconds */
  EARLY_WATCH_US = 20000,   /* how long B is watched while A is held */
  CROSS_SIZE = 1 << 20,
};

typedef enum wait_kind { WAIT_EVENT, SYNC_FROM_TO, CROSS_DEVICE } wait_kind_t;

static const char *const names[] = {"cross_stream.wait_event",
                                    "cross_stream.sync_from_to",
                                    "cross_stream.cross_device"};

typedef struct cross_run {
  check_ctx_t *ctx;
  wait_kind_t kind;
  check_pool_t pool;
  check_gate_t gate;
  check_marker_t marker;
  bp_device_t *dev_a, *dev_b;
  bp_stream_t *a, *b;
  bp_event_t *event;
  void *da, *db;
  unsigned char *pattern, *poison, *out;
  int out_pinned; /* `out` is bp_host_malloc memory */
  const char *step;
  const char *blocked_call;
} cross_run_t;

static int is_async(const cross_run_t *r) {
  return r->ctx->streams == CHECK_STREAMS_ASYNCHRONOUS;
}

/* Streams, device memory, the event and the host buffers. */
static bp_status_t set_up(cross_run_t *r) {
  r->pattern = check_pool_host_memory(&r->pool, CROSS_SIZE);
  r->poison = check_pool_host_memory(&r->pool, CROSS_SIZE);
  if (!r->pattern || !r->poison)
    return BP_ERR_OUT_OF_MEMORY;
  void *pinned;
  bp_status_t status =
      check_pool_pinned_memory(&r->pool, r->dev_b, CROSS_SIZE, &pinned);
  if (status == BP_OK) {
    r->out = pinned;
    r->out_pinned = 1;
  } else if (status == BP_ERR_UNSUPPORTED) {
    r->out = check_pool_host_memory(&r->pool, CROSS_SIZE);
  } else {
    r->step = "bp_host_malloc";
    return status;
  }
  if (!r->out)
    return BP_ERR_OUT_OF_MEMORY;
  check_pattern_fill(r->pattern, CROSS_SIZE, 21 + r->kind);
  memset(r->poison, 0x69, CROSS_SIZE);
  memcpy(r->out, r->poison, CROSS_SIZE);
  if ((status = check_pool_stream(&r->pool, r->dev_a, &r->a)) ||
      (status = check_pool_stream(&r->pool, r->dev_b, &r->b)) ||
      (status =
           check_pool_device_memory(&r->pool, r->dev_a, CROSS_SIZE, &r->da)))
    return status;
  if (r->kind == CROSS_DEVICE && (status = check_pool_device_memory(
                                      &r->pool, r->dev_b, CROSS_SIZE, &r->db)))
    return status;
  if (r->kind != SYNC_FROM_TO)
    status = check_pool_event(&r->pool, r->dev_a, &r->event);
  return status;
}

/* Notes a call on B that returned only after A's gate gave up. */
static bp_status_t on_b(cross_run_t *r, const char *call, bp_status_t status) {
  r->step = call;
  if (!r->blocked_call && is_async(r) && check_gate_state(&r->gate).timed_out)
    r->blocked_call = call;
  return status;
}

/* B's copy of `src` on `src_device` into `out`: asynchronous either way. */
static bp_status_t copy_out(cross_run_t *r, bp_device_t *src_device,
                            const void *src) {
  return r->out_pinned
             ? bp_copy(NULL, r->out, src_device, src, CROSS_SIZE, r->b)
             : bp_copy_async_unsafe(NULL, r->out, src_device, src, CROSS_SIZE,
                                    r->b);
}

/* A's write, B's wait for it, and B's work after the wait that is looked
 * at while A is held: the copy to the host and the callback; across
 * devices only the callback (the peer copy comes after the look). */
static bp_status_t enqueue(cross_run_t *r) {
  bp_status_t status = BP_OK;
  r->step = "holding stream A";
  if (is_async(r) && (status = check_gate_enqueue(&r->gate, r->a)))
    return status;
  r->step = "bp_copy (h2d on A)";
  if ((status = bp_copy(r->dev_a, r->da, NULL, r->pattern, CROSS_SIZE, r->a)))
    return status;
  if (r->kind == SYNC_FROM_TO) {
    if ((status = on_b(r, "bp_stream_sync_from_to",
                       bp_stream_sync_from_to(r->a, r->b))))
      return status;
  } else {
    r->step = "bp_event_record (on A)";
    if ((status = bp_event_record(r->event, r->a)) ||
        (status = on_b(r, "bp_stream_wait_event",
                       bp_stream_wait_event(r->b, r->event))))
      return status;
  }
  if (r->kind != CROSS_DEVICE &&
      (status = on_b(r, "bp_copy (d2h, on B)", copy_out(r, r->dev_a, r->da))))
    return status;
  return on_b(r, "bp_stream_add_callback (on B)",
              check_marker_enqueue(&r->marker, r->b));
}

/* Across devices, B's copies once A is released: a plugin without an
 * asynchronous peer copy gets the runtime's fallback, which drains both
 * devices first, so enqueued behind held A it would wait for A's gate. */
static bp_status_t enqueue_peer_copies(cross_run_t *r) {
  bp_status_t status;
  r->step = "bp_copy (peer, on B)";
  if ((status = bp_copy(r->dev_b, r->db, r->dev_a, r->da, CROSS_SIZE, r->b)))
    return status;
  r->step = "bp_copy (d2h, on B)";
  return copy_out(r, r->dev_b, r->db);
}

/* Watches B for a moment while A is held. */
static check_look_t look_at_b(cross_run_t *r) {
  if (!is_async(r))
    return CHECK_LOOK_UNGATED;
  cli_sleep_us(EARLY_WATCH_US);
  int idle = bp_stream_query(r->b) == BP_OK;
  int ran = memcmp(r->out, r->poison, CROSS_SIZE) != 0 ||
            atomic_load(&r->marker.runs) != 0;
  return check_look_judge(ran, idle, check_gate_holding(&r->gate));
}

static void run_cross_stream(check_ctx_t *ctx, wait_kind_t kind) {
  cross_run_t r = {.ctx = ctx, .kind = kind, .step = "setup"};
  r.dev_a = ctx->devices[0];
  r.dev_b = kind == CROSS_DEVICE ? ctx->devices[1] : r.dev_a;
  check_gate_init(&r.gate, GATE_DEADLINE_MS);
  check_marker_init(&r.marker, is_async(&r) ? &r.gate : NULL);
  bp_status_t status = set_up(&r);
  if (status == BP_OK)
    status = enqueue(&r);
  cross_stream_seen_t seen = {.blocked_call = r.blocked_call,
                              .mismatch = SIZE_MAX};
  if (status == BP_OK && !r.blocked_call)
    seen.look = look_at_b(&r);
  check_gate_open(&r.gate);
  if (status == BP_OK && kind == CROSS_DEVICE && !r.blocked_call)
    status = enqueue_peer_copies(&r);
  if (status == BP_OK) {
    r.step = "bp_stream_synchronize(B)";
    status = bp_stream_synchronize(r.b);
  }
  if (status != BP_OK) {
    check_fail_call(ctx, names[kind], r.step, status);
  } else {
    seen.overtook = atomic_load(&r.marker.overtook);
    seen.callback_runs = atomic_load(&r.marker.runs);
    seen.mismatch = check_pattern_mismatch(r.out, r.pattern, CROSS_SIZE);
    char why[256];
    switch (cross_stream_verdict(&seen, why, sizeof why)) {
    case BP_CHECK_PASS:
      check_pass(ctx, names[kind], "%s", why);
      break;
    case BP_CHECK_SKIP:
      check_skip(ctx, names[kind], "%s", why);
      break;
    default:
      check_fail(ctx, names[kind], "%s", why);
      break;
    }
  }
  check_pool_release(&r.pool);
  check_gate_destroy(&r.gate);
}

void check_cross_stream(check_ctx_t *ctx) {
  run_cross_stream(ctx, WAIT_EVENT);
  run_cross_stream(ctx, SYNC_FROM_TO);
  if (ctx->device_count < 2)
    check_skip(ctx, names[CROSS_DEVICE],
               "needs two devices; the plugin has one");
  else
    run_cross_stream(ctx, CROSS_DEVICE);
}
