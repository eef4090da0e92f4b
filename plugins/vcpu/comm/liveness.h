/* Dead peers of a shared-memory world (internal).
 *
 * A rank process that dies (SIGKILL, a crash, an exit without destroying its
 * communicator) can never arrive again, so waiting for it until the deadline
 * only delays the failure. Each process watches the other processes of its
 * worlds through pidfds (pidfd_open(2) of the pids the ranks publish when
 * they join): a pidfd becomes readable when its process ends, zombie or
 * reaped. Waiters check them between sleeps (comm/wait.h: at most 1 ms
 * apart, after the spin phase), so no thread is added and a world whose
 * ranks are all threads of one process costs nothing.
 *
 * The first process to see a dead rank that never left (a rank leaves when
 * its communicator is destroyed) records it in the segment, sets the
 * world's abort flag and wakes every waiter: every pending and later
 * collective of the world, in every process, then fails with
 * BP_ERR_PEER_LOST naming the rank and its pid. Peers that are alive but
 * hung are still caught by the deadline. Pids mean something only inside
 * one pid namespace: a world made in another one is not watched (deadline
 * only); where pidfd_open is missing (Linux < 5.3) a peer counts as dead
 * once kill(pid, 0) says it no longer exists (an unreaped zombie then goes
 * unnoticed until it is reaped). Thread-safe. */
#ifndef BACKPLANE_VCPU_COMM_LIVENESS_H_
#define BACKPLANE_VCPU_COMM_LIVENESS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm/comm.h"

/* Starts watching for the world just mapped in this process. Returns false
 * when out of memory (the caller fails the join). */
bool vcpu_comm_liveness_open(vcpu_comm_world_t *world);

/* Closes the pidfds; the world is being unmapped. NULL-safe. */
void vcpu_comm_liveness_close(vcpu_comm_world_t *world);

/* Looks once, without blocking, for a peer process that ended without
 * leaving; on finding one records it (first one wins), aborts the world and
 * wakes its waiters. Does nothing for worlds without a segment, or while
 * another thread of this process is looking. */
void vcpu_comm_liveness_check(vcpu_comm_world_t *world);

/* Marks this process's rank `rank` as having left the world on purpose, so
 * that its process ending is not taken for a death. */
void vcpu_comm_liveness_leave(vcpu_comm_world_t *world, size_t rank);

/* vcpu_comm_wait on the world's signal and abort flag, checking its peers
 * (vcpu_comm_liveness_check) before each sleep: a dead one makes it
 * ABORTED, and vcpu_comm_liveness_lost says who. */
vcpu_comm_wait_result_t
vcpu_comm_wait_world(vcpu_comm_world_t *world, uint64_t deadline_ns,
                     bool (*ready)(void *context),
                     bool (*should_yield)(void *context), void *context);

/* Whether a peer of the world was found dead: its rank and pid. */
bool vcpu_comm_liveness_lost(const vcpu_comm_world_t *world, size_t *out_rank,
                             int32_t *out_pid);

#endif /* BACKPLANE_VCPU_COMM_LIVENESS_H_ */
