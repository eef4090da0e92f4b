/* The framework-face profiler (profiler.h): drives each plugin's profiler_*
 * functions in Paddle's order and keeps what they reported. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backplane/profiler.h"
#include "base/clock.h"
#include "base/status.h"
#include "core/copy_profiling.h"
#include "core/runtime_internal.h"
#include "core/stream_internal.h"
#include "profiler/chrome_trace.h"
#include "profiler/plugin_profiler.h"
#include "profiler/ranges.h"
#include "profiler/trace_buffer.h"

typedef struct profile_plugin {
  bp_plugin_t *plugin;
  C_Profiler buffer; /* NULL when skipped */
  void *user_data;
  char note[192];
  bool copies_attached; /* to the plugin's copy profiles while started */
  bp_trace_record_t *records;
  size_t count;
} profile_plugin_t;

struct bp_profile {
  bp_runtime_t *runtime;
  profile_plugin_t *plugins;
  size_t plugin_count;
  bool started;
  uint64_t start_ns;
  bp_trace_record_t *ranges; /* user ranges closed while started */
  size_t range_count;
};

/* The six profiler_* slots are contiguous in the interface: take their names
 * from the core's table of every slot. */
const char *bp_plugin_profiler_missing(const C_DeviceInterface *table) {
  const size_t first = offsetof(C_DeviceInterface, profiler_initialize);
  const size_t last = offsetof(C_DeviceInterface, profiler_collect_trace_data);
  for (size_t f = 0; f < bp_interface_function_count; ++f) {
    const bp_interface_function_t *fn = &bp_interface_functions[f];
    if (fn->offset >= first && fn->offset <= last &&
        !bp_interface_has(table, fn->offset))
      return fn->name;
  }
  return NULL;
}

static void skip(profile_plugin_t *p, const char *why) {
  snprintf(p->note, sizeof p->note, "skipped: %s", why);
  bp_profiler_destroy(p->buffer);
  p->buffer = NULL;
}

/* The buffer's stream filter: of the device records a plugin shared with
 * other runtimes of the process reports, keep those of this runtime. */
static bool keeps_stream(void *context, uint64_t stream_id) {
  profile_plugin_t *p = context;
  return bp_plugin_owns_stream(p->plugin, (const void *)(uintptr_t)stream_id);
}

static void open_plugin(profile_plugin_t *p) {
  const C_DeviceInterface *d = &p->plugin->dispatch;
  const char *missing = bp_plugin_profiler_missing(d);
  if (missing) {
    char why[128];
    snprintf(why, sizeof why, "the plugin has no %s", missing);
    skip(p, why);
    return;
  }
  if (bp_profiler_create(&p->buffer) != BP_OK) {
    skip(p, "out of memory");
    return;
  }
  bp_profiler_set_stream_filter(p->buffer, keeps_stream, p);
  C_Status result = d->profiler_initialize(p->buffer, &p->user_data);
  if (result != C_SUCCESS) {
    char why[128];
    snprintf(why, sizeof why, "profiler_initialize returned %s",
             bp_c_status_name(result));
    skip(p, why);
    return;
  }
  snprintf(p->note, sizeof p->note, "traced");
}

BP_API bp_status_t bp_profile_create(bp_runtime_t *runtime,
                                     bp_profile_t **out_profile) {
  if (!runtime || !out_profile)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_profile_create: runtime or out_profile is NULL");
  bp_profile_t *profile = calloc(1, sizeof *profile);
  profile_plugin_t *plugins = calloc(
      runtime->plugin_count ? runtime->plugin_count : 1, sizeof *plugins);
  if (!profile || !plugins) {
    free(profile);
    free(plugins);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_profile_create: out of memory");
  }
  profile->runtime = runtime;
  profile->plugins = plugins;
  profile->plugin_count = runtime->plugin_count;
  for (size_t i = 0; i < profile->plugin_count; ++i) {
    plugins[i].plugin = runtime->plugins[i];
    open_plugin(&plugins[i]);
  }
  *out_profile = profile;
  return BP_OK;
}

BP_API bp_status_t bp_profile_start(bp_profile_t *profile) {
  if (!profile)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_profile_start: NULL profile");
  if (profile->started)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_profile_start: already started");
  profile->start_ns = bp_clock_monotonic_ns();
  bp_profiler_ranges_listen();
  for (size_t i = 0; i < profile->plugin_count; ++i) {
    profile_plugin_t *p = &profile->plugins[i];
    if (!p->buffer)
      continue;
    const C_DeviceInterface *d = &p->plugin->dispatch;
    C_Status result = d->profiler_prepare_tracing(p->buffer, p->user_data);
    if (result == C_SUCCESS)
      result = d->profiler_start_tracing(p->buffer, p->user_data);
    if (result != C_SUCCESS) {
      snprintf(p->note, sizeof p->note,
               "not traced: prepare/start_tracing returned %s",
               bp_c_status_name(result));
      continue;
    }
    /* The copies the core runs on the caller (core/copy_profiling.h). */
    p->copies_attached =
        bp_copy_profiles_attach(p->plugin, p->buffer,
                                profiler_add_device_trace_event) == BP_OK;
  }
  profile->started = true;
  return BP_OK;
}

/* Appends the buffer's records to the plugin's collected ones. */
static void take_records(profile_plugin_t *p) {
  bp_trace_record_t *records = NULL;
  size_t count = 0;
  bp_profiler_take(p->buffer, &records, &count);
  if (count == 0)
    return;
  bp_trace_record_t *all =
      realloc(p->records, (p->count + count) * sizeof *all);
  if (!all) {
    bp_trace_records_free(records, count);
    snprintf(p->note, sizeof p->note, "out of memory: records dropped");
    return;
  }
  memcpy(all + p->count, records, count * sizeof *records);
  free(records); /* the strings moved into `all` */
  p->records = all;
  p->count += count;
}

/* Appends the user ranges closed so far to the profile's. */
static void take_ranges(bp_profile_t *profile) {
  bp_trace_record_t *records;
  size_t count;
  bp_profiler_ranges_take(&records, &count);
  if (!count)
    return;
  bp_trace_record_t *all =
      realloc(profile->ranges, (profile->range_count + count) * sizeof *all);
  if (!all) {
    bp_trace_records_free(records, count);
    return;
  }
  memcpy(all + profile->range_count, records, count * sizeof *records);
  free(records);
  profile->ranges = all;
  profile->range_count += count;
}

BP_API bp_status_t bp_profile_stop(bp_profile_t *profile) {
  if (!profile)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_profile_stop: NULL profile");
  if (!profile->started)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_profile_stop: not started");
  bp_status_t status = BP_OK;
  for (size_t i = 0; i < profile->plugin_count; ++i) {
    profile_plugin_t *p = &profile->plugins[i];
    if (!p->buffer)
      continue;
    if (p->copies_attached)
      bp_copy_profiles_detach(p->plugin, p->buffer);
    p->copies_attached = false;
    const C_DeviceInterface *d = &p->plugin->dispatch;
    C_Status result = d->profiler_stop_tracing(p->buffer, p->user_data);
    if (result == C_SUCCESS)
      result = d->profiler_collect_trace_data(p->buffer, profile->start_ns,
                                              p->user_data);
    take_records(p);
    if (result != C_SUCCESS && status == BP_OK)
      status = bp_error(BP_ERR_PLUGIN,
                        "bp_profile_stop: %s: stop/collect returned %s",
                        p->plugin->device_type, bp_c_status_name(result));
  }
  take_ranges(profile);
  bp_profiler_ranges_unlisten();
  profile->started = false;
  return status;
}

BP_API size_t bp_profile_event_count(const bp_profile_t *profile) {
  size_t n = profile ? profile->range_count : 0;
  for (size_t i = 0; profile && i < profile->plugin_count; ++i)
    n += profile->plugins[i].count;
  return n;
}

BP_API bp_status_t bp_profile_export_chrome(const bp_profile_t *profile,
                                            const char *path) {
  if (!profile || !path)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_profile_export_chrome: profile or path is NULL");
  bp_trace_source_t *sources =
      calloc(profile->plugin_count + 1, sizeof *sources);
  if (!sources)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_profile_export_chrome: out of memory");
  for (size_t i = 0; i < profile->plugin_count; ++i)
    sources[i] = (bp_trace_source_t){profile->plugins[i].plugin->device_type,
                                     profile->plugins[i].records,
                                     profile->plugins[i].count};
  sources[profile->plugin_count] =
      (bp_trace_source_t){"host", profile->ranges, profile->range_count};
  bp_status_t status =
      bp_chrome_trace_write(path, sources, profile->plugin_count + 1);
  free(sources);
  return status;
}

BP_API const char *bp_profile_plugin_note(const bp_profile_t *profile,
                                          size_t index) {
  return profile && index < profile->plugin_count ? profile->plugins[index].note
                                                  : NULL;
}

BP_API void bp_profile_destroy(bp_profile_t *profile) {
  if (!profile)
    return;
  if (profile->started)
    bp_profile_stop(profile);
  for (size_t i = 0; i < profile->plugin_count; ++i) {
    profile_plugin_t *p = &profile->plugins[i];
    if (p->buffer) {
      p->plugin->dispatch.profiler_finalize(p->buffer, p->user_data);
      bp_profiler_destroy(p->buffer);
    }
    bp_trace_records_free(p->records, p->count);
  }
  bp_trace_records_free(profile->ranges, profile->range_count);
  free(profile->plugins);
  free(profile);
}
