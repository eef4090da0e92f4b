/* Channels between the ranks of a vcpu communicator, for device code
 * (internal). A kernel world is keyed by the communicator's world name; each
 * rank publishes its local buffer (bp_comm_kernel_resources) and gets every
 * peer's, whether the peer is a thread of this process or another process
 * of this host. Every function is thread-safe; results are bp_status_t
 * codes. */
#ifndef BACKPLANE_VCPU_KERNEL_CHANNELS_H_
#define BACKPLANE_VCPU_KERNEL_CHANNELS_H_

#include <stdint.h>

#include "backplane/kernel_types.h"

int vk_channel_write(bp_channel_t channel, uint64_t offset, const void *src,
                     uint64_t size);
int vk_channel_read(bp_channel_t channel, void *dst, uint64_t offset,
                    uint64_t size);
/* Raises the peer's flag for this channel (release: the writes before are
 * visible to the peer once it sees the flag). */
int vk_channel_signal(bp_channel_t channel);
/* Consumes one raise of this rank's flag from the peer, or BP_ERR_TIMEOUT. */
int vk_channel_wait(bp_channel_t channel, uint64_t deadline_ns);

/* The communicator named `name` for `device_id`: BP_ERR_NOT_FOUND if none. */
int vk_comm_acquire(int device_id, const char *name,
                    bp_device_comm_t *out_comm);
int vk_comm_release(int device_id, const char *name);

#endif /* BACKPLANE_VCPU_KERNEL_CHANNELS_H_ */
