/* Stream checks: dependent work on one stream lands in order; host callbacks
 * run in order and exactly once; many streams of mixed work at once (waits
 * across streams: check_cross_stream.c).
 * With asynchronous streams the work is queued behind a gate first, so
 * "not early" is observed, not assumed. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "check_gate.h"
#include "check_look.h"
#include "check_pattern.h"
#include "check_pool.h"
#include "check_report.h"

enum {
  GATE_DEADLINE_MS = 15000, /* the checker opens gates in milliseconds */
  ORDER_SIZE = 256 << 10,
  CALLBACK_COUNT = 64,
  STREAM_COUNT = 16,
  STREAM_WORK_SIZE = 64 << 10,
};

static int is_async(const check_ctx_t *ctx) {
  return ctx->streams == CHECK_STREAMS_ASYNCHRONOUS;
}

/* Returns 1 if any byte of `buffer` differs from the poison it was given. */
static int touched(const unsigned char *buffer, const unsigned char *poison,
                   size_t size) {
  return memcmp(buffer, poison, size) != 0;
}

/* ---- stream_order --------------------------------------------------------
 * 1 h2d P1->D; 2 d2h D->O1; 3 h2d P2->D; 4 d2d D->E; 5 d2h E->O2 are
 * enqueued behind a gate (asynchronous streams); then 6 memset E; 7 d2h
 * E->O3 (bp_memset may drain the stream first: the ABI has no stream-ordered
 * memset). Each step reads what the one before wrote: O1 == P1, O2 == P2,
 * O3 all v. */

enum { HELD_STEPS = 5, CHAIN_STEPS = 7 };

typedef struct order_buffers {
  unsigned char *p1, *p2, *o1, *o2, *o3, *poison;
  void *d, *e;
} order_buffers_t;

static const char *const chain_step_names[CHAIN_STEPS] = {
    "h2d", "d2h", "h2d", "d2d", "d2h", "memset", "d2h"};

static bp_status_t enqueue_chain_step(int step, bp_device_t *device,
                                      bp_stream_t *s, order_buffers_t *b,
                                      unsigned char v) {
  /* The plugin's own asynchrony is under test: host buffers stay valid
   * until the stream drains, so bp_copy need not capture them. */
  switch (step) {
  case 0:
    return bp_copy_async_unsafe(device, b->d, NULL, b->p1, ORDER_SIZE, s);
  case 1:
    return bp_copy_async_unsafe(NULL, b->o1, device, b->d, ORDER_SIZE, s);
  case 2:
    return bp_copy_async_unsafe(device, b->d, NULL, b->p2, ORDER_SIZE, s);
  case 3:
    return bp_copy(device, b->e, device, b->d, ORDER_SIZE, s);
  case 4:
    return bp_copy_async_unsafe(NULL, b->o2, device, b->e, ORDER_SIZE, s);
  case 5:
    return bp_memset(device, b->e, v, ORDER_SIZE, s);
  default:
    return bp_copy_async_unsafe(NULL, b->o3, device, b->e, ORDER_SIZE, s);
  }
}

static void run_stream_order(check_ctx_t *ctx, check_pool_t *pool,
                             check_gate_t *gate) {
  const char *name = "streams.order";
  bp_device_t *device = ctx->devices[0];
  order_buffers_t b;
  unsigned char **host[] = {&b.p1, &b.p2, &b.o1, &b.o2, &b.o3, &b.poison};
  for (size_t i = 0; i < sizeof(host) / sizeof(host[0]); i++)
    if (!(*host[i] = check_pool_host_memory(pool, ORDER_SIZE))) {
      check_fail(ctx, name, "out of host memory");
      return;
    }
  check_pattern_fill(b.p1, ORDER_SIZE, 11);
  check_pattern_fill(b.p2, ORDER_SIZE, 12);
  memset(b.poison, 0x3C, ORDER_SIZE);
  memcpy(b.o1, b.poison, ORDER_SIZE);
  memcpy(b.o2, b.poison, ORDER_SIZE);
  memcpy(b.o3, b.poison, ORDER_SIZE);
  const unsigned char v = 0xC3;
  bp_stream_t *stream;
  bp_status_t status;
  if ((status = check_pool_stream(pool, device, &stream)) ||
      (status = check_pool_device_memory(pool, device, ORDER_SIZE, &b.d)) ||
      (status = check_pool_device_memory(pool, device, ORDER_SIZE, &b.e))) {
    check_fail_call(ctx, name, "setup", status);
    return;
  }
  if (is_async(ctx) && (status = check_gate_enqueue(gate, stream))) {
    check_fail_call(ctx, name, "bp_stream_add_callback", status);
    return;
  }
  int step, blocked = 0;
  check_look_t look = CHECK_LOOK_UNGATED;
  for (step = 0; step < CHAIN_STEPS; step++) {
    if (step == HELD_STEPS) {
      if (is_async(ctx))
        look = check_look_judge(touched(b.o1, b.poison, ORDER_SIZE) ||
                                    touched(b.o2, b.poison, ORDER_SIZE),
                                0, check_gate_holding(gate));
      check_gate_open(gate);
    }
    status = enqueue_chain_step(step, device, stream, &b, v);
    blocked =
        step < HELD_STEPS && is_async(ctx) && check_gate_state(gate).timed_out;
    if (status != BP_OK || blocked)
      break;
  }
  check_gate_open(gate);
  if (status != BP_OK) {
    check_fail_call(ctx, name, chain_step_names[step], status);
    return;
  }
  if (blocked) {
    check_fail(ctx, name,
               "enqueueing step %d (%s) on a held stream did not return "
               "until the stream drained",
               step + 1, chain_step_names[step]);
    return;
  }
  if ((status = bp_stream_synchronize(stream))) {
    check_fail_call(ctx, name, "bp_stream_synchronize", status);
    return;
  }
  size_t at;
  unsigned char *all_v = b.poison;
  memset(all_v, v, ORDER_SIZE);
  if (look == CHECK_LOOK_RAN_EARLY)
    check_fail(ctx, name,
               "a copy to host memory landed while a callback "
               "earlier on the stream was still blocked");
  else if ((at = check_pattern_mismatch(b.o1, b.p1, ORDER_SIZE)) != SIZE_MAX)
    check_fail(ctx, name, "step 2 (d2h) did not see step 1 (h2d): byte %zu",
               at);
  else if ((at = check_pattern_mismatch(b.o2, b.p2, ORDER_SIZE)) != SIZE_MAX)
    check_fail(ctx, name,
               "step 5 (d2h) did not see steps 3-4 (h2d, d2d): "
               "byte %zu",
               at);
  else if ((at = check_pattern_mismatch(b.o3, all_v, ORDER_SIZE)) != SIZE_MAX)
    check_fail(ctx, name, "step 7 (d2h) did not see step 6 (memset): byte %zu",
               at);
  else if (look == CHECK_LOOK_CANNOT_TELL)
    check_skip(ctx, name,
               "inconclusive: the held stream was let go at its deadline "
               "before the copies behind it could be looked at; all landed "
               "in order");
  else
    check_pass(ctx, name, "7 dependent copies and a memset landed in order%s",
               is_async(ctx) ? "; none of the 5 held ones ran early" : "");
}

void check_stream_order(check_ctx_t *ctx) {
  check_pool_t pool = {0};
  check_gate_t gate;
  check_gate_init(&gate, GATE_DEADLINE_MS);
  run_stream_order(ctx, &pool, &gate);
  check_gate_open(&gate);
  check_pool_release(&pool);
  check_gate_destroy(&gate);
}

/* ---- callbacks ---------------------------------------------------------- */

typedef struct callback_log {
  atomic_int calls[CALLBACK_COUNT];
  atomic_int next_slot;
  int order[CALLBACK_COUNT];
} callback_log_t;

typedef struct callback_arg {
  callback_log_t *log;
  int index;
} callback_arg_t;

static void log_callback(void *user_data) {
  callback_arg_t *arg = user_data;
  int slot = atomic_fetch_add(&arg->log->next_slot, 1);
  if (slot < CALLBACK_COUNT)
    arg->log->order[slot] = arg->index;
  atomic_fetch_add(&arg->log->calls[arg->index], 1);
}

/* Returns a description of the first problem in the log, or NULL. */
static const char *callback_log_problem(callback_log_t *log, char *why,
                                        size_t why_size) {
  for (int i = 0; i < CALLBACK_COUNT; i++) {
    int calls = atomic_load(&log->calls[i]);
    if (calls != 1) {
      snprintf(why, why_size, "callback %d ran %d times", i, calls);
      return why;
    }
  }
  for (int i = 0; i < CALLBACK_COUNT; i++) {
    if (log->order[i] != i) {
      snprintf(why, why_size, "callback %d ran in position %d", log->order[i],
               i);
      return why;
    }
  }
  return NULL;
}

static void run_callbacks(check_ctx_t *ctx, check_gate_t *gate,
                          callback_log_t *log, callback_arg_t *args) {
  const char *name = "callbacks.order";
  bp_stream_t *stream;
  bp_status_t status = bp_stream_create(ctx->devices[0], &stream);
  if (status != BP_OK) {
    check_fail_call(ctx, name, "bp_stream_create", status);
    return;
  }
  if (is_async(ctx))
    status = check_gate_enqueue(gate, stream);
  for (int i = 0; i < CALLBACK_COUNT && status == BP_OK; i++) {
    args[i] = (callback_arg_t){.log = log, .index = i};
    status = bp_stream_add_callback(stream, log_callback, &args[i]);
  }
  check_look_t look = is_async(ctx)
                          ? check_look_judge(atomic_load(&log->next_slot) != 0,
                                             0, check_gate_holding(gate))
                          : CHECK_LOOK_UNGATED;
  check_gate_open(gate);
  bp_status_t sync_status = bp_stream_synchronize(stream);
  int after_sync = atomic_load(&log->next_slot);
  bp_status_t destroy_status = check_stream_destroy(stream);
  char why[128];
  if (status == BP_ERR_UNSUPPORTED)
    check_skip(ctx, name, "host callbacks are not provided: %s",
               bp_last_error());
  else if (status != BP_OK)
    check_fail_call(ctx, name, "bp_stream_add_callback", status);
  else if (sync_status != BP_OK)
    check_fail_call(ctx, name, "bp_stream_synchronize", sync_status);
  else if (destroy_status != BP_OK)
    check_fail_call(ctx, name, "bp_stream_destroy", destroy_status);
  else if (look == CHECK_LOOK_RAN_EARLY)
    check_fail(ctx, name,
               "callbacks ran while an earlier callback blocked "
               "the stream");
  else if (after_sync != CALLBACK_COUNT)
    check_fail(ctx, name,
               "%d of %d callbacks had run when "
               "bp_stream_synchronize returned",
               after_sync, CALLBACK_COUNT);
  else if (callback_log_problem(log, why, sizeof(why)))
    check_fail(ctx, name, "%s", why);
  else if (look == CHECK_LOOK_CANNOT_TELL)
    check_skip(ctx, name,
               "inconclusive: the held stream was let go at its deadline "
               "before the callbacks behind it could be looked at; all ran "
               "in order, once each");
  else
    check_pass(ctx, name,
               "%d callbacks ran in order, each exactly once, all "
               "before synchronize returned",
               CALLBACK_COUNT);
}

void check_callbacks(check_ctx_t *ctx) {
  /* Static: a plugin that does not drain on destroy could still run them. */
  static callback_log_t log;
  static callback_arg_t args[CALLBACK_COUNT];
  memset(&log, 0, sizeof(log));
  for (int i = 0; i < CALLBACK_COUNT; i++)
    atomic_init(&log.calls[i], 0);
  atomic_init(&log.next_slot, 0);
  check_gate_t gate;
  check_gate_init(&gate, GATE_DEADLINE_MS);
  run_callbacks(ctx, &gate, &log, args);
  check_gate_open(&gate);
  check_gate_destroy(&gate);
}

/* ---- many_streams --------------------------------------------------------
 * 16 streams spread over the devices, each: h2d, d2d, memset of a prefix,
 * d2h and a callback, enqueued round-robin; then bp_device_synchronize on
 * every device must have drained them all. */

typedef struct stream_work {
  bp_device_t *device;
  bp_stream_t *stream;
  unsigned char *in, *out;
  void *d, *e;
  check_marker_t done;
} stream_work_t;

static bp_status_t enqueue_step(stream_work_t *w, int step, size_t index) {
  switch (step) {
  case 0:
    return bp_copy(w->device, w->d, NULL, w->in, STREAM_WORK_SIZE, w->stream);
  case 1:
    return bp_copy(w->device, w->e, w->device, w->d, STREAM_WORK_SIZE,
                   w->stream);
  case 2:
    return bp_memset(w->device, w->e, (unsigned char)index, 16 + index,
                     w->stream);
  case 3:
    return bp_copy(NULL, w->out, w->device, w->e, STREAM_WORK_SIZE, w->stream);
  default:
    return check_marker_enqueue(&w->done, w->stream);
  }
}

void check_many_streams(check_ctx_t *ctx) {
  const char *name = "streams.many";
  check_pool_t pool = {0};
  stream_work_t work[STREAM_COUNT];
  bp_status_t status = BP_OK;
  for (size_t i = 0; i < STREAM_COUNT && status == BP_OK; i++) {
    stream_work_t *w = &work[i];
    w->device = ctx->devices[i % ctx->device_count];
    check_marker_init(&w->done, NULL);
    w->in = check_pool_host_memory(&pool, STREAM_WORK_SIZE);
    w->out = check_pool_host_memory(&pool, STREAM_WORK_SIZE);
    if (!w->in || !w->out) {
      status = BP_ERR_OUT_OF_MEMORY;
      break;
    }
    check_pattern_fill(w->in, STREAM_WORK_SIZE, 100 + i);
    memset(w->out, 0, STREAM_WORK_SIZE);
    if ((status = check_pool_stream(&pool, w->device, &w->stream)) == BP_OK &&
        (status = check_pool_device_memory(&pool, w->device, STREAM_WORK_SIZE,
                                           &w->d)) == BP_OK)
      status =
          check_pool_device_memory(&pool, w->device, STREAM_WORK_SIZE, &w->e);
  }
  if (status != BP_OK) {
    check_fail_call(ctx, name, "setting up 16 streams", status);
    check_pool_release(&pool);
    return;
  }
  for (int step = 0; step < 5 && status == BP_OK; step++)
    for (size_t i = 0; i < STREAM_COUNT && status == BP_OK; i++)
      status = enqueue_step(&work[i], step, i);
  for (size_t d = 0; d < ctx->device_count && status == BP_OK; d++)
    status = bp_device_synchronize(ctx->devices[d]);
  char why[160] = "";
  for (size_t i = 0; i < STREAM_COUNT && status == BP_OK && !why[0]; i++) {
    stream_work_t *w = &work[i];
    memset(w->in, (int)i, 16 + i);
    size_t at = check_pattern_mismatch(w->out, w->in, STREAM_WORK_SIZE);
    int runs = atomic_load(&w->done.runs);
    if (runs != 1)
      snprintf(why, sizeof(why),
               "stream %zu: its callback had run %d times "
               "when bp_device_synchronize returned",
               i, runs);
    else if (at != SIZE_MAX)
      snprintf(why, sizeof(why),
               "stream %zu: byte %zu wrong after "
               "bp_device_synchronize",
               i, at);
  }
  if (status != BP_OK)
    check_fail_call(ctx, name, "enqueueing or synchronizing", status);
  else if (why[0])
    check_fail(ctx, name, "%s", why);
  else
    check_pass(ctx, name,
               "%d streams x 5 commands on %zu device%s; "
               "bp_device_synchronize drained all",
               STREAM_COUNT, ctx->device_count,
               ctx->device_count == 1 ? "" : "s");
  check_pool_release(&pool);
}
