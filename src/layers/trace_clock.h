/* The trace layer's clock (internal). */
#ifndef BACKPLANE_LAYERS_TRACE_CLOCK_H_
#define BACKPLANE_LAYERS_TRACE_CLOCK_H_

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds, as BP_TraceEvent wants it; never 0. */
uint64_t bp_trace_now_ns(void);

#endif /* BACKPLANE_LAYERS_TRACE_CLOCK_H_ */
