/* The profiler buffer and the two functions the host exports to plugins. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "profiler/trace_buffer.h"

#include "core/callback_label.h"

struct C_Profiler_st {
  pthread_mutex_t lock;
  bp_trace_record_t *records;
  size_t count;
  size_t capacity;
  uint64_t dropped;
  bp_profiler_stream_filter_fn keep; /* set before use: read without lock */
  void *keep_context;
};

bp_status_t bp_profiler_create(C_Profiler *out_profiler) {
  if (!out_profiler)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_profiler_create: out_profiler is NULL");
  C_Profiler profiler = calloc(1, sizeof *profiler);
  if (!profiler)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_profiler_create: out of memory");
  pthread_mutex_init(&profiler->lock, NULL);
  *out_profiler = profiler;
  return BP_OK;
}

static void free_record_strings(bp_trace_record_t *record) {
  free(record->name);
  free(record->category);
  free(record->args_json);
}

void bp_trace_records_free(bp_trace_record_t *records, size_t count) {
  for (size_t i = 0; i < count; ++i)
    free_record_strings(&records[i]);
  free(records);
}

void bp_profiler_destroy(C_Profiler profiler) {
  if (!profiler)
    return;
  bp_trace_records_free(profiler->records, profiler->count);
  pthread_mutex_destroy(&profiler->lock);
  free(profiler);
}

void bp_profiler_take(C_Profiler profiler, bp_trace_record_t **out_records,
                      size_t *out_count) {
  pthread_mutex_lock(&profiler->lock);
  *out_records = profiler->records;
  *out_count = profiler->count;
  profiler->records = NULL;
  profiler->count = profiler->capacity = 0;
  pthread_mutex_unlock(&profiler->lock);
}

uint64_t bp_profiler_dropped(C_Profiler profiler) {
  pthread_mutex_lock(&profiler->lock);
  uint64_t dropped = profiler->dropped;
  pthread_mutex_unlock(&profiler->lock);
  return dropped;
}

void bp_profiler_set_stream_filter(C_Profiler profiler,
                                   bp_profiler_stream_filter_fn keep,
                                   void *context) {
  profiler->keep = keep;
  profiler->keep_context = context;
}

/* Whether the event as built covers `field` (offset + size). */
#define COVERS(event, field)                                                   \
  ((event)->struct_size >=                                                     \
   offsetof(BP_TraceEvent, field) + sizeof((event)->field))

static char *copy_string(const char *s, bool *failed) {
  if (!s)
    return NULL;
  char *copy = strdup(s);
  if (!copy)
    *failed = true;
  return copy;
}

/* Builds the record outside the lock; false if the event must be dropped. */
static bool copy_event(const BP_TraceEvent *event, bp_trace_kind_t kind,
                       bp_trace_record_t *record) {
  if (!event || event->struct_size < sizeof event->struct_size ||
      !COVERS(event, name) || !event->name)
    return false;
  bool failed = false;
  *record = (bp_trace_record_t){.kind = kind, .device_id = -1};
  record->name = copy_string(event->name, &failed);
  if (COVERS(event, category))
    record->category = copy_string(event->category, &failed);
  if (COVERS(event, start_ns))
    record->start_ns = event->start_ns;
  if (COVERS(event, end_ns))
    record->end_ns = event->end_ns;
  if (COVERS(event, device_id))
    record->device_id = event->device_id;
  if (COVERS(event, stream_id))
    record->stream_id = event->stream_id;
  if (COVERS(event, correlation_id))
    record->correlation_id = event->correlation_id;
  if (COVERS(event, thread_id))
    record->thread_id = event->thread_id;
  if (COVERS(event, args_json))
    record->args_json = copy_string(event->args_json, &failed);
  if (failed) {
    free_record_strings(record);
    return false;
  }
  return true;
}

/* Whether the buffer's stream filter refuses a device event. */
static bool filtered_out(C_Profiler profiler, const BP_TraceEvent *event,
                         bp_trace_kind_t kind) {
  return kind == BP_TRACE_DEVICE && profiler->keep && event &&
         event->struct_size >= sizeof event->struct_size &&
         COVERS(event, stream_id) && event->stream_id != 0 &&
         !profiler->keep(profiler->keep_context, event->stream_id);
}

/* A plugin's event for a host callback that ran on this thread carries the
 * label it was enqueued with (core/callback_label.h) as its name. */
static void name_callback(bp_trace_record_t *record) {
  const char *label = bp_callback_last_label();
  if (!label || !record->category || strcmp(record->category, "callback"))
    return;
  char *name = strdup(label);
  if (name) {
    free(record->name);
    record->name = name;
  }
}

static void add_event(C_Profiler profiler, const void *event,
                      bp_trace_kind_t kind) {
  if (!profiler || filtered_out(profiler, event, kind))
    return;
  bp_trace_record_t record;
  bool ok = copy_event(event, kind, &record);
  if (ok && kind == BP_TRACE_DEVICE)
    name_callback(&record);
  pthread_mutex_lock(&profiler->lock);
  if (ok && profiler->count == profiler->capacity) {
    size_t capacity = profiler->capacity ? profiler->capacity * 2 : 256;
    bp_trace_record_t *grown =
        realloc(profiler->records, capacity * sizeof *grown);
    if (grown) {
      profiler->records = grown;
      profiler->capacity = capacity;
    } else {
      ok = false;
      free_record_strings(&record);
    }
  }
  if (ok)
    profiler->records[profiler->count++] = record;
  else
    profiler->dropped++;
  pthread_mutex_unlock(&profiler->lock);
}

__attribute__((visibility("default"))) void
profiler_add_runtime_trace_event(C_Profiler prof, void *event) {
  add_event(prof, event, BP_TRACE_RUNTIME);
}

__attribute__((visibility("default"))) void
profiler_add_device_trace_event(C_Profiler prof, void *event) {
  add_event(prof, event, BP_TRACE_DEVICE);
}
