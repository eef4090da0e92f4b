/*
 * Backplane device side: what a kernel's code may call while it runs.
 *
 * A kernel is `unsigned int fn(void *param)` in a module (kernel.h): it
 * returns 0 on success, anything else fails its launch with that code. While
 * it runs it may ask for its block index and count, record and wait notifies
 * by id (the host side is bp_notify_record / bp_notify_wait), and, for custom
 * communication operators, acquire a communicator by name and move data to
 * and from its peers over channels described by a resource context the host
 * prepared with bp_comm_kernel_resources() (kernel.h).
 *
 * The functions below are inline calls through `bp_kernel_device_api`, a
 * weak pointer this header defines in every module that includes it; the
 * plugin fills it in when it loads the module (so include this header only in
 * kernel modules, never in a host program or a plugin). Calling them outside a
 * running kernel returns BP_DEVICE_ERR_NOT_IN_KERNEL (or 0 for the index
 * queries). Every wait has a timeout in milliseconds (0: the plugin's default,
 * never endless). Results are 0 or a bp_status_t code (status.h).
 */
#ifndef BACKPLANE_KERNEL_DEVICE_H_
#define BACKPLANE_KERNEL_DEVICE_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/kernel_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Filled in by the plugin when it loads the module. */
#if defined(__GNUC__)
__attribute__((weak, visibility("default")))
#endif
const bp_kernel_device_api_t *bp_kernel_device_api;

/* This block's index in [0, bp_block_count()). */
static inline uint32_t bp_block_index(void) {
  return bp_kernel_device_api ? bp_kernel_device_api->block_index() : 0;
}
static inline uint32_t bp_block_count(void) {
  return bp_kernel_device_api ? bp_kernel_device_api->block_count() : 0;
}
/* The thread running this block (seed 004's device-side thread handle). */
static inline bp_device_thread_t bp_device_thread(void) {
  return bp_kernel_device_api ? bp_kernel_device_api->current_thread() : 0;
}

/* Sets the notify (a host stream's bp_notify_wait then passes). */
static inline int bp_device_notify_record(bp_device_thread_t thread,
                                          uint32_t notify_id) {
  return bp_kernel_device_api
             ? bp_kernel_device_api->notify_record(thread, notify_id)
             : BP_DEVICE_ERR_NOT_IN_KERNEL;
}
/* Waits until the notify is set (by a host stream's bp_notify_record), then
 * resets it. BP_ERR_TIMEOUT (7) after timeout_ms. */
static inline int bp_device_notify_wait(bp_device_thread_t thread,
                                        uint32_t notify_id,
                                        uint32_t timeout_ms) {
  return bp_kernel_device_api
             ? bp_kernel_device_api->notify_wait(thread, notify_id, timeout_ms)
             : BP_DEVICE_ERR_NOT_IN_KERNEL;
}

/* The communicator this device's host named with bp_comm_kernel_resources.
 * BP_ERR_NOT_FOUND (2) for an unknown name. Release once per acquire. */
static inline int bp_device_comm_acquire(const char *name,
                                         bp_device_comm_t *out_comm) {
  return bp_kernel_device_api
             ? bp_kernel_device_api->comm_acquire(name, out_comm)
             : BP_DEVICE_ERR_NOT_IN_KERNEL;
}
static inline int bp_device_comm_release(const char *name) {
  return bp_kernel_device_api ? bp_kernel_device_api->comm_release(name)
                              : BP_DEVICE_ERR_NOT_IN_KERNEL;
}

/* One-sided copies into / out of the peer's buffer at `remote_offset`.
 * BP_ERR_INVALID_ARGUMENT when the range leaves the peer's buffer. */
static inline int bp_channel_write(bp_channel_t channel, uint64_t remote_offset,
                                   const void *src, uint64_t size,
                                   uint32_t timeout_ms) {
  return bp_kernel_device_api
             ? bp_kernel_device_api->channel_write(channel, remote_offset, src,
                                                   size, timeout_ms)
             : BP_DEVICE_ERR_NOT_IN_KERNEL;
}
static inline int bp_channel_read(bp_channel_t channel, void *dst,
                                  uint64_t remote_offset, uint64_t size,
                                  uint32_t timeout_ms) {
  return bp_kernel_device_api
             ? bp_kernel_device_api->channel_read(channel, dst, remote_offset,
                                                  size, timeout_ms)
             : BP_DEVICE_ERR_NOT_IN_KERNEL;
}
/* Raises the peer's flag for this channel (after the writes before it are
 * visible to the peer); the peer's bp_channel_wait consumes one raise. */
static inline int bp_channel_signal(bp_channel_t channel, uint32_t timeout_ms) {
  return bp_kernel_device_api
             ? bp_kernel_device_api->channel_signal(channel, timeout_ms)
             : BP_DEVICE_ERR_NOT_IN_KERNEL;
}
static inline int bp_channel_wait(bp_channel_t channel, uint32_t timeout_ms) {
  return bp_kernel_device_api
             ? bp_kernel_device_api->channel_wait(channel, timeout_ms)
             : BP_DEVICE_ERR_NOT_IN_KERNEL;
}

/* A copy between buffers of this device, ordered with the thread's channel
 * operations (queued in batch mode like them). */
static inline int bp_device_local_copy(void *dst, const void *src,
                                       uint64_t size) {
  return bp_kernel_device_api ? bp_kernel_device_api->local_copy(dst, src, size)
                              : BP_DEVICE_ERR_NOT_IN_KERNEL;
}

/* Batch mode (per thread): between start and end, notify and channel calls
 * only queue (returning 0); end runs them in order and returns the first
 * failure. The tags must match. */
static inline int bp_device_batch_start(const char *tag) {
  return bp_kernel_device_api ? bp_kernel_device_api->batch_start(tag)
                              : BP_DEVICE_ERR_NOT_IN_KERNEL;
}
static inline int bp_device_batch_end(const char *tag) {
  return bp_kernel_device_api ? bp_kernel_device_api->batch_end(tag)
                              : BP_DEVICE_ERR_NOT_IN_KERNEL;
}

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_KERNEL_DEVICE_H_ */
