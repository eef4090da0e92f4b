/* Time measurement for benches and checks: CLOCK_MONOTONIC only. */
#ifndef BACKPLANE_CLI_TIMING_H_
#define BACKPLANE_CLI_TIMING_H_

#include <stddef.h>
#include <stdint.h>

/* Nanoseconds on CLOCK_MONOTONIC. */
uint64_t cli_now_ns(void);

/* Sleeps for `microseconds` (restarting after signals). */
void cli_sleep_us(unsigned microseconds);

/* Keeps the calling thread's CPU busy for `milliseconds`, so that a timed
 * run that follows does not start on a core still clocking up from idle. */
void cli_warm_up_cpu(unsigned milliseconds);

/* The median of `count` (> 0) values; sorts `values` in place. */
double cli_median(double *values, size_t count);

#endif /* BACKPLANE_CLI_TIMING_H_ */
