/* Which device type a training run uses: the one asked for, or by default
 * the first plugin (in load order) with at least as many devices as the run
 * needs. The reference op library serves any of them whose memory the host
 * can address (vcpu; opencl with shared virtual memory, its default where
 * the device has it); a vendor's library is given with --ops. */
#ifndef BACKPLANE_TRAIN_DEVICE_H_
#define BACKPLANE_TRAIN_DEVICE_H_

#include <stddef.h>

#include "backplane/backplane.h"

/* Sets *out_type (owned by `runtime`) to `asked` when a plugin of that type
 * has `count` devices, or to the first such plugin's type when `asked` is
 * NULL. None: BP_ERR_NOT_FOUND with a message listing every type and its
 * device count. */
bp_status_t train_device_type_pick(bp_runtime_t *runtime, const char *asked,
                                   size_t count, const char **out_type);

#endif /* BACKPLANE_TRAIN_DEVICE_H_ */
