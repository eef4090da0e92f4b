#include "comm/wait.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/park.h"

/* A peer usually arrives within microseconds; once a waiter sleeps, waking
 * it costs tens of microseconds and ranks fall into a convoy of sleeps. So a
 * waiter spins up to 50 µs (bounded by time, so ranks oversubscribing the
 * cores give their CPU away soon enough), then yields, then sleeps. The
 * caller can make it yield while it spins (comm/meet.c: a late rank queued
 * on this CPU). */
enum {
  SPIN_NS = 50000,
  CLOCK_EVERY = 32, /* spin rounds between clock reads */
  YIELD_ROUNDS = 8,
  MAX_SLEEP_NS = 1000000, /* 1 ms between deadline/abort checks */
};

uint64_t vcpu_comm_timeout_ms_from_env(void) {
  const char *text = getenv("BACKPLANE_COMM_TIMEOUT_MS");
  if (text == NULL || *text == '\0')
    return VCPU_COMM_DEFAULT_TIMEOUT_MS;
  char *end;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || value == 0 || value > UINT32_MAX)
    return VCPU_COMM_DEFAULT_TIMEOUT_MS;
  return value;
}

/* The progress was published before this call. The fence pairs with the
 * sleeper's seq_cst increment: either we see the sleeper, or its re-check of
 * ready() sees the progress. So the shared word is only touched when somebody
 * sleeps, which keeps the fast path free of a contended cache line. */
void vcpu_comm_signal_progress(vcpu_comm_signal_t *signal) {
  atomic_thread_fence(memory_order_seq_cst);
  if (atomic_load_explicit(&signal->sleepers, memory_order_relaxed) == 0)
    return;
  atomic_fetch_add_explicit(&signal->generation, 1, memory_order_seq_cst);
  syscall(SYS_futex, &signal->generation, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

vcpu_comm_wait_result_t
vcpu_comm_wait_watching(vcpu_comm_signal_t *signal, const atomic_bool *aborted,
                        uint64_t deadline_ns, bool (*ready)(void *context),
                        bool (*should_yield)(void *context), void *context,
                        void (*watch)(void *watch_context),
                        void *watch_context) {
  uint64_t spin_until = 0;
  unsigned yields = 0;
  for (unsigned round = 1;; round++) {
    uint32_t seen =
        atomic_load_explicit(&signal->generation, memory_order_acquire);
    if (ready(context))
      return VCPU_COMM_WAIT_READY;
    if (atomic_load_explicit(aborted, memory_order_acquire))
      return VCPU_COMM_WAIT_ABORTED;
    if (round % CLOCK_EVERY != 0) {
      vcpu_cpu_relax();
      continue;
    }
    uint64_t now = vcpu_now_ns();
    if (now >= deadline_ns)
      return ready(context) ? VCPU_COMM_WAIT_READY : VCPU_COMM_WAIT_TIMEOUT;
    if (spin_until == 0)
      spin_until = now + SPIN_NS;
    if (now < spin_until) {
      if (should_yield != NULL && should_yield(context))
        sched_yield();
      continue;
    }
    if (yields++ < YIELD_ROUNDS) {
      sched_yield();
      continue;
    }
    if (watch != NULL) {
      watch(watch_context);
      if (atomic_load_explicit(aborted, memory_order_acquire))
        continue; /* re-checks ready() first: a finished call stays done */
    }
    uint64_t left = deadline_ns - now;
    struct timespec pause = {0,
                             (long)(left < MAX_SLEEP_NS ? left : MAX_SLEEP_NS)};
    atomic_fetch_add_explicit(&signal->sleepers, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst); /* pairs with the publisher's */
    if (!ready(context)) /* re-check after announcing ourselves */
      syscall(SYS_futex, &signal->generation, FUTEX_WAIT, seen, &pause, NULL,
              0);
    atomic_fetch_sub_explicit(&signal->sleepers, 1, memory_order_relaxed);
  }
}

vcpu_comm_wait_result_t
vcpu_comm_wait(vcpu_comm_signal_t *signal, const atomic_bool *aborted,
               uint64_t deadline_ns, bool (*ready)(void *context),
               bool (*should_yield)(void *context), void *context) {
  return vcpu_comm_wait_watching(signal, aborted, deadline_ns, ready,
                                 should_yield, context, NULL, NULL);
}
