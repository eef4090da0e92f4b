/* State shared by the trace layer's life cycle (trace_layer.c) and its
 * intercepts (trace_intercepts.c). Internal. */
#ifndef BACKPLANE_LAYERS_TRACE_INTERNAL_H_
#define BACKPLANE_LAYERS_TRACE_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "base/pointer_map.h"
#include "base/clock.h"
#include "layers/trace_comm_seq.h"
#include "layers/trace_layer.h"

typedef struct bp_trace_session bp_trace_session_t;

/* The last allocator counters written for one device. */
typedef struct bp_trace_memory_sample {
  uint64_t allocated;
  uint64_t reserved;
  bool written;
} bp_trace_memory_sample_t;

struct bp_trace_layer {
  C_DeviceInterface next;
  const bp_plugin_t *plugin;
  bp_trace_session_t *session;
  C_Profiler buffer;        /* host records and the plugin's device records */
  void *profiler_user_data; /* from the plugin's profiler_initialize */
  bool plugin_profiler;     /* profiler_initialize succeeded */
  uint64_t start_ns;
  pthread_mutex_t lock;             /* guards the fields below */
  bp_pointer_map_t flows;           /* event -> serial of its latest record */
  bp_pointer_map_t streams;         /* this runtime's live C_Streams -> 1 */
  bp_trace_comm_seqs_t comm_seqs;   /* communicator -> calls so far */
  uint64_t record_serial;           /* event records so far */
  bp_trace_memory_sample_t *memory; /* one per device of the plugin */
  atomic_uint_fast64_t events;
};

/* Adds the host record of one call on the calling thread's track, ending
 * now; `result` names its result ("C_SUCCESS", "BP_OK"); `detail` is extra
 * JSON members (",\"bytes\":4096"), "" for none. */
void bp_trace_record_host(bp_trace_layer_t *t, const char *category,
                          const char *name, C_Device device, uint64_t start_ns,
                          const char *result, const char *detail);

#endif /* BACKPLANE_LAYERS_TRACE_INTERNAL_H_ */
