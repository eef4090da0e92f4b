/* dispatch: what a runtime call costs over calling the same plugin function
 * directly through the dispatch table (budget: <= 2 ns extra). Measured on
 * two cheap calls: querying an idle stream and a completed event. */
#include <stdint.h>

#include "bench.h"
#include "cli_timing.h"

enum { FULL_REPS = 9 };

/* The plugin's own stream and event, created through the dispatch table. */
typedef struct direct_objects {
  const C_DeviceInterface *table;
  C_Device device;
  C_Stream stream;
  C_Event event;
} direct_objects_t;

typedef struct runtime_objects {
  bp_stream_t *stream;
  bp_event_t *event;
} runtime_objects_t;

typedef enum call_kind { STREAM_QUERY, EVENT_QUERY } call_kind_t;

/* ns per call of `calls` back-to-back calls (opaque calls: the compiler
 * cannot drop them). */
static double time_runtime(const runtime_objects_t *o, call_kind_t kind,
                           size_t calls) {
  uint64_t start = cli_now_ns();
  if (kind == STREAM_QUERY)
    for (size_t i = 0; i < calls; i++)
      (void)bp_stream_query(o->stream);
  else
    for (size_t i = 0; i < calls; i++)
      (void)bp_event_query(o->event);
  return (double)(cli_now_ns() - start) / (double)calls;
}

static double time_direct(const direct_objects_t *o, call_kind_t kind,
                          size_t calls) {
  uint64_t start = cli_now_ns();
  if (kind == STREAM_QUERY)
    for (size_t i = 0; i < calls; i++)
      (void)o->table->query_stream(o->device, o->stream);
  else
    for (size_t i = 0; i < calls; i++)
      (void)o->table->query_event(o->device, o->event);
  return (double)(cli_now_ns() - start) / (double)calls;
}

/* Alternates runtime and direct repetitions so drift hits both alike. */
static void measure(bench_ctx_t *ctx, const runtime_objects_t *rt,
                    const direct_objects_t *direct, call_kind_t kind,
                    const char *bench_case) {
  size_t calls = ctx->quick ? 20000 : 2000000;
  size_t reps = bench_reps(ctx, FULL_REPS);
  double runtime_ns[FULL_REPS], direct_ns[FULL_REPS];
  time_runtime(rt, kind, calls / 10); /* warm-up */
  time_direct(direct, kind, calls / 10);
  for (size_t r = 0; r < reps; r++) {
    runtime_ns[r] = time_runtime(rt, kind, calls);
    direct_ns[r] = time_direct(direct, kind, calls);
  }
  bench_record(ctx, &(bench_result_t){
                        .bench_case = bench_case,
                        .value = cli_median(runtime_ns, reps),
                        .unit = "ns",
                        .baseline = "direct call",
                        .baseline_value = cli_median(direct_ns, reps),
                        .budget = BENCH_BUDGET_MAX_EXTRA,
                        .limit = 2.0,
                        .budget_text = "<= 2 ns extra",
                    });
}

static bp_status_t create_direct(bench_ctx_t *ctx, direct_objects_t *o) {
  o->table = ctx->dispatch;
  o->device = bp_device_c_handle(ctx->device);
  const C_DeviceInterface *t = o->table;
  if (!t || !t->create_stream || !t->create_event || !t->record_event ||
      !t->synchronize_event || !t->query_stream || !t->query_event)
    return BP_ERR_UNSUPPORTED;
  if (t->create_stream(o->device, &o->stream) != C_SUCCESS)
    return BP_ERR_PLUGIN;
  if (t->create_event(o->device, &o->event) != C_SUCCESS ||
      t->record_event(o->device, o->stream, o->event) != C_SUCCESS ||
      t->synchronize_event(o->device, o->event) != C_SUCCESS)
    return BP_ERR_PLUGIN;
  return BP_OK;
}

static void destroy_direct(direct_objects_t *o) {
  const C_DeviceInterface *t = o->table;
  if (t && t->destroy_event && o->event)
    t->destroy_event(o->device, o->event);
  if (t && t->destroy_stream && o->stream)
    t->destroy_stream(o->device, o->stream);
}

bp_status_t bench_dispatch(bench_ctx_t *ctx) {
  direct_objects_t direct = {0};
  runtime_objects_t rt = {0};
  bp_status_t status = create_direct(ctx, &direct);
  if (status != BP_OK) {
    destroy_direct(&direct);
    return bench_error(ctx,
                       "creating a stream and event through the "
                       "dispatch table",
                       status);
  }
  if ((status = bp_stream_create(ctx->device, &rt.stream)) != BP_OK ||
      (status = bp_event_create(ctx->device, &rt.event)) != BP_OK ||
      (status = bp_event_record(rt.event, rt.stream)) != BP_OK ||
      (status = bp_event_synchronize(rt.event)) != BP_OK) {
    bench_error(ctx, "creating a stream and event", status);
  } else {
    measure(ctx, &rt, &direct, STREAM_QUERY, "stream query (idle)");
    measure(ctx, &rt, &direct, EVENT_QUERY, "event query (completed)");
  }
  bp_event_destroy(rt.event);
  bp_stream_destroy(rt.stream);
  destroy_direct(&direct);
  return status;
}
