/* The trace layer's per-thread event buffers (internal).
 *
 * Each thread that records into a trace layer gets a buffer of its own,
 * created on its first event and registered with the layer; from then on
 * recording takes no lock and allocates nothing but a fresh chunk when one
 * fills (256 events, then 2 MiB at a time). An event holds raw values:
 * the name is a string that outlives the layer (a literal), the detail is
 * a printf format (a literal) and its raw arguments, formatted only when
 * the layer exports the trace. The buffers belong to the layer, not the
 * thread, so a thread that exits before the export keeps its events.
 * A chunk that cannot be allocated drops the event and counts it. */
#ifndef BACKPLANE_LAYERS_TRACE_TRACE_THREAD_BUFFER_H_
#define BACKPLANE_LAYERS_TRACE_TRACE_THREAD_BUFFER_H_

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/device_table.h"
#include "layers/trace/trace_format.h"
#include "profiler/trace_buffer.h"

typedef enum bp_trace_category {
  BP_TRACE_CATEGORY_API,        /* a framework-face call: bp_status_t */
  BP_TRACE_CATEGORY_PLUGIN,     /* a plugin call: C_Status */
  BP_TRACE_CATEGORY_COLLECTIVE, /* a communicator call: C_Status */
  BP_TRACE_CATEGORY_COUNTER,    /* the device's memory counters */
} bp_trace_category_t;

/* One recorded event, as raw values. */
typedef struct bp_trace_event {
  uint64_t start_ns, end_ns; /* bp_clock_now_ns */
  const char *name;          /* outlives the layer */
  /* JSON members of the args ("" or NULL: none), with these raw arguments;
   * a %s argument points into the buffer's own copy of the string. */
  const char *detail_format;
  uint64_t detail_args[BP_TRACE_DETAIL_ARGS];
  const bp_device_t *device;
  int32_t result; /* bp_status_t or C_Status, as the category says */
  uint8_t category;
} bp_trace_event_t;

typedef struct bp_trace_chunk bp_trace_chunk_t;
typedef struct bp_trace_text bp_trace_text_t;

typedef struct bp_trace_thread_buffer {
  struct bp_trace_thread_buffer *next; /* in the layer's list */
  uint64_t thread_id;                  /* the owner's OS thread id */
  bp_trace_chunk_t *_Atomic first;
  bp_trace_chunk_t *current; /* owner only */
  bp_trace_text_t *text;     /* copies of %s arguments; owner only */
} bp_trace_thread_buffer_t;

/* Every buffer of one trace layer: a list that only grows (a buffer is
 * pushed with one compare-and-swap), read without a lock. */
typedef struct bp_trace_thread_buffers {
  uint64_t serial; /* unique in the process: keys the threads' caches */
  bp_trace_thread_buffer_t *_Atomic list;
  atomic_uint_fast64_t dropped; /* events lost for want of memory */
} bp_trace_thread_buffers_t;

void bp_trace_thread_buffers_init(bp_trace_thread_buffers_t *buffers);
/* Frees every buffer and event. No thread may record any more. */
void bp_trace_thread_buffers_release(bp_trace_thread_buffers_t *buffers);

/* Appends one event to the calling thread's buffer; `detail_args` are the
 * arguments `event->detail_format` names (%p, %s, %d, %u, %zu, %lu, %llu
 * with their own C types); any other format is formatted now and kept as
 * text. Lock-free once the thread has a buffer. */
void bp_trace_thread_record(bp_trace_thread_buffers_t *buffers,
                            bp_trace_event_t *event, va_list detail_args);

/* Events recorded and dropped so far, across threads. Thread-safe. */
void bp_trace_thread_counts(bp_trace_thread_buffers_t *buffers,
                            uint64_t *out_recorded, uint64_t *out_dropped);

/* Calls `visit` on every event of every buffer, a buffer at a time, oldest
 * first within one; for the export, once no thread records any more. */
typedef void (*bp_trace_event_visit_fn)(void *context, uint64_t thread_id,
                                        const bp_trace_event_t *event);
void bp_trace_thread_buffers_visit(bp_trace_thread_buffers_t *buffers,
                                   bp_trace_event_visit_fn visit,
                                   void *context);

/* Formats `event`'s detail (its JSON members) into `out`, truncated to fit
 * (always terminated). */
void bp_trace_event_detail(const bp_trace_event_t *event, char *out,
                           size_t capacity);

#endif /* BACKPLANE_LAYERS_TRACE_TRACE_THREAD_BUFFER_H_ */
