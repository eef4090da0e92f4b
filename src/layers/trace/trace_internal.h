/* The trace layer (internal): records every intercepted plugin call on the
 * host (name, device, duration, result; copies with bytes and direction;
 * event records and the waits on them as flow arrows; the device's
 * allocated and reserved bytes as counters), kernel launches and notifies
 * of the kernels extension (trace_kernels.c), every framework-face call and
 * collective the core reports to its observer (core/observer.h), and
 * drives the plugin's own profiler_* functions so its device-side timeline
 * (one track per stream) lands in the same trace, keeping only this
 * runtime's streams when the plugin is shared with other traced runtimes.
 *
 * Host events go to the recording thread's own buffer
 * (trace_thread_buffer.h) as raw values, with no lock and no formatting;
 * the plugin's device events go to a C_Profiler buffer. At detach both are
 * turned into trace records (host times mapped onto CLOCK_MONOTONIC, the
 * device timeline's clock) and handed to the runtime's trace session,
 * which the runtime owns (opened in bp_runtime_create, closed in
 * bp_runtime_destroy after every plugin is unloaded); closing writes one
 * Chrome trace-event JSON file (profiler/chrome_trace.h). Thread-safe:
 * the flow/counter state has its own lock.
 *
 * This header: state shared by the layer's life cycle (trace_layer.c), its
 * intercepts (trace_intercepts.c) and its observer (trace_api.c,
 * trace_collectives.c). */
#ifndef BACKPLANE_LAYERS_TRACE_TRACE_INTERNAL_H_
#define BACKPLANE_LAYERS_TRACE_TRACE_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "base/clock.h"
#include "base/pointer_map.h"
#include "layers/layers.h"
#include "layers/trace/trace_comm_seq.h"
#include "layers/trace/trace_thread_buffer.h"

typedef struct bp_trace_session bp_trace_session_t;
typedef struct bp_trace_layer bp_trace_layer_t;
typedef struct bp_trace_kernel_name bp_trace_kernel_name_t;

/* The last allocator counters written for one device. */
typedef struct bp_trace_memory_sample {
  uint64_t allocated;
  uint64_t reserved;
  bool written;
} bp_trace_memory_sample_t;

struct bp_trace_layer {
  C_DeviceInterface next;
  BP_KernelExtension next_kernels; /* when the plugin has the extension */
  const bp_plugin_t *plugin;
  bp_trace_session_t *session;
  bp_trace_thread_buffers_t threads; /* host events */
  C_Profiler buffer;                 /* the plugin's device events */
  void *profiler_user_data;          /* from the plugin's profiler_initialize */
  bool plugin_profiler;              /* profiler_initialize succeeded */
  bp_clock_anchor_t start;           /* at attach */
  atomic_uint_fast64_t record_serial; /* event records so far */
  pthread_mutex_t lock;               /* guards the fields below */
  bp_pointer_map_t flows;   /* event or notify -> serial of its latest record */
  bp_pointer_map_t streams; /* this runtime's live C_Streams -> 1 */
  bp_trace_comm_seqs_t comm_seqs;   /* communicator -> calls so far */
  bp_trace_memory_sample_t *memory; /* one per device of the plugin */
  /* BP_KernelFunction -> its "kernel <name>" (trace_kernels.c), and every
   * such name kept so far. */
  bp_pointer_map_t kernel_functions;
  bp_trace_kernel_name_t *kernel_names;
};

/* Saves *table as the layer's next table and writes the intercepts. */
void bp_trace_layer_install(bp_trace_layer_t *layer, C_DeviceInterface *table);

/* Wraps the kernels extension (trace_kernels.c); frees its names. */
void bp_trace_attach_kernels(void *context, BP_KernelExtension *kernels);
void bp_trace_kernel_names_free(bp_trace_layer_t *t);

/* The observer's functions (core/observer.h); `context` is the layer. */
void bp_trace_observe_api_call(void *context, bp_device_t *device,
                               const char *name, uint64_t start_ns,
                               bp_status_t status, const char *detail_format,
                               va_list detail_args);
void bp_trace_observe_collective(void *context,
                                 const bp_collective_note_t *note,
                                 C_Status result);

/* Adds the host event of one call on the calling thread's track, ending
 * now: `name` and `detail_format` are literals (or outlive the layer);
 * `result` is a bp_status_t (category API) or a C_Status; the detail is
 * extra JSON members (",\"bytes\":%zu"), NULL or "" for none, whose
 * arguments follow (see bp_trace_thread_record for the conversions). */
void bp_trace_record(bp_trace_layer_t *t, bp_trace_category_t category,
                     const char *name, C_Device device, uint64_t start_ns,
                     int32_t result, const char *detail_format, ...);
void bp_trace_record_v(bp_trace_layer_t *t, bp_trace_category_t category,
                       const char *name, C_Device device, uint64_t start_ns,
                       int32_t result, const char *detail_format,
                       va_list detail_args);

/* Appends a trace record for each host event to *records (*count of
 * them, realloc'ed), times on CLOCK_MONOTONIC. False when out of memory:
 * the records appended so far stay. No thread may record any more. */
bool bp_trace_export_host(bp_trace_layer_t *t, bp_trace_record_t **records,
                          size_t *count);

#endif /* BACKPLANE_LAYERS_TRACE_TRACE_INTERNAL_H_ */
