/* The vcpu plugin's side of the collectives library (comm/host.h): tasks
 * run on the stream's worker, and device memory lives in memfd arenas. */
#include "comm/host.h"

#include "memory.h"
#include "stream.h"

C_Status vcpu_comm_host_enqueue(C_Stream stream, const vcpu_comm_task_t *task) {
  return vcpu_stream_enqueue_comm(stream, task);
}

bool vcpu_comm_host_take_turn(C_Stream stream, uint64_t own_pending,
                              uint64_t *out_place) {
  return vcpu_stream_claim_idle(stream, own_pending, out_place);
}

void vcpu_comm_host_end_turn(C_Stream stream, uint64_t place,
                             const vcpu_comm_task_t *task) {
  vcpu_stream_end_claim(stream, place, task);
}

bool vcpu_comm_host_locate(const void *ptr, int32_t *memfd, uint64_t *offset) {
  int device, fd;
  size_t at;
  if (!vcpu_memory_locate(ptr, &device, &fd, &at))
    return false;
  *memfd = fd;
  *offset = at;
  return true;
}
