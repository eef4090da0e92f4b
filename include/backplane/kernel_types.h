/* Types shared by the three kernel faces (internal to the headers): the
 * resource context a host prepares for a custom communication kernel, and the
 * table of device-side functions a plugin provides. Include kernel.h,
 * kernel_device.h or kernel_ext.h instead. */
#ifndef BACKPLANE_KERNEL_TYPES_H_
#define BACKPLANE_KERNEL_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Peers a resource context describes (ranks of the communicator). */
#define BP_KERNEL_MAX_PEERS 16
/* Notify ids a resource context carries (seed 004 uses two: host to device
 * and device to host). */
#define BP_KERNEL_NOTIFY_SLOTS 4
/* Longest communicator name, NUL included. */
#define BP_KERNEL_COMM_NAME_MAX 128

/* A device-side result that is not a bp_status_t: the call was made on a
 * thread that is not running a kernel. */
#define BP_DEVICE_ERR_NOT_IN_KERNEL 1000

typedef uint64_t bp_device_thread_t; /* the thread a kernel runs on */
typedef uint64_t bp_channel_t;       /* a channel to one peer; 0 for none */
typedef uint64_t bp_device_comm_t;   /* an acquired communicator */

/* A buffer peers can reach: address in this process, size in bytes. */
typedef struct bp_comm_buffer {
  void *addr;
  uint64_t size;
} bp_comm_buffer_t;

/* What the host prepares for one kernel launch (seed 004's algorithm
 * resource context). Plain data: the host may copy it to device memory.
 * remote[r] is rank r's local buffer mapped for this rank (remote[rank] is
 * the local buffer itself); channel[r] is 0 for r == rank. */
typedef struct bp_kernel_resources {
  bp_device_thread_t thread; /* 0: whichever thread runs the kernel */
  bp_comm_buffer_t local;
  uint32_t rank, nranks;
  bp_comm_buffer_t remote[BP_KERNEL_MAX_PEERS];
  bp_channel_t channel[BP_KERNEL_MAX_PEERS];
  uint32_t notify_ids[BP_KERNEL_NOTIFY_SLOTS];
  uint32_t notify_count;
  uint32_t reserved;
} bp_kernel_resources_t;

/* The plugin's device-side functions. Fields are only appended; a plugin
 * sets struct_size to what it provides. */
typedef struct bp_kernel_device_api {
  size_t struct_size;
  uint32_t (*block_index)(void);
  uint32_t (*block_count)(void);
  bp_device_thread_t (*current_thread)(void);
  int (*notify_record)(bp_device_thread_t thread, uint32_t notify_id);
  int (*notify_wait)(bp_device_thread_t thread, uint32_t notify_id,
                     uint32_t timeout_ms);
  int (*comm_acquire)(const char *name, bp_device_comm_t *out_comm);
  int (*comm_release)(const char *name);
  int (*channel_write)(bp_channel_t channel, uint64_t remote_offset,
                       const void *src, uint64_t size, uint32_t timeout_ms);
  int (*channel_read)(bp_channel_t channel, void *dst, uint64_t remote_offset,
                      uint64_t size, uint32_t timeout_ms);
  int (*channel_signal)(bp_channel_t channel, uint32_t timeout_ms);
  int (*channel_wait)(bp_channel_t channel, uint32_t timeout_ms);
  int (*batch_start)(const char *tag);
  int (*batch_end)(const char *tag);
  int (*local_copy)(void *dst, const void *src, uint64_t size);
} bp_kernel_device_api_t;

/* The symbol a plugin looks up in a loaded module and points at its table
 * (kernel_device.h defines it). */
#define BP_KERNEL_DEVICE_API_SYMBOL "bp_kernel_device_api"

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_KERNEL_TYPES_H_ */
