/* Spin-then-park building blocks shared by stream workers, waiters and the
 * copy helper: a CPU relax hint, the monotonic clock, and a futex on a 32-bit
 * atomic word. Sleeping never carries data: every hand-off publishes through
 * C11 atomics first, the futex only saves CPU. All functions are thread-safe.
 */
#ifndef BACKPLANE_VCPU_PARK_H_
#define BACKPLANE_VCPU_PARK_H_

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

/* How long a waiter spins before it parks (reference/collectives_alloc.md §5:
 * a spin hand-off costs ~0.1 µs, a futex hop ~4 µs). */
#define VCPU_SPIN_NS 30000u

static inline void vcpu_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static inline uint64_t vcpu_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleeps while *word == expected (returns at once otherwise, or spuriously). */
void vcpu_futex_wait(atomic_uint *word, unsigned expected);

/* Wakes up to `count` threads sleeping on `word`. */
void vcpu_futex_wake(atomic_uint *word, int count);

#endif /* BACKPLANE_VCPU_PARK_H_ */
