/* Futex wrappers (Linux) and the spin budget. */
#include "base/park.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Busy polls between two clock reads: a pause is ~10-140 cycles, a clock
 * read ~25 ns, so the budget is checked every few hundred nanoseconds. */
#define POLLS_PER_CLOCK_READ 8u

bool vcpu_spin_again(vcpu_spin *spin) {
  if (!spin->yielding && ++spin->polls % POLLS_PER_CLOCK_READ != 0) {
    vcpu_cpu_relax();
    return true;
  }
  uint64_t spun = vcpu_now_ns() - spin->started_ns;
  if (spun >= VCPU_SPIN_NS)
    return false;
  spin->yielding = spun >= VCPU_SPIN_BUSY_NS;
  if (spin->yielding)
    sched_yield();
  else
    vcpu_cpu_relax();
  return true;
}

void vcpu_futex_wait(atomic_uint *word, unsigned expected) {
  syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL,
          0);
}

void vcpu_futex_wake(atomic_uint *word, int count) {
  syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, count, NULL, NULL,
          0);
}
