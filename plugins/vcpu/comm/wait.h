/* Waiting inside the collectives: every wait has a deadline and watches an
 * abort flag, so no rank ever hangs. A waiter spins briefly, then yields, then
 * sleeps on a futex word that publishers bump (vcpu_comm_signal_t) after making
 * progress. Sleeps are capped at a millisecond so the deadline and the abort
 * flag are re-checked promptly even without a wake-up, and before each sleep
 * a watch may look for trouble (comm/liveness.h: dead peer processes).
 * Thread-safe. */
#ifndef BACKPLANE_VCPU_COMM_WAIT_H_
#define BACKPLANE_VCPU_COMM_WAIT_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The shared progress word of one group of cooperating waiters. */
typedef struct vcpu_comm_signal {
  _Atomic uint32_t generation; /* bumped on every progress */
  _Atomic uint32_t sleepers;   /* waiters currently in futex_wait */
} vcpu_comm_signal_t;

typedef enum vcpu_comm_wait_result {
  VCPU_COMM_WAIT_READY = 0,
  VCPU_COMM_WAIT_TIMEOUT = 1,
  VCPU_COMM_WAIT_ABORTED = 2,
} vcpu_comm_wait_result_t;

/* The collective deadline in milliseconds: BACKPLANE_COMM_TIMEOUT_MS when set
 * to a positive integer, else VCPU_COMM_DEFAULT_TIMEOUT_MS. */
#define VCPU_COMM_DEFAULT_TIMEOUT_MS 60000u
uint64_t vcpu_comm_timeout_ms_from_env(void);

/* Wakes every waiter of `signal`. Call after publishing progress. */
void vcpu_comm_signal_progress(vcpu_comm_signal_t *signal);

/* Returns READY as soon as ready(context) is true, ABORTED once *aborted is
 * true, TIMEOUT once vcpu_now_ns() (park.h) passes deadline_ns. During the
 * spin phase, `should_yield` (may be NULL: always spin) is asked at each
 * clock reading: true when a thread it waits for may be queued on this CPU,
 * which then yields so that it can run. */
vcpu_comm_wait_result_t
vcpu_comm_wait(vcpu_comm_signal_t *signal, const atomic_bool *aborted,
               uint64_t deadline_ns, bool (*ready)(void *context),
               bool (*should_yield)(void *context), void *context);

/* vcpu_comm_wait that also calls watch(watch_context) before each sleep
 * (after the spin phase, at most 1 ms apart); a watch may set *aborted,
 * which ends the wait unless ready() holds by then. */
vcpu_comm_wait_result_t
vcpu_comm_wait_watching(vcpu_comm_signal_t *signal, const atomic_bool *aborted,
                        uint64_t deadline_ns, bool (*ready)(void *context),
                        bool (*should_yield)(void *context), void *context,
                        void (*watch)(void *watch_context),
                        void *watch_context);

#endif /* BACKPLANE_VCPU_COMM_WAIT_H_ */
