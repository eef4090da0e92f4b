#include "comm/caller.h"

#include "base/park.h"
#include "comm/failure.h"
#include "comm/host.h"
#include "comm/mpi.h"

static void record_failure(C_CCLComm comm, int status, const char *error) {
  if (status != BP_OK)
    vcpu_comm_fail(comm, (bp_status_t)status, "%s rank %zu: %s", comm->name,
                   comm->rank, error);
}

bool vcpu_comm_run_on_caller(C_CCLComm comm, const vcpu_comm_desc_t *desc,
                             C_Stream stream) {
  vcpu_comm_world_t *world = comm->world;
  const vcpu_comm_mpi_module_t *mpi = world->mpi;
  if (mpi == NULL || mpi->start == NULL || !mpi->quick(world->mpi_handle, desc))
    return false;
  /* This communicator's calls still pending (on this stream, after one was
   * handed on, the caller gives them a few microseconds to end). */
  uint64_t in_flight =
      atomic_load_explicit(&comm->tasks_submitted, memory_order_relaxed) -
      atomic_load(&comm->tasks_done);
  uint64_t place = 0;
  if (!vcpu_comm_host_take_turn(stream, in_flight, &place))
    return false;
  /* One still running on another stream holds the world. */
  if (atomic_load(&comm->tasks_done) !=
      atomic_load_explicit(&comm->tasks_submitted, memory_order_relaxed)) {
    vcpu_comm_host_end_turn(stream, place, NULL);
    return false;
  }
  atomic_fetch_add_explicit(&comm->tasks_submitted, 1, memory_order_relaxed);
  char error[512];
  error[0] = '\0'; /* not cleared whole: this runs once per small call */
  uint64_t now = vcpu_now_ns();
  int status = mpi->start(world->mpi_handle, desc, now + comm->timeout_ns,
                          now + VCPU_COMM_CALLER_TURN_NS, world->aborted, error,
                          sizeof error);
  if (status == BP_ERR_NOT_READY) {
    vcpu_comm_task_t rest = vcpu_comm_lone_task(comm, desc);
    rest.handed_on = 1;
    vcpu_comm_host_end_turn(stream, place, &rest);
    return true;
  }
  record_failure(comm, status, error);
  vcpu_comm_host_end_turn(stream, place, NULL);
  /* The last touch of the communicator (comm/ops.h's run_task). */
  atomic_fetch_add_explicit(&comm->tasks_done, 1, memory_order_release);
  return true;
}

void vcpu_comm_finish_handed_on(C_CCLComm comm) {
  vcpu_comm_world_t *world = comm->world;
  char error[512] = "";
  int status = world->mpi->resume(world->mpi_handle, world->aborted, error,
                                  sizeof error);
  record_failure(comm, status, error);
}
