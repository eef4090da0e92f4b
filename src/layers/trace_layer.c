/* The trace layer's life cycle: the runtime's trace session (one file for
 * every traced plugin of a runtime), and the plugin's profiler, started at
 * load and stopped at unload. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/runtime_internal.h"
#include "base/status.h"
#include "profiler/chrome_trace.h"
#include "profiler/plugin_profiler.h"
#include "layers/trace_internal.h"

/* Shared by the trace layers of one runtime; the last one to finish writes
 * the file and frees the session. Only touched while the runtime loads or
 * unloads its plugins, which is single-threaded. */
struct bp_trace_session {
  char *path;
  size_t members; /* layers not finished yet */
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

/* The session of an already loaded plugin of the runtime, or a new one. */
static bp_trace_session_t *join_session(const bp_plugin_t *plugin,
                                        const char *path) {
  const bp_runtime_t *runtime = plugin->runtime;
  for (size_t i = 0; i < runtime->plugin_count; ++i) {
    const bp_layers_t *layers = runtime->plugins[i]->layers;
    if (layers && layers->trace) {
      layers->trace->session->members++;
      return layers->trace->session;
    }
  }
  bp_trace_session_t *session = calloc(1, sizeof *session);
  if (session)
    session->path = strdup(path);
  if (!session || !session->path) {
    free(session);
    return NULL;
  }
  session->members = 1;
  return session;
}

/* Leaves the session; the last member writes the file when `write`. */
static void leave_session(bp_trace_session_t *session, bool write) {
  if (--session->members > 0)
    return;
  if (write && bp_chrome_trace_write(session->path, session->sources,
                                     session->source_count) != BP_OK)
    fprintf(stderr, "backplane trace: %s\n", bp_last_error());
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
 * buffer; says on stderr why when it cannot. */
static void start_plugin_profiler(bp_trace_layer_t *layer) {
  const C_DeviceInterface *d = &layer->next;
  const char *missing = bp_plugin_profiler_missing(d);
  if (missing) {
    fprintf(stderr,
            "backplane trace: %s: no device timeline (the plugin has no %s)\n",
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
    fprintf(stderr,
            "backplane trace: %s: no device timeline (%s returned %s; is "
            "another profiler active?)\n",
            layer->plugin->device_type, step, bp_c_status_name(result));
}

bp_status_t bp_trace_layer_create(bp_plugin_t *plugin, const char *path,
                                  bp_trace_layer_t **out_layer) {
  bp_trace_layer_t *layer = calloc(1, sizeof *layer);
  bp_trace_memory_sample_t *memory =
      calloc(plugin->device_count ? plugin->device_count : 1, sizeof *memory);
  C_Profiler buffer = NULL;
  bp_trace_session_t *session = NULL;
  if (layer && memory && bp_profiler_create(&buffer) == BP_OK)
    session = join_session(plugin, path);
  if (!session) {
    bp_profiler_destroy(buffer);
    free(memory);
    free(layer);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "trace layer: out of memory");
  }
  layer->plugin = plugin;
  layer->session = session;
  layer->buffer = buffer;
  layer->memory = memory;
  layer->next = plugin->dispatch;
  pthread_mutex_init(&layer->lock, NULL);
  bp_profiler_set_stream_filter(buffer, keeps_stream, layer);
  layer->start_ns = bp_clock_now_ns();
  start_plugin_profiler(layer);
  *out_layer = layer;
  return BP_OK;
}

uint64_t bp_trace_layer_events(const bp_trace_layer_t *layer) {
  return atomic_load(&layer->events);
}

/* Stops and finalizes the plugin's profiler (its records are in the
 * buffer afterwards). */
static void stop_plugin_profiler(bp_trace_layer_t *layer) {
  if (!layer->plugin_profiler)
    return;
  const C_DeviceInterface *d = &layer->next;
  if (d->profiler_stop_tracing(layer->buffer, layer->profiler_user_data) ==
      C_SUCCESS)
    d->profiler_collect_trace_data(layer->buffer, layer->start_ns,
                                   layer->profiler_user_data);
  d->profiler_finalize(layer->buffer, layer->profiler_user_data);
  layer->plugin_profiler = false;
}

void bp_trace_layer_finish(bp_trace_layer_t *layer) {
  stop_plugin_profiler(layer);
  bp_trace_session_t *session = layer->session;
  bp_trace_record_t *records = NULL;
  size_t count = 0;
  bp_profiler_take(layer->buffer, &records, &count);
  bp_trace_source_t *sources =
      realloc(session->sources, (session->source_count + 1) * sizeof *sources);
  char *device_type = strdup(layer->plugin->device_type);
  if (sources)
    session->sources = sources;
  if (!sources || !device_type) {
    fprintf(stderr, "backplane trace: %s: out of memory, records dropped\n",
            layer->plugin->device_type);
    free(device_type);
    bp_trace_records_free(records, count);
  } else {
    sources[session->source_count++] =
        (bp_trace_source_t){device_type, records, count};
  }
  layer->session = NULL;
  leave_session(session, true);
}

void bp_trace_layer_destroy(bp_trace_layer_t *layer) {
  stop_plugin_profiler(layer);
  if (layer->session)
    leave_session(layer->session, false);
  bp_profiler_destroy(layer->buffer);
  bp_pointer_map_release(&layer->flows);
  bp_pointer_map_release(&layer->streams);
  bp_trace_comm_seqs_release(&layer->comm_seqs);
  pthread_mutex_destroy(&layer->lock);
  free(layer->memory);
  free(layer);
}
