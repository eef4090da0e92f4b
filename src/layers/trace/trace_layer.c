/* The trace layer's life cycle (core/layer.h): the runtime's trace session
 * (one file for every traced plugin of a runtime), and the plugin's
 * profiler, started at attach and stopped at detach. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/status.h"
#include "layers/trace/trace_internal.h"
#include "profiler/chrome_trace.h"
#include "profiler/plugin_profiler.h"
#include "profiler/ranges.h"

/* The runtime-wide state of the trace layer, owned by the runtime: opened
 * in bp_runtime_create, closed (writing the file) after every plugin is
 * unloaded. Only touched while the runtime loads or unloads its plugins,
 * which is single-threaded. */
struct bp_trace_session {
  char *path;
  size_t finished; /* plugins whose records were handed over */
  bp_trace_source_t *sources;
  size_t source_count;
};

static void free_session(bp_trace_session_t *session) {
  for (size_t i = 0; i < session->source_count; ++i) {
    free((char *)session->sources[i].device_type);
    bp_trace_records_free((bp_trace_record_t *)session->sources[i].records,
                          session->sources[i].count);
  }
  free(session->sources);
  free(session->path);
  free(session);
}

static bp_status_t trace_open(const bp_layer_options_t *options,
                              void **out_shared) {
  bp_trace_session_t *session = calloc(1, sizeof *session);
  if (session)
    session->path = strdup(options->trace_file);
  if (!session || !session->path) {
    free(session);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "trace layer: out of memory");
  }
  bp_profiler_ranges_listen();
  *out_shared = session;
  return BP_OK;
}

/* The user ranges closed so far (profiler/ranges.h), as the host's. */
static void add_ranges(bp_trace_session_t *session) {
  bp_trace_record_t *records;
  size_t count;
  bp_profiler_ranges_take(&records, &count);
  if (!count)
    return;
  bp_trace_source_t *sources =
      realloc(session->sources, (session->source_count + 1) * sizeof *sources);
  char *device_type = strdup("host");
  if (sources)
    session->sources = sources;
  if (!sources || !device_type) {
    bp_log(BP_LOG_WARN, "trace", "out of memory, %zu ranges dropped", count);
    free(device_type);
    bp_trace_records_free(records, count);
    return;
  }
  sources[session->source_count++] =
      (bp_trace_source_t){device_type, records, count};
}

/* Writes the file when a traced plugin handed its records over. */
static void trace_close(void *shared) {
  bp_trace_session_t *session = shared;
  add_ranges(session);
  bp_profiler_ranges_unlisten();
  if (session->finished &&
      bp_chrome_trace_write(session->path, session->sources,
                            session->source_count) != BP_OK)
    bp_log(BP_LOG_ERROR, "trace", "%s", bp_last_error());
  free_session(session);
}

/* The buffer's stream filter: of the device records a plugin shared with
 * other runtimes of the process reports, keep those of this runtime's
 * streams (the intercepts of create_stream and destroy_stream keep the set). */
static bool keeps_stream(void *context, uint64_t stream_id) {
  bp_trace_layer_t *layer = context;
  pthread_mutex_lock(&layer->lock);
  bool own = bp_pointer_map_get(&layer->streams,
                                (const void *)(uintptr_t)stream_id) != 0;
  pthread_mutex_unlock(&layer->lock);
  return own;
}

/* Initializes, prepares and starts the plugin's profiler on the layer's
 * buffer; logs why when it cannot. */
static void start_plugin_profiler(bp_trace_layer_t *layer) {
  const C_DeviceInterface *d = &layer->next;
  const char *missing = bp_plugin_profiler_missing(d);
  if (missing) {
    bp_log(BP_LOG_WARN, "trace",
           "%s: no device timeline (the plugin has no %s)",
           layer->plugin->device_type, missing);
    return;
  }
  C_Status result =
      d->profiler_initialize(layer->buffer, &layer->profiler_user_data);
  const char *step = "profiler_initialize";
  if (result == C_SUCCESS) {
    layer->plugin_profiler = true;
    step = "profiler_prepare_tracing";
    result =
        d->profiler_prepare_tracing(layer->buffer, layer->profiler_user_data);
  }
  if (result == C_SUCCESS) {
    step = "profiler_start_tracing";
    result =
        d->profiler_start_tracing(layer->buffer, layer->profiler_user_data);
  }
  if (result != C_SUCCESS)
    bp_log(BP_LOG_WARN, "trace",
           "%s: no device timeline (%s returned %s; is another profiler "
           "active?)",
           layer->plugin->device_type, step, bp_c_status_name(result));
}

static bp_status_t trace_attach(void *shared, bp_plugin_t *plugin,
                                C_DeviceInterface *table,
                                bp_observer_t *observer, void **out_context) {
  bp_trace_layer_t *layer = calloc(1, sizeof *layer);
  bp_trace_memory_sample_t *memory =
      calloc(plugin->device_count ? plugin->device_count : 1, sizeof *memory);
  C_Profiler buffer = NULL;
  if (!layer || !memory || bp_profiler_create(&buffer) != BP_OK) {
    free(memory);
    free(layer);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "trace layer: out of memory");
  }
  layer->plugin = plugin;
  layer->session = shared;
  layer->buffer = buffer;
  layer->memory = memory;
  layer->next = *table;
  pthread_mutex_init(&layer->lock, NULL);
  bp_trace_thread_buffers_init(&layer->threads);
  atomic_init(&layer->record_serial, 0);
  bp_profiler_set_stream_filter(buffer, keeps_stream, layer);
  layer->start = bp_clock_anchor_now();
  start_plugin_profiler(layer);
  bp_trace_layer_install(layer, table);
  *observer = (bp_observer_t){.context = layer,
                              .api_call = bp_trace_observe_api_call,
                              .collective = bp_trace_observe_collective};
  *out_context = layer;
  return BP_OK;
}

static void trace_add_stats(const void *context, bp_layer_stats_t *stats) {
  bp_trace_layer_t *layer = (bp_trace_layer_t *)context;
  uint64_t recorded, dropped;
  bp_trace_thread_counts(&layer->threads, &recorded, &dropped);
  stats->trace_events += recorded;
}

/* Stops and finalizes the plugin's profiler (its records are in the
 * buffer afterwards). */
static void stop_plugin_profiler(bp_trace_layer_t *layer) {
  if (!layer->plugin_profiler)
    return;
  const C_DeviceInterface *d = &layer->next;
  if (d->profiler_stop_tracing(layer->buffer, layer->profiler_user_data) ==
      C_SUCCESS)
    d->profiler_collect_trace_data(layer->buffer, layer->start.monotonic_ns,
                                   layer->profiler_user_data);
  d->profiler_finalize(layer->buffer, layer->profiler_user_data);
  layer->plugin_profiler = false;
}

/* Logs how many events were lost, if any. */
static void report_drops(const bp_trace_layer_t *layer, uint64_t dropped) {
  if (dropped)
    bp_log(BP_LOG_WARN, "trace", "%s: %llu events dropped (out of memory)",
           layer->plugin->device_type, (unsigned long long)dropped);
}

/* Stops the plugin's profiler and hands every record (the plugin's device
 * events and the threads' host events) to the session. */
static void trace_detach(void *context) {
  bp_trace_layer_t *layer = context;
  stop_plugin_profiler(layer);
  bp_trace_session_t *session = layer->session;
  bp_trace_record_t *records = NULL;
  size_t count = 0;
  bp_profiler_take(layer->buffer, &records, &count);
  uint64_t recorded, dropped;
  bp_trace_thread_counts(&layer->threads, &recorded, &dropped);
  dropped += bp_profiler_dropped(layer->buffer);
  size_t before = count;
  if (!bp_trace_export_host(layer, &records, &count))
    dropped += recorded - (count - before);
  report_drops(layer, dropped);
  bp_trace_source_t *sources =
      realloc(session->sources, (session->source_count + 1) * sizeof *sources);
  char *device_type = strdup(layer->plugin->device_type);
  if (sources)
    session->sources = sources;
  if (!sources || !device_type) {
    bp_log(BP_LOG_WARN, "trace", "%s: out of memory, records dropped",
           layer->plugin->device_type);
    free(device_type);
    bp_trace_records_free(records, count);
  } else {
    sources[session->source_count++] =
        (bp_trace_source_t){device_type, records, count};
  }
  session->finished++;
}

static void trace_destroy_context(void *context) {
  bp_trace_layer_t *layer = context;
  stop_plugin_profiler(layer);
  bp_profiler_destroy(layer->buffer);
  bp_trace_thread_buffers_release(&layer->threads);
  bp_pointer_map_release(&layer->flows);
  bp_pointer_map_release(&layer->streams);
  bp_pointer_map_release(&layer->kernel_functions);
  bp_trace_kernel_names_free(layer);
  bp_trace_comm_seqs_release(&layer->comm_seqs);
  pthread_mutex_destroy(&layer->lock);
  free(layer->memory);
  free(layer);
}

const bp_layer_t bp_trace_layer = {
    .name = "trace",
    .open = trace_open,
    .attach = trace_attach,
    .attach_kernels = bp_trace_attach_kernels,
    .detach = trace_detach,
    .destroy_context = trace_destroy_context,
    .close = trace_close,
    .add_stats = trace_add_stats,
};
