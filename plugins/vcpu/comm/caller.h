/* Small collectives over MPI on the caller's thread. Handing a call to the
 * rank's stream worker and waiting for it there cost a small all_reduce over
 * MPI more than MPI's own exchange (the worker's wake-up, the caller
 * competing with it for a CPU). So when the stream has nothing pending, the
 * call takes the stream's next place in order (comm/host.h's turn) and runs
 * right there: it is the call an enqueued one would be (the same sequence
 * number, later commands of the stream after it, its result visible once
 * the stream is synchronized, its failure poisoning the communicator and
 * reported by its asynchronous error), less the hand-off.
 *
 * The caller spends at most VCPU_COMM_CALLER_TURN_NS in it: a call still
 * waiting for its peers then goes on on the stream's worker from where it
 * stopped, so a caller is never held by a peer that waits for this caller to
 * do something else first (another communicator's call, a message of its
 * own). When the stream's pending work is this communicator's own calls
 * (one handed on, or enqueued behind it), the caller first waits a spin's
 * budget (30 µs) for them, so that a call that had to be handed on does not
 * send every later one of a busy loop through the worker. Only worlds whose
 * module can stop and resume a call (plain MPI worlds: comm/mpi.h's
 * `start`) and calls it accepts (`quick`: small all_reduces of ranks on one
 * host, whose calls take about as long as the hand-off) run so. */
#ifndef BACKPLANE_VCPU_COMM_CALLER_H_
#define BACKPLANE_VCPU_COMM_CALLER_H_

#include <stdbool.h>

#include "comm/comm.h"

/* The most a call keeps its caller (about a 1 KiB exchange's time on a
 * loaded machine several times over). */
#define VCPU_COMM_CALLER_TURN_NS 20000u

/* Runs the numbered call `desc` of `comm` on the calling thread in
 * `stream`'s order (handing on the rest to the stream's worker if need be)
 * and returns true; false, with nothing done, when it cannot (the call or
 * the world does not qualify, the stream has work pending, or the
 * communicator has calls running on another stream): the caller then
 * enqueues it. */
bool vcpu_comm_run_on_caller(C_CCLComm comm, const vcpu_comm_desc_t *desc,
                             C_Stream stream);

/* On the stream's worker: finishes the call vcpu_comm_run_on_caller handed
 * on, recording its failure like any call's. Runs even on a poisoned
 * communicator: the world must end the call it holds. */
void vcpu_comm_finish_handed_on(C_CCLComm comm);

#endif /* BACKPLANE_VCPU_COMM_CALLER_H_ */
