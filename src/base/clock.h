/* The library's clock (internal). */
#ifndef BACKPLANE_BASE_CLOCK_H_
#define BACKPLANE_BASE_CLOCK_H_

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds, as BP_TraceEvent wants it; never 0.
 * Thread-safe. */
uint64_t bp_clock_now_ns(void);

#endif /* BACKPLANE_BASE_CLOCK_H_ */
