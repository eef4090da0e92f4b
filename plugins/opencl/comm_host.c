/* The opencl plugin's side of the vcpu collectives library (comm/host.h in
 * plugins/vcpu): a collective task runs as a host callback of the stream
 * (callback.h), so the stream's later commands wait for it. The library only
 * ever sees host staging memory (comm.h), which no other process can map. */
#include "comm/host.h"

#include <stdlib.h>

#include "comm/ops.h"
#include "stream.h"

static void run_task(C_Device device, C_Stream stream, void *user_data,
                     C_Status *status) {
  (void)device;
  (void)stream;
  vcpu_comm_task_t *task = user_data;
  vcpu_comm_run_task(task);
  free(task);
  *status = C_SUCCESS;
}

C_Status vcpu_comm_host_enqueue(C_Stream handle, const vcpu_comm_task_t *task) {
  struct C_Stream_st *stream = ocl_stream_any(handle);
  if (!stream || !task)
    return C_ERROR;
  vcpu_comm_task_t *copy = malloc(sizeof *copy);
  if (!copy)
    return C_FAILED;
  *copy = *task;
  C_Status status =
      ocl_stream_add_callback(&stream->dev->handle, stream, run_task, copy);
  if (status != C_SUCCESS)
    free(copy);
  return status;
}

/* Tasks always run as callbacks of the stream. */
bool vcpu_comm_host_take_turn(C_Stream stream, uint64_t own_pending,
                              uint64_t *out_place) {
  (void)stream;
  (void)own_pending;
  (void)out_place;
  return false;
}

void vcpu_comm_host_end_turn(C_Stream stream, uint64_t place,
                             const vcpu_comm_task_t *task) {
  (void)stream;
  (void)place;
  (void)task;
}

bool vcpu_comm_host_locate(const void *ptr, int32_t *memfd, uint64_t *offset) {
  (void)ptr;
  (void)memfd;
  (void)offset;
  return false;
}
