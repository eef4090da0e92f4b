/* A waitable, monotonically increasing 64-bit counter: one side advances it,
 * any number of threads wait for it to reach a target. Waiters spin for
 * VCPU_SPIN_NS (yielding the CPU after VCPU_SPIN_BUSY_NS, park.h), then
 * register the smallest target they need and park on a futex; the advancing
 * side issues a wake-up only when a registered target has been reached, so an
 * unobserved counter costs one extra load per advance.
 *
 * Memory ordering: everything written before vcpu_progress_advance(v) is
 * visible to a thread that returns from vcpu_progress_wait(t <= v) or reads
 * vcpu_progress_get() >= v. Thread-safe; the value never decreases.
 */
#ifndef BACKPLANE_VCPU_PROGRESS_H_
#define BACKPLANE_VCPU_PROGRESS_H_

#include <stdatomic.h>
#include <stdint.h>

typedef struct vcpu_progress {
  _Alignas(64) atomic_uint_least64_t value;
  atomic_uint_least64_t wake_at; /* smallest target of a parked waiter */
  atomic_uint epoch;             /* futex word, bumped on every wake-up */
} vcpu_progress;

void vcpu_progress_init(vcpu_progress *progress);

static inline uint64_t vcpu_progress_get(const vcpu_progress *progress) {
  return atomic_load_explicit(&progress->value, memory_order_acquire);
}

/* Publishes `value` (must be >= the current value) and wakes waiters whose
 * target it reaches. */
void vcpu_progress_advance(vcpu_progress *progress, uint64_t value);

/* Returns once the counter is >= target: spins, then parks. */
void vcpu_progress_wait(vcpu_progress *progress, uint64_t target);

#endif /* BACKPLANE_VCPU_PROGRESS_H_ */
