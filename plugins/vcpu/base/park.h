/* Spin-then-park building blocks shared by stream workers, waiters and the
 * copy helper: a CPU relax hint, the monotonic clock, a spin budget, and a
 * futex on a 32-bit atomic word. Sleeping never carries data: every hand-off
 * publishes through C11 atomics first, the futex only saves CPU. All functions
 * are thread-safe.
 */
#ifndef BACKPLANE_VCPU_PARK_H_
#define BACKPLANE_VCPU_PARK_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* How long a waiter spins before it parks: a spin hand-off costs far less
 * than a futex wake-up (the stream round-trip rows of docs/performance.md). */
#define VCPU_SPIN_NS 30000u

/* How much of that is busy polling; the rest yields the CPU between polls.
 * A hand-off between two running threads lands well within it, while a
 * waiter that shares its CPU with the thread it waits for (more runnable
 * threads than cores) lets that thread run after 0.5 µs instead of burning
 * its whole spin window first (which made every such hand-off cost ~65 µs:
 * the waiter's 30 µs spin, then the woken worker's). */
#define VCPU_SPIN_BUSY_NS 500u

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

/* One wait's spin budget, owned by the waiting thread:
 *   vcpu_spin spin = vcpu_spin_start();
 *   while (!ready())
 *     if (!vcpu_spin_again(&spin))
 *       park();
 * vcpu_spin_again pauses between two polls (a CPU relax hint, or
 * sched_yield past VCPU_SPIN_BUSY_NS) and returns false, without pausing,
 * once VCPU_SPIN_NS have passed since vcpu_spin_start. */
typedef struct vcpu_spin {
  uint64_t started_ns;
  unsigned polls;
  bool yielding;
} vcpu_spin;

static inline vcpu_spin vcpu_spin_start(void) {
  return (vcpu_spin){vcpu_now_ns(), 0, false};
}

bool vcpu_spin_again(vcpu_spin *spin);

/* Sleeps while *word == expected (returns at once otherwise, or spuriously). */
void vcpu_futex_wait(atomic_uint *word, unsigned expected);

/* Wakes up to `count` threads sleeping on `word`. */
void vcpu_futex_wake(atomic_uint *word, int count);

#endif /* BACKPLANE_VCPU_PARK_H_ */
