/* all_reduce over point-to-point messages (internal to
 * libbackplane_vcpu_mpi.so). Open MPI 4.1's nonblocking collectives
 * (libnbc) take 1.6-3.5x the time of its blocking MPI_Allreduce at 1-4 KiB
 * and about 1.5x at 64 KiB - 1 MiB, and a blocking call keeps no deadline
 * or abort. So the ranks run what Open MPI's tuned MPI_Allreduce picks, over
 * MPI_Isend/MPI_Irecv (or, up to MPI_SMALL_ALL_REDUCE_MAX_BYTES between
 * ranks of one host, the world's mailbox: mpi_mailbox.h) polled like every
 * wait of the module (mpi_wait.h):
 * recursive doubling up to MPI_SMALL_ALL_REDUCE_MAX_BYTES, Rabenseifner's
 * algorithm above (mpi_exchange_plan.h says who exchanges with whom). The
 * call check rides in the data's own messages, so every rank ends with
 * every rank's call, and ranks that called something else are named.
 * Every rank computes the same bits. Errors as in mpi_wait.h. */
#ifndef BACKPLANE_VCPU_MPI_MPI_ALL_REDUCE_H_
#define BACKPLANE_VCPU_MPI_MPI_ALL_REDUCE_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi_world.h"
#include "reduce/reduce.h"

enum { MPI_SMALL_ALL_REDUCE_MAX_BYTES = 16 * 1024 };

static inline bool mpi_small_all_reduce_fits(const vcpu_comm_desc_t *d) {
  return d->kind == VCPU_COMM_ALL_REDUCE &&
         d->count * vcpu_comm_dtype_size(d->dtype) <=
             MPI_SMALL_ALL_REDUCE_MAX_BYTES;
}

/* Starts a small all-reduce (mpi_small_all_reduce_fits) on the world and
 * goes on with it until it ends or `until_ns` passes first
 * (BP_ERR_NOT_READY: the world holds the call half done, and
 * mpi_small_all_reduce_resume, on any one thread, goes on with it). */
int mpi_small_all_reduce_start(mpi_world *world, const vcpu_comm_desc_t *d,
                               uint64_t deadline_ns, uint64_t until_ns,
                               const atomic_bool *aborted, char *error,
                               size_t capacity);
int mpi_small_all_reduce_resume(mpi_world *world, uint64_t until_ns,
                                const atomic_bool *aborted, char *error,
                                size_t capacity);

/* The call check of every other collective: the small all-reduce's
 * exchange with the call words alone, so that whatever two ranks called at
 * one sequence number, each learns the other's call from the messages it
 * waits for (an all_reduce up to MPI_SMALL_ALL_REDUCE_MAX_BYTES against a
 * broadcast, say). _start posts its first step; _finish goes on to its
 * end: BP_OK when every rank made the same call, else the mismatch named
 * (BP_ERR_INVALID_ARGUMENT), or a timeout naming the missing ranks. */
int mpi_call_check_start(mpi_world *world, const vcpu_comm_desc_t *d,
                         uint64_t deadline_ns, char *error, size_t capacity);
int mpi_call_check_finish(mpi_world *world, const atomic_bool *aborted,
                          char *error, size_t capacity);

/* Ends the call check's current step alone (none once all ended), or
 * returns BP_ERR_NOT_READY, still in it, once `until_ns` passes: an
 * all-reduce over MPI_SMALL_ALL_REDUCE_MAX_BYTES runs the check's steps
 * one by one beside its first piece's exchanges, which meet the same
 * partners in the same order. BP_OK (world->small.agreed and world->calls
 * then hold what this rank learnt so far), or a failure as in mpi_wait.h
 * (the check is then over: start another). */
int mpi_call_check_step(mpi_world *world, uint64_t until_ns,
                        const atomic_bool *aborted, char *error,
                        size_t capacity);

/* An all-reduce of any size over MPI_SMALL_ALL_REDUCE_MAX_BYTES, to its
 * end. */
int mpi_large_all_reduce(mpi_world *world, const vcpu_comm_desc_t *d,
                         uint64_t deadline_ns, const atomic_bool *aborted,
                         char *error, size_t capacity);

/* Allocates world->small_out and small_in (each the call words of every
 * rank and the largest small all-reduce) on first use; false if out of
 * memory. */
bool mpi_all_reduce_buffers(mpi_world *world);

#endif /* BACKPLANE_VCPU_MPI_MPI_ALL_REDUCE_H_ */
