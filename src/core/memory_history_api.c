/* The allocator history's framework face (backplane/memory_history.h) and
 * the notes the device-memory entry points take (memory_history_note.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "alloc/history_ring.h"
#include "backplane/memory_history.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "core/memory_history_note.h"
#include "core/runtime_internal.h"

enum {
  DEFAULT_EVENTS = 65536,
  MAX_EVENTS = 1 << 24, /* of the environment variable: about 2 GiB */
};

static _Thread_local char thread_label[BP_HISTORY_LABEL_BYTES];
static _Thread_local uint64_t thread_id;

BP_API void bp_memory_history_set_label(const char *label) {
  snprintf(thread_label, sizeof thread_label, "%s", label ? label : "");
}

static void note(bp_device_t *device, bp_history_action_t action,
                 const void *ptr, size_t size, const void *stream,
                 const void *caller) {
  bp_history_ring_t *history =
      atomic_load_explicit(&device->memory_history, memory_order_acquire);
  if (!history)
    return;
  if (!thread_id)
    thread_id = (uint64_t)syscall(SYS_gettid);
  bp_history_event_t event = {.action = action,
                              .device = device->name,
                              .address = (uintptr_t)ptr,
                              .size = size,
                              .stream = stream,
                              .time_ns = bp_clock_now_ns(),
                              .thread = thread_id,
                              .caller = caller};
  memcpy(event.label, thread_label, sizeof event.label);
  bp_history_ring_record(history, &event);
}

void bp_memory_history_note_malloc(bp_device_t *device, bp_status_t status,
                                   size_t size, const void *ptr,
                                   const void *stream, const void *caller) {
  if (status == BP_OK)
    note(device, BP_HISTORY_ALLOC, ptr, size, stream, caller);
  else if (status == BP_ERR_OUT_OF_MEMORY)
    note(device, BP_HISTORY_OOM, NULL, size, stream, caller);
}

size_t bp_memory_history_size_of(bp_device_t *device, const void *ptr) {
  bp_caching_allocator_t *allocator = bp_device_allocator_if_created(device);
  if (!ptr || !allocator ||
      !atomic_load_explicit(&device->memory_history, memory_order_relaxed))
    return 0;
  char kept[1024];
  snprintf(kept, sizeof kept, "%s", bp_last_error());
  size_t size = 0;
  if (bp_caching_allocator_block_size(allocator, ptr, &size) != BP_OK) {
    size = 0;
    bp_error(BP_OK, "%s", kept);
  }
  return size;
}

void bp_memory_history_note_free(bp_device_t *device, bp_status_t status,
                                 const void *ptr, size_t size,
                                 const void *stream, const void *caller) {
  if (status == BP_OK && ptr)
    note(device, BP_HISTORY_FREE, ptr, size, stream, caller);
}

void bp_memory_history_note_segment(bp_device_t *device, bool taken,
                                    const void *ptr, size_t size) {
  note(device, taken ? BP_HISTORY_SEGMENT_ALLOC : BP_HISTORY_SEGMENT_FREE, ptr,
       size, NULL, NULL);
}

/* Points every device of `runtime` at its ring (`on`) or at none. */
static void watch_devices(bp_runtime_t *runtime, bool on) {
  for (size_t i = 0; i < runtime->plugin_count; ++i) {
    bp_plugin_t *plugin = runtime->plugins[i];
    for (size_t d = 0; d < plugin->device_count; ++d)
      atomic_store_explicit(&plugin->devices[d].memory_history,
                            on ? runtime->history : NULL, memory_order_release);
  }
  atomic_store(&runtime->history_recording, on);
}

BP_API bp_status_t bp_memory_history_record(bp_runtime_t *runtime,
                                            size_t max_events) {
  if (!runtime)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_memory_history_record: runtime is NULL");
  /* Off first, so that no device records while the ring changes; a note
   * already past the check lands in the new ring, which is harmless. */
  watch_devices(runtime, false);
  bp_status_t status = bp_history_ring_reset(runtime->history, max_events);
  if (status == BP_OK && max_events)
    watch_devices(runtime, true);
  return status;
}

BP_API bool bp_memory_history_recording(const bp_runtime_t *runtime) {
  return runtime && atomic_load(&runtime->history_recording);
}

BP_API bp_status_t bp_memory_history_snapshot(bp_runtime_t *runtime,
                                              char **out_json) {
  if (!runtime || !out_json)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_memory_history_snapshot: runtime or out_json is NULL");
  return bp_history_ring_to_json(runtime->history, out_json);
}

BP_API bp_status_t bp_memory_history_dump(bp_runtime_t *runtime,
                                          const char *path) {
  if (!path)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_memory_history_dump: path is NULL");
  char *json = NULL;
  bp_status_t status = bp_memory_history_snapshot(runtime, &json);
  if (status != BP_OK)
    return status;
  FILE *file = fopen(path, "w");
  int error = file ? 0 : errno;
  if (file && (fputs(json, file) < 0 || fputc('\n', file) == EOF))
    error = errno ? errno : EIO;
  if (file && fclose(file) != 0 && !error)
    error = errno;
  free(json);
  if (error)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_memory_history_dump: cannot write '%s': %s", path,
                    strerror(error));
  return BP_OK;
}

/* BACKPLANE_MEMORY_HISTORY_EVENTS, else the default. */
static bp_status_t events_from_environment(size_t *out) {
  const char *text = getenv("BACKPLANE_MEMORY_HISTORY_EVENTS");
  if (!text || !*text) {
    *out = DEFAULT_EVENTS;
    return BP_OK;
  }
  char *end;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno || *end || value < 1 || value > MAX_EVENTS || text[0] == '-')
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_runtime_create: BACKPLANE_MEMORY_HISTORY_EVENTS: "
                    "expected a count of events from 1 to %d, got '%s'",
                    MAX_EVENTS, text);
  *out = (size_t)value;
  return BP_OK;
}

bp_status_t bp_memory_history_open(bp_runtime_t *runtime,
                                   bool read_environment) {
  bp_status_t status = bp_history_ring_create(&runtime->history);
  const char *path =
      read_environment ? getenv("BACKPLANE_MEMORY_HISTORY") : NULL;
  if (status != BP_OK || !path || !*path)
    return status;
  size_t events = DEFAULT_EVENTS;
  if ((status = events_from_environment(&events)) != BP_OK)
    return status;
  if (!(runtime->history_path = strdup(path)))
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_runtime_create: out of memory");
  return bp_memory_history_record(runtime, events);
}

void bp_memory_history_close(bp_runtime_t *runtime) {
  if (runtime->history_path &&
      bp_memory_history_dump(runtime, runtime->history_path) != BP_OK)
    bp_log(BP_LOG_ERROR, "memory", "BACKPLANE_MEMORY_HISTORY: %s",
           bp_last_error());
  watch_devices(runtime, false);
  bp_history_ring_destroy(runtime->history);
  runtime->history = NULL;
  free(runtime->history_path);
  runtime->history_path = NULL;
}
