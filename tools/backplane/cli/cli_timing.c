/* Monotonic clock, sleeping and medians. */
#include "cli_timing.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

uint64_t cli_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

void cli_sleep_us(unsigned microseconds) {
  struct timespec left = {.tv_sec = microseconds / 1000000u,
                          .tv_nsec = (long)(microseconds % 1000000u) * 1000};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

void cli_warm_up_cpu(unsigned milliseconds) {
  uint64_t end = cli_now_ns() + (uint64_t)milliseconds * 1000000u;
  volatile uint64_t spins = 0;
  while (cli_now_ns() < end)
    spins++;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double cli_median(double *values, size_t count) {
  qsort(values, count, sizeof(*values), compare_doubles);
  if (count % 2)
    return values[count / 2];
  return (values[count / 2 - 1] + values[count / 2]) / 2;
}
