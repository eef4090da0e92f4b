/* Copies run on the caller, reported to the profiles (core/copy_profiling.h).
 */
#include "core/copy_profiling.h"

#include <sched.h>
#include <stdio.h>

#include "base/clock.h"
#include "base/status.h"
#include "core/stream_internal.h"

bp_status_t bp_copy_profiles_attach(bp_plugin_t *plugin, C_Profiler buffer,
                                    bp_trace_add_fn add) {
  bp_copy_profiles_t *profiles = &plugin->copy_profiles;
  atomic_store(&profiles->add, add);
  for (size_t i = 0; i < BP_COPY_PROFILES_MAX; ++i) {
    C_Profiler empty = NULL;
    if (atomic_compare_exchange_strong(&profiles->buffers[i], &empty, buffer)) {
      atomic_fetch_add(&profiles->count, 1);
      return BP_OK;
    }
  }
  return bp_error(BP_ERR_UNSUPPORTED,
                  "bp_profile_start: %s: %d profiles are collecting already",
                  plugin->device_type, BP_COPY_PROFILES_MAX);
}

void bp_copy_profiles_detach(bp_plugin_t *plugin, C_Profiler buffer) {
  bp_copy_profiles_t *profiles = &plugin->copy_profiles;
  for (size_t i = 0; i < BP_COPY_PROFILES_MAX; ++i) {
    C_Profiler attached = buffer;
    if (atomic_compare_exchange_strong(&profiles->buffers[i], &attached,
                                       NULL)) {
      atomic_fetch_sub(&profiles->count, 1);
      break;
    }
  }
  /* A report that read `buffer` before it left counts itself first. */
  while (atomic_load(&profiles->reporting))
    sched_yield();
}

uint64_t bp_copy_profile_begin(const bp_device_t *device) {
  if (__builtin_expect(
          !atomic_load_explicit(&device->plugin->copy_profiles.count,
                                memory_order_relaxed),
          1))
    return 0;
  return bp_clock_monotonic_ns();
}

void bp_copy_profile_end(const bp_device_t *device, const bp_stream_t *stream,
                         const char *direction, size_t bytes,
                         uint64_t start_ns) {
  if (__builtin_expect(!start_ns, 1))
    return;
  bp_copy_profiles_t *profiles = &device->plugin->copy_profiles;
  char args[128];
  snprintf(args, sizeof args,
           "{\"bytes\":%zu,\"direction\":\"%s\",\"synchronous\":true}", bytes,
           direction);
  BP_TraceEvent event = {.struct_size = sizeof event,
                         .name = direction,
                         .category = "copy",
                         .start_ns = start_ns,
                         .end_ns = bp_clock_monotonic_ns(),
                         .device_id = device->c_device.id,
                         .stream_id =
                             stream ? (uint64_t)(uintptr_t)stream->native : 0,
                         .args_json = args};
  atomic_fetch_add(&profiles->reporting, 1);
  bp_trace_add_fn add = atomic_load(&profiles->add);
  for (size_t i = 0; i < BP_COPY_PROFILES_MAX; ++i) {
    C_Profiler buffer = atomic_load(&profiles->buffers[i]);
    if (buffer && add)
      add(buffer, &event);
  }
  atomic_fetch_sub(&profiles->reporting, 1);
}
