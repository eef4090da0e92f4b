/* How a communicator fails: its first failure, and the world's abort flag. */
#include "comm/failure.h"

#include <stdarg.h>
#include <stdio.h>

#include "comm/liveness.h"
#include "comm/segment.h"

void vcpu_comm_abort(C_CCLComm comm) {
  atomic_store_explicit(comm->world->aborted, true, memory_order_release);
  vcpu_comm_signal_progress(comm->world->signal);
}

bp_status_t vcpu_comm_error(C_CCLComm comm, char *message, size_t capacity) {
  bp_status_t status = (bp_status_t)atomic_load(&comm->error);
  if (status != BP_OK && message != NULL && capacity > 0) {
    pthread_mutex_lock(&comm->error_lock);
    snprintf(message, capacity, "%s", comm->error_message);
    pthread_mutex_unlock(&comm->error_lock);
  }
  return status;
}

bp_status_t vcpu_comm_fail(C_CCLComm comm, bp_status_t status,
                           const char *format, ...) {
  pthread_mutex_lock(&comm->error_lock);
  if (atomic_load(&comm->error) == BP_OK) {
    va_list args;
    va_start(args, format);
    vsnprintf(comm->error_message, sizeof comm->error_message, format, args);
    va_end(args);
    atomic_store(&comm->error, (int)status);
    /* A rank that gives up on its world removes the world's name. */
    if (comm->world->mpi == NULL)
      vcpu_comm_segment_unlink(comm->world);
  }
  pthread_mutex_unlock(&comm->error_lock);
  return status;
}

bool vcpu_comm_fail_if_peer_lost(C_CCLComm comm, const char *what,
                                 bp_status_t *out_status) {
  size_t rank = 0;
  int32_t pid = 0;
  if (!vcpu_comm_liveness_lost(comm->world, &rank, &pid))
    return false;
  *out_status = vcpu_comm_fail(
      comm, BP_ERR_PEER_LOST,
      "%s rank %zu: %s: peer lost: rank %zu (pid %d) ended without destroying "
      "its communicator",
      comm->name, comm->rank, what, rank, (int)pid);
  return true;
}
