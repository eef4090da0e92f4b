/* Waitable counter. The park protocol is a store-load handshake on two seq_cst
 * locations (value and wake_at): either the advancer sees the waiter's target,
 * or the waiter sees the advanced value before it sleeps. */
#include "base/progress.h"

#include <limits.h>

#include "base/park.h"

void vcpu_progress_init(vcpu_progress *progress) {
  atomic_init(&progress->value, 0);
  atomic_init(&progress->wake_at, UINT64_MAX);
  atomic_init(&progress->epoch, 0);
}

void vcpu_progress_advance(vcpu_progress *progress, uint64_t value) {
  atomic_store(&progress->value, value);
  if (atomic_load(&progress->wake_at) > value)
    return;
  atomic_store(&progress->wake_at, UINT64_MAX);
  atomic_fetch_add(&progress->epoch, 1);
  vcpu_futex_wake(&progress->epoch, INT_MAX);
}

static void register_target(vcpu_progress *progress, uint64_t target) {
  uint64_t current = atomic_load(&progress->wake_at);
  while (target < current &&
         !atomic_compare_exchange_weak(&progress->wake_at, &current, target)) {
  }
}

void vcpu_progress_wait(vcpu_progress *progress, uint64_t target) {
  if (vcpu_progress_get(progress) >= target)
    return;
  vcpu_spin spin = vcpu_spin_start();
  while (vcpu_spin_again(&spin))
    if (vcpu_progress_get(progress) >= target)
      return;
  for (;;) {
    unsigned epoch = atomic_load(&progress->epoch);
    register_target(progress, target);
    if (atomic_load(&progress->value) >= target)
      return;
    vcpu_futex_wait(&progress->epoch, epoch);
  }
}
