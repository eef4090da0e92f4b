/* The library's clocks (internal). */
#ifndef BACKPLANE_BASE_CLOCK_H_
#define BACKPLANE_BASE_CLOCK_H_

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds, as BP_TraceEvent wants it; never 0.
 * Thread-safe. */
uint64_t bp_clock_monotonic_ns(void);

/* The cheapest monotonic nanosecond clock, for timestamps taken on every
 * traced call: the invariant TSC mapped to nanoseconds by one linear map,
 * calibrated once per process against CLOCK_MONOTONIC (the first call
 * spins about a millisecond), so it never runs backwards and tracks
 * CLOCK_MONOTONIC to within the calibration error (parts per thousand at
 * worst: callers that mix it with CLOCK_MONOTONIC re-anchor it with
 * bp_clock_fast_to_monotonic). Where there is no invariant TSC (another
 * architecture, or the CPU does not promise one) it is
 * bp_clock_monotonic_ns. Never 0. Thread-safe. */
uint64_t bp_clock_now_ns(void);

/* A pair of readings of both clocks, taken back to back. */
typedef struct bp_clock_anchor {
  uint64_t fast_ns;      /* bp_clock_now_ns */
  uint64_t monotonic_ns; /* bp_clock_monotonic_ns */
} bp_clock_anchor_t;

bp_clock_anchor_t bp_clock_anchor_now(void);

/* Maps `fast_ns` (a bp_clock_now_ns reading) to CLOCK_MONOTONIC by the
 * line through anchors `a` and `b` (taken at least a microsecond apart;
 * otherwise only `a`'s offset is applied). Linear, so it keeps the order
 * of readings. */
uint64_t bp_clock_fast_to_monotonic(uint64_t fast_ns, bp_clock_anchor_t a,
                                    bp_clock_anchor_t b);

#endif /* BACKPLANE_BASE_CLOCK_H_ */
