/* dispatch: what a runtime call costs over calling the same plugin function
 * directly through the dispatch table (budget: <= 2 ns extra). Measured on
 * two cheap calls: querying an idle stream and a completed event. Then the
 * same runtime calls on a runtime of the same plugin with a layer spliced
 * in: validation against the direct call (no budget: the price of
 * debugging), and trace against the same call on the untraced runtime,
 * alternated in the same run (budget: <= 100 ns extra per call, which
 * records two slices: the framework-face call and the plugin call inside
 * it; fewer calls, since the trace layer keeps every event). Last, the
 * framework face's bounds check: a 1-byte bp_memset on a runtime with the
 * check (the default) against one with skip_range_checks (budget: <= 20 ns
 * extra). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench.h"
#include "cli/cli_timing.h"

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

/* A layer spliced into the runtime's dispatch table, or none, and what
 * its calls are measured against. */
typedef struct layer_case {
  const char *layers;    /* as BACKPLANE_LAYERS; NULL: the bench's runtime */
  size_t call_divisor;   /* fewer calls than without layers */
  bool against_untraced; /* baseline: the bench's runtime, not the direct
                            call */
  bench_budget_kind_t budget;
  double limit; /* ns extra */
  const char *budget_text;
} layer_case_t;

static const layer_case_t no_layer = {
    NULL, 1, false, BENCH_BUDGET_MAX_EXTRA, 2.0, "<= 2 ns extra"};
static const layer_case_t layer_cases[] = {
    {"validation", 10, false, BENCH_BUDGET_NONE, 0, NULL},
    {"trace", 1000, true, BENCH_BUDGET_MAX_EXTRA, 100.0, "<= 100 ns extra"},
};

/* The calls measured and their baseline, alternated repetition by
 * repetition so drift hits both alike. */
typedef struct measured {
  const runtime_objects_t *rt;    /* the calls measured */
  const runtime_objects_t *plain; /* baseline when against_untraced */
  const direct_objects_t *direct; /* baseline otherwise */
} measured_t;

static void measure(bench_ctx_t *ctx, const measured_t *m, call_kind_t kind,
                    const char *bench_case, const layer_case_t *layer) {
  size_t calls = (ctx->quick ? 20000 : 2000000) / layer->call_divisor;
  size_t reps = bench_reps(ctx, FULL_REPS);
  double runtime_ns[FULL_REPS], baseline_ns[FULL_REPS];
  bool plain = layer->against_untraced;
  time_runtime(m->rt, kind, calls / 10); /* warm-up */
  if (plain)
    time_runtime(m->plain, kind, calls / 10);
  else
    time_direct(m->direct, kind, calls / 10);
  for (size_t r = 0; r < reps; r++) {
    runtime_ns[r] = time_runtime(m->rt, kind, calls);
    baseline_ns[r] = plain ? time_runtime(m->plain, kind, calls)
                           : time_direct(m->direct, kind, calls);
  }
  char layered_case[96];
  if (layer->layers)
    snprintf(layered_case, sizeof layered_case, "%s +%s", bench_case,
             layer->layers);
  bench_record(ctx, &(bench_result_t){
                        .bench_case = layer->layers ? layered_case : bench_case,
                        .value = cli_median(runtime_ns, reps),
                        .unit = "ns",
                        .baseline = plain ? "no layer" : "direct call",
                        .baseline_value = cli_median(baseline_ns, reps),
                        .budget = layer->budget,
                        .limit = layer->limit,
                        .budget_text = layer->budget_text,
                    });
}

/* Both measurements on a runtime of the bench's plugin alone with `layer`
 * spliced in; the trace goes to /dev/null, validation reports to stderr.
 * `plain`: the same objects on the bench's own runtime. */
static bp_status_t measure_layered(bench_ctx_t *ctx,
                                   const direct_objects_t *direct,
                                   const runtime_objects_t *plain,
                                   const layer_case_t *layer) {
  bp_plugin_info_t info;
  bp_status_t status =
      bp_runtime_plugin_info(ctx->runtime, ctx->plugin_index, &info);
  if (status != BP_OK)
    return bench_error(ctx, "reading the plugin's path", status);
  bp_runtime_options_t options = {.struct_size = sizeof options,
                                  .plugin_path = info.path,
                                  .ignore_environment = 1,
                                  .skip_builtin_plugins = 1};
  bp_layer_options_t layers = {.struct_size = sizeof layers,
                               .layers = layer->layers,
                               .fault = "",
                               .validation_log = "",
                               .validation_abort = 0,
                               .trace_file = "/dev/null"};
  bp_runtime_t *runtime = NULL;
  bp_device_t *device = NULL;
  runtime_objects_t rt = {0};
  if ((status = bp_runtime_create_layered(&options, &layers, &runtime)) !=
          BP_OK ||
      (status = bp_device_get(runtime, ctx->plugin_name, 0, &device)) !=
          BP_OK ||
      (status = bp_stream_create(device, &rt.stream)) != BP_OK ||
      (status = bp_event_create(device, &rt.event)) != BP_OK ||
      (status = bp_event_record(rt.event, rt.stream)) != BP_OK ||
      (status = bp_event_synchronize(rt.event)) != BP_OK) {
    bench_error(ctx, layer->layers, status);
  } else {
    measured_t m = {&rt, plain, direct};
    measure(ctx, &m, STREAM_QUERY, "stream query (idle)", layer);
    measure(ctx, &m, EVENT_QUERY, "event query (completed)", layer);
  }
  bp_event_destroy(rt.event);
  bp_stream_destroy(rt.stream);
  bp_runtime_destroy(runtime);
  return status;
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

/* A device, a 4 KiB block and a stream on a runtime of the bench's plugin
 * alone, with or without the bounds check. */
typedef struct memset_objects {
  bp_runtime_t *runtime;
  bp_device_t *device;
  void *block;
  bp_stream_t *stream;
} memset_objects_t;

static bp_status_t open_memset(bench_ctx_t *ctx, const char *path,
                               int skip_range_checks, memset_objects_t *o) {
  bp_runtime_options_t options = {.struct_size = sizeof options,
                                  .plugin_path = path,
                                  .ignore_environment = 1,
                                  .skip_builtin_plugins = 1,
                                  .skip_range_checks = skip_range_checks};
  bp_status_t status;
  if ((status = bp_runtime_create(&options, &o->runtime)) != BP_OK ||
      (status = bp_device_get(o->runtime, ctx->plugin_name, 0, &o->device)) !=
          BP_OK ||
      (status = bp_device_malloc(o->device, 4096, &o->block)) != BP_OK ||
      (status = bp_stream_create(o->device, &o->stream)) != BP_OK)
    return status;
  return BP_OK;
}

static void close_memset(memset_objects_t *o) {
  if (o->stream)
    bp_stream_destroy(o->stream);
  if (o->block)
    bp_device_free(o->device, o->block);
  bp_runtime_destroy(o->runtime);
}

static double time_memset(const memset_objects_t *o, size_t calls) {
  uint64_t start = cli_now_ns();
  for (size_t i = 0; i < calls; i++)
    (void)bp_memset(o->device, o->block, (unsigned char)i, 1, o->stream);
  return (double)(cli_now_ns() - start) / (double)calls;
}

static bp_status_t measure_bounds_check(bench_ctx_t *ctx) {
  bp_plugin_info_t info;
  bp_status_t status =
      bp_runtime_plugin_info(ctx->runtime, ctx->plugin_index, &info);
  if (status != BP_OK)
    return bench_error(ctx, "reading the plugin's path", status);
  memset_objects_t checked = {0}, unchecked = {0};
  if ((status = open_memset(ctx, info.path, 0, &checked)) != BP_OK ||
      (status = open_memset(ctx, info.path, 1, &unchecked)) != BP_OK) {
    bench_error(ctx, "a runtime for the bounds check", status);
  } else {
    size_t calls = ctx->quick ? 20000 : 1000000;
    size_t reps = bench_reps(ctx, FULL_REPS);
    double checked_ns[FULL_REPS], unchecked_ns[FULL_REPS];
    time_memset(&checked, calls / 10); /* warm-up */
    time_memset(&unchecked, calls / 10);
    for (size_t r = 0; r < reps; r++) {
      checked_ns[r] = time_memset(&checked, calls);
      unchecked_ns[r] = time_memset(&unchecked, calls);
    }
    bench_record(ctx, &(bench_result_t){
                          .bench_case = "memset 1 B, bounds check",
                          .value = cli_median(checked_ns, reps),
                          .unit = "ns",
                          .baseline = "unchecked",
                          .baseline_value = cli_median(unchecked_ns, reps),
                          .budget = BENCH_BUDGET_MAX_EXTRA,
                          .limit = 20.0,
                          .budget_text = "<= 20 ns extra",
                      });
  }
  close_memset(&checked);
  close_memset(&unchecked);
  return status;
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
    measured_t m = {&rt, NULL, &direct};
    measure(ctx, &m, STREAM_QUERY, "stream query (idle)", &no_layer);
    measure(ctx, &m, EVENT_QUERY, "event query (completed)", &no_layer);
  }
  for (size_t i = 0;
       status == BP_OK && i < sizeof layer_cases / sizeof *layer_cases; i++)
    status = measure_layered(ctx, &direct, &rt, &layer_cases[i]);
  bp_event_destroy(rt.event);
  bp_stream_destroy(rt.stream);
  destroy_direct(&direct);
  if (status == BP_OK)
    status = measure_bounds_check(ctx);
  return status;
}
