/* The library's clocks (contract in clock.h). */
#include "base/clock.h"

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define BP_CLOCK_HAS_TSC 1
#endif

uint64_t bp_clock_monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifdef BP_CLOCK_HAS_TSC
/* ns = base_ns + ((tsc - base_tsc) * mult) >> 32, set once by calibrate(). */
static struct {
  bool use_tsc;
  uint64_t base_tsc;
  uint64_t base_ns;
  uint64_t mult;
} fast_clock;
static pthread_once_t fast_clock_once = PTHREAD_ONCE_INIT;

/* CPUID 0x80000007, EDX bit 8: the TSC ticks at a constant rate in every
 * power state. */
static bool tsc_is_invariant(void) {
  unsigned eax, ebx, ecx, edx;
  /* gcc declares the result unsigned, clang int. */
  if ((unsigned)__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
    return false;
  __cpuid(0x80000007u, eax, ebx, ecx, edx);
  return (edx & (1u << 8)) != 0;
}

/* One (tsc, CLOCK_MONOTONIC) pair: the TSC read halfway through the
 * clock_gettime call that ran fastest of a few. */
static void read_pair(uint64_t *tsc, uint64_t *ns) {
  uint64_t best = UINT64_MAX;
  *tsc = *ns = 0;
  for (int i = 0; i < 5; ++i) {
    uint64_t before = __rdtsc();
    uint64_t now = bp_clock_monotonic_ns();
    uint64_t after = __rdtsc();
    if (after - before < best) {
      best = after - before;
      *tsc = before + (after - before) / 2;
      *ns = now;
    }
  }
}

static void calibrate(void) {
  if (!tsc_is_invariant())
    return;
  uint64_t tsc0, ns0, tsc1, ns1;
  read_pair(&tsc0, &ns0);
  do
    read_pair(&tsc1, &ns1);
  while (ns1 - ns0 < 1000000u); /* 1 ms */
  if (tsc1 <= tsc0)
    return;
  fast_clock.mult =
      (uint64_t)(((unsigned __int128)(ns1 - ns0) << 32) / (tsc1 - tsc0));
  fast_clock.base_tsc = tsc1;
  fast_clock.base_ns = ns1;
  fast_clock.use_tsc = fast_clock.mult != 0;
}

uint64_t bp_clock_now_ns(void) {
  pthread_once(&fast_clock_once, calibrate);
  if (!fast_clock.use_tsc)
    return bp_clock_monotonic_ns();
  /* A read on another core may come out a little below the calibration's
   * last one: clamp, so the map never goes below base_ns. */
  uint64_t tsc = __rdtsc();
  uint64_t delta = tsc > fast_clock.base_tsc ? tsc - fast_clock.base_tsc : 0;
  return fast_clock.base_ns +
         (uint64_t)(((unsigned __int128)delta * fast_clock.mult) >> 32);
}
#else
uint64_t bp_clock_now_ns(void) {
  return bp_clock_monotonic_ns();
}
#endif

bp_clock_anchor_t bp_clock_anchor_now(void) {
  bp_clock_anchor_t anchor;
  anchor.fast_ns = bp_clock_now_ns();
  anchor.monotonic_ns = bp_clock_monotonic_ns();
  return anchor;
}

uint64_t bp_clock_fast_to_monotonic(uint64_t fast_ns, bp_clock_anchor_t a,
                                    bp_clock_anchor_t b) {
  double offset = (double)fast_ns - (double)a.fast_ns;
  double scale = 1.0;
  if (b.fast_ns > a.fast_ns + 1000 && b.monotonic_ns > a.monotonic_ns)
    scale = (double)(b.monotonic_ns - a.monotonic_ns) /
            (double)(b.fast_ns - a.fast_ns);
  double mapped = (double)a.monotonic_ns + offset * scale;
  return mapped < 1.0 ? 1 : (uint64_t)mapped;
}
