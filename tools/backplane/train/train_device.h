/* Which device type a training run uses: the one asked for, or by default
 * the first plugin (in load order) with at least as many devices as the run
 * needs. The reference op library serves any of them whose memory the host
 * can address (vcpu; opencl with shared virtual memory, its default where
 * the device has it); a vendor's library is given with --ops. */
#ifndef BACKPLANE_TRAIN_DEVICE_H_
#define BACKPLANE_TRAIN_DEVICE_H_

#include <stdbool.h>
#include <stddef.h>

#include "backplane/backplane.h"

/* Sets *out_type (owned by `runtime`) to `asked` when a plugin of that type
 * has `count` devices, or to the first such plugin's type when `asked` is
 * NULL. None: BP_ERR_NOT_FOUND with a message listing every type and its
 * device count. */
bp_status_t train_device_type_pick(bp_runtime_t *runtime, const char *asked,
                                   size_t count, const char **out_type);

/* Whether the host can address `device`'s memory: a pattern copied into a
 * fresh 64-byte allocation with bp_copy reads back through the pointer
 * itself (read through a pipe, so an address the host cannot read fails
 * with EFAULT instead of faulting). Such devices are served by the
 * reference op library. False on any failure. */
bool train_device_host_addressable(bp_device_t *device);

#endif /* BACKPLANE_TRAIN_DEVICE_H_ */
