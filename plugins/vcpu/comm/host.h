/* What a plugin that links the collectives library (backplane_vcpu_comm,
 * comm/ and base/) provides: the library owns communicators, transports and
 * calls; the plugin owns streams and memory. Each plugin defines both
 * functions once (vcpu: comm_host.c; opencl: its comm_host.c). */
#ifndef BACKPLANE_VCPU_COMM_HOST_H_
#define BACKPLANE_VCPU_COMM_HOST_H_

#include <stdbool.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "comm/task.h"

/* Runs vcpu_comm_run_task (comm/ops.h) on a copy of *task in `stream`'s
 * order, off the calling thread, after everything enqueued before: the task
 * may wait for peers until its deadline. C_SUCCESS once enqueued; otherwise
 * (not a live stream of the plugin, out of resources) the task never runs.
 * Thread-safe. */
C_Status vcpu_comm_host_enqueue(C_Stream stream, const vcpu_comm_task_t *task);

/* The caller's turn on `stream`: when nothing enqueued on it is pending,
 * takes its next place in order for the calling thread and returns true;
 * later commands wait for that place and synchronizing waits for it. When
 * no more than `own_pending` commands are pending (the caller's own tasks),
 * it may wait a few microseconds for them to end first. The caller then
 * runs the work there itself and ends with vcpu_comm_host_end_turn, task
 * NULL, or hands the rest on with a task, which runs there off the calling
 * thread like an enqueued one. False (nothing taken) when something is
 * pending, or when the plugin never lends its streams. Thread-safe. */
bool vcpu_comm_host_take_turn(C_Stream stream, uint64_t own_pending,
                              uint64_t *out_place);
void vcpu_comm_host_end_turn(C_Stream stream, uint64_t place,
                             const vcpu_comm_task_t *task);

/* If `ptr` lies in device memory that another process can map (a memfd),
 * stores the fd (owned by the plugin) and the offset of `ptr` in it and
 * returns true; false when it cannot, which makes calls between processes
 * stage through the world segment. Lock-free. */
bool vcpu_comm_host_locate(const void *ptr, int32_t *memfd, uint64_t *offset);

#endif /* BACKPLANE_VCPU_COMM_HOST_H_ */
