/* Which record of each event the waits connect to (internal): a map from an
 * event handle to the serial number of its latest record, for the trace
 * layer's flow arrows. The layer also keeps its set of live streams in one
 * (stream handle -> 1). Not synchronized: the trace layer holds its lock. */
#ifndef BACKPLANE_LAYERS_TRACE_FLOWS_H_
#define BACKPLANE_LAYERS_TRACE_FLOWS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bp_trace_flow_slot {
  uintptr_t event; /* 0: empty */
  uint64_t serial;
} bp_trace_flow_slot_t;

typedef struct bp_trace_flows {
  bp_trace_flow_slot_t *slots;
  size_t capacity; /* a power of two, or 0 */
  size_t count;
} bp_trace_flows_t;

/* Sets the serial of `event` (non-NULL). False when out of memory: the
 * event then has no record, and waits on it get no arrow. */
bool bp_trace_flows_set(bp_trace_flows_t *flows, const void *event,
                        uint64_t serial);
/* The serial of `event`'s latest record, or 0 when it has none. */
uint64_t bp_trace_flows_get(const bp_trace_flows_t *flows, const void *event);
/* Forgets `event` (destroyed: its handle may be reused). */
void bp_trace_flows_remove(bp_trace_flows_t *flows, const void *event);
void bp_trace_flows_release(bp_trace_flows_t *flows);

#endif /* BACKPLANE_LAYERS_TRACE_FLOWS_H_ */
