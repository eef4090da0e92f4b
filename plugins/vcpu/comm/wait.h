/* Waiting inside the collectives: every wait has a deadline and watches an
 * abort flag, so no rank ever hangs. A waiter spins briefly, then yields, then
 * sleeps on a futex word that publishers bump (comm_signal) after making
 * progress. Sleeps are capped at a millisecond so the deadline and the abort
 * flag are re-checked promptly even without a wake-up. Thread-safe. */
#ifndef BACKPLANE_VCPU_COMM_WAIT_H_
#define BACKPLANE_VCPU_COMM_WAIT_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The shared progress word of one group of cooperating waiters. */
typedef struct comm_signal {
  _Atomic uint32_t generation; /* bumped on every progress */
  _Atomic uint32_t sleepers;   /* waiters currently in futex_wait */
} comm_signal;

typedef enum comm_wait_result {
  COMM_WAIT_READY = 0,
  COMM_WAIT_TIMEOUT = 1,
  COMM_WAIT_ABORTED = 2,
} comm_wait_result;

/* The collective deadline in milliseconds: BACKPLANE_COMM_TIMEOUT_MS when set
 * to a positive integer, else COMM_DEFAULT_TIMEOUT_MS. */
#define COMM_DEFAULT_TIMEOUT_MS 60000u
uint64_t comm_timeout_ms_from_env(void);

/* Wakes every waiter of `signal`. Call after publishing progress. */
void comm_signal_progress(comm_signal *signal);

/* Returns READY as soon as ready(context) is true, ABORTED once *aborted is
 * true, TIMEOUT once vcpu_now_ns() (park.h) passes deadline_ns. During the
 * spin phase, `should_yield` (may be NULL: always spin) is asked at each
 * clock reading: true when a thread it waits for may be queued on this CPU,
 * which then yields so that it can run. */
comm_wait_result comm_wait(comm_signal *signal, const atomic_bool *aborted,
                           uint64_t deadline_ns, bool (*ready)(void *context),
                           bool (*should_yield)(void *context), void *context);

#endif /* BACKPLANE_VCPU_COMM_WAIT_H_ */
