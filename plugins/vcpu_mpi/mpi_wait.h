/* Waiting on MPI requests under a deadline and an abort flag (internal to
 * libbackplane_vcpu_mpi.so): every call of the module polls nonblocking MPI
 * through these, so no missing peer holds a rank past its deadline.
 *
 * Failures return a bp_status_t with a message in `error` (capacity bytes).
 * A request given up (deadline or abort) marks its world abandoned: MPI
 * cannot cancel a collective, so its buffers must outlive the world, and
 * MPI_Finalize could wait for it forever (mpi_any_request_given_up). */
#ifndef BACKPLANE_VCPU_MPI_MPI_WAIT_H_
#define BACKPLANE_VCPU_MPI_MPI_WAIT_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi_world.h"

/* Writes the message to `error` and returns `status`. */
int mpi_fail(int status, char *error, size_t capacity, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* Polls until the requests complete (BP_OK), the deadline passes or
 * *aborted turns true (BP_ERR_TIMEOUT / BP_ERR_ABORTED; world->abandoned
 * then turns true), answering roll calls meanwhile; or until `until_ns`
 * passes first: BP_ERR_NOT_READY, the requests still pending (poll again
 * later). Watched (mpi_watchdog.h): a poll that never returns ends the
 * process. A timeout's message says only "timed out": callers that can,
 * name the missing ranks (mpi_name_the_missing). */
int mpi_wait_until(mpi_world *world, MPI_Request *requests, int n,
                   MPI_Status *statuses, uint64_t deadline_ns,
                   uint64_t until_ns, const atomic_bool *aborted,
                   mpi_wait_name what, char *error, size_t capacity);

/* mpi_wait_until for a word of shared memory (mpi_mailbox.h) to hold
 * `value` (read with acquire ordering) instead of requests to complete. */
int mpi_wait_for_word(mpi_world *world, const _Atomic uint64_t *word,
                      uint64_t value, uint64_t deadline_ns, uint64_t until_ns,
                      const atomic_bool *aborted, mpi_wait_name what,
                      char *error, size_t capacity);

/* mpi_wait_until to the end: completion, the deadline or an abort. */
int mpi_wait_all(mpi_world *world, MPI_Request *requests, int n,
                 MPI_Status *statuses, uint64_t deadline_ns,
                 const atomic_bool *aborted, mpi_wait_name what, char *error,
                 size_t capacity);

/* Marks a request of `world` given up (see above). */
void mpi_give_up(mpi_world *world);

/* Whether any world of this process gave a request up. */
bool mpi_any_request_given_up(void);

/* A wait named by its label alone. */
static inline mpi_wait_name mpi_named(const char *label) {
  return (mpi_wait_name){label, 0};
}

/* A wait named after the call `d`: "all_reduce sequence 7". */
static inline mpi_wait_name mpi_call_name(const vcpu_comm_desc_t *d) {
  return (mpi_wait_name){vcpu_comm_kind_name(d->kind), d->seq};
}

/* After a call at `seq` failed with `status`: a timeout's message gets the
 * ranks missing from the call (a roll call, mpi_roll_call.h). Returns
 * `status`. */
int mpi_name_the_missing(mpi_world *world, int status, uint64_t seq,
                         char *error, size_t capacity);

#endif /* BACKPLANE_VCPU_MPI_MPI_WAIT_H_ */
