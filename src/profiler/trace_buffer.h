/* The host side of the plugin profiler hooks (internal).
 *
 * A C_Profiler is a buffer of trace records that plugins fill through the
 * exported profiler_add_runtime_trace_event / profiler_add_device_trace_event
 * (device_ext.h). Each event is a BP_TraceEvent, deep-copied (strings too)
 * before the call returns; fields are read only if its struct_size covers
 * them. A NULL profiler or event, a struct_size not covering `name`, a NULL
 * name, or running out of memory drops the event and counts it (a NULL
 * profiler cannot count). All functions are thread-safe except destroy. */
#ifndef BACKPLANE_PROFILER_TRACE_BUFFER_H_
#define BACKPLANE_PROFILER_TRACE_BUFFER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "backplane/status.h"

typedef enum bp_trace_kind {
  BP_TRACE_RUNTIME = 0, /* profiler_add_runtime_trace_event */
  BP_TRACE_DEVICE = 1,  /* profiler_add_device_trace_event */
} bp_trace_kind_t;

/* One copied event. Strings are owned; category and args_json may be NULL. */
typedef struct bp_trace_record {
  bp_trace_kind_t kind;
  char *name;
  char *category;
  char *args_json;
  uint64_t start_ns;
  uint64_t end_ns;
  int32_t device_id;
  uint64_t stream_id;
  uint64_t correlation_id;
  uint64_t thread_id;
} bp_trace_record_t;

/* An empty profiler buffer. Writes *out_profiler only on success. */
bp_status_t bp_profiler_create(C_Profiler *out_profiler);
/* Frees the buffer and the records still in it. NULL is a no-op. */
void bp_profiler_destroy(C_Profiler profiler);
/* Moves every buffered record out, oldest first; the caller frees them with
 * bp_trace_records_free. An empty buffer gives NULL and 0. */
void bp_profiler_take(C_Profiler profiler, bp_trace_record_t **out_records,
                      size_t *out_count);
void bp_trace_records_free(bp_trace_record_t *records, size_t count);
/* Events dropped so far (see above). */
uint64_t bp_profiler_dropped(C_Profiler profiler);

/* Which streams' device events a buffer keeps. A plugin shared by several
 * runtimes of the process reports every stream's commands to every active
 * profiler; `keep` answers whether `stream_id` (a C_Stream, never 0) is one
 * of the buffer owner's. It is called on the reporting thread, outside the
 * buffer's lock, for each device event naming a stream; an event it refuses
 * is ignored (not counted as dropped). Events without a stream and runtime
 * events are always kept. NULL `keep` (the default) keeps everything. Set it
 * before handing the buffer to a plugin. */
typedef bool (*bp_profiler_stream_filter_fn)(void *context, uint64_t stream_id);
void bp_profiler_set_stream_filter(C_Profiler profiler,
                                   bp_profiler_stream_filter_fn keep,
                                   void *context);

#endif /* BACKPLANE_PROFILER_TRACE_BUFFER_H_ */
