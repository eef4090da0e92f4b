/* vcpu kernels (internal): modules dlopen'ed RTLD_LOCAL, launches run in
 * stream order, notifies as flags with ids, sticky stream errors, and the
 * device-side API (kernel_device.h) including channels between ranks of one
 * process.
 *
 * A launch is a stream command (launch.c): the stream worker runs block 0
 * itself and hands blocks 1.. to the device's pool, then waits for them
 * with the launch's deadline. A launch past it is abandoned (its threads run
 * on; the worker is replaced by the watchdog of stream.h, the pool grows by
 * as many threads) and the stream gets a sticky BP_ERR_TIMEOUT.
 * Every function is thread-safe. */
#ifndef BACKPLANE_VCPU_KERNELS_H_
#define BACKPLANE_VCPU_KERNELS_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/kernel_ext.h"
#include "backplane/status.h"
#include "comm/wait.h"
#include "queue.h"

/* Stops the pools, frees the communicator names and forgets the stream
 * errors (last finalize, after every stream was drained). */
void vk_shutdown(void);

/* Records the calling thread's reason (kernel_ext.h last_error) and returns
 * `status`. */
C_Status vk_fail(C_Status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
const char *vk_last_error(void);

typedef unsigned int (*vk_kernel_fn)(void *param);

struct BP_KernelFunction_st {
  struct BP_KernelModule_st *module;
  vk_kernel_fn fn;
  struct BP_KernelFunction_st *next;
  char name[];
};

/* A module holds one reference for its owner and one per launch in flight;
 * the last release dlcloses it. */
struct BP_KernelModule_st {
  void *handle;
  int memfd; /* module_load_data's copy, else -1 */
  _Atomic int refs;
  char **names; /* exported functions */
  size_t name_count;
  struct BP_KernelFunction_st *functions; /* found so far, under a lock */
};
void vk_module_retain(struct BP_KernelModule_st *module);
void vk_module_release(struct BP_KernelModule_st *module);

/* Exported function names of an ELF shared object image; *out_names is
 * malloc'ed (free each name, then the array). false if not an ELF64 image. */
bool vk_elf_functions(const unsigned char *image, size_t size,
                      char ***out_names, size_t *out_count);

/* A launch, shared by its stream callback and the blocks running it. */
typedef struct vk_launch {
  _Atomic unsigned refs; /* the stream callback + one per block */
  struct BP_KernelFunction_st *function;
  int device_id;
  uint32_t blocks;
  uint32_t next_block; /* under the pool's lock */
  _Atomic uint32_t done;
  _Atomic uint32_t first_code;   /* first non-zero return, 0 if none */
  _Atomic uint32_t failed_block; /* its block */
  vcpu_comm_signal_t signal;     /* bumped when the last block returns */
  uint64_t timeout_ns;
  struct vk_launch *next_queued; /* the pool's queue */
  char label[96];
  size_t args_size;
  _Alignas(16) unsigned char args[];
} vk_launch;

void vk_launch_release(vk_launch *launch);

/* Runs block `block` of `launch` on the calling thread and releases the
 * block's reference. */
void vk_run_block(vk_launch *launch, uint32_t block);
/* Hands blocks first_block.. of `launch` to the pool of its device. */
void vk_pool_submit(vk_launch *launch, uint32_t first_block);
/* Keeps the plugin mapped for the process's life (a thread was abandoned in
 * a kernel and returns into it whenever the kernel does). */
void vk_pin_plugin(void);
/* Adds `count` threads to the device's pool (replacing abandoned ones). */
void vk_pool_grow(int device_id, unsigned count);
/* Stops every pool (plugin finalize). Threads stuck in abandoned kernels are
 * left behind. */
void vk_pools_shutdown(void);

/* On the stream worker: runs a VCPU_COMMAND_KERNEL whose slot is `slot`. */
void vk_run_kernel(C_Stream stream, const vcpu_command *command,
                   unsigned char *slot);
/* After the command ran (and was traced): drops what it holds. */
void vk_kernel_command_done(const vcpu_command *command);

/* What the thread running a block knows about it (NULL elsewhere). */
typedef struct vk_context {
  uint32_t block, blocks;
  int device_id;
  uint64_t thread;
} vk_context;
extern _Thread_local vk_context *vk_current;
/* The calling thread's kernel thread id (gettid, asked once per thread). */
uint64_t vk_thread_id(void);
/* Drops a batch the kernel left open. */
void vk_batch_abandon(void);

/* Sticky stream errors. */
void vk_stream_fail(C_Stream stream, bp_status_t status, const char *format,
                    ...) __attribute__((format(printf, 3, 4)));
C_Status vk_stream_error(const C_Device device, C_Stream stream,
                         int32_t *out_status, char *message, size_t capacity);
C_Status vk_stream_reset(const C_Device device, C_Stream stream);
/* Forgets every error (plugin finalize: the streams are gone). */
void vk_stream_errors_clear(void);

/* Notifies by id; NULL for an unknown id. */
struct BP_Notify_st *vk_notify_lookup(uint32_t id);
/* Waits for the flag (then resets it) until `deadline_ns`. */
bool vk_notify_take(struct BP_Notify_st *notify, uint64_t deadline_ns);
void vk_notify_set(struct BP_Notify_st *notify);

/* The timeout of a launch, notify wait or device-side wait that names none
 * (0): HCCL's 27 * 68 s. */
#define VK_DEFAULT_TIMEOUT_NS (27ull * 68u * 1000000000u)
static inline uint64_t vk_timeout_ns(uint64_t timeout_ns) {
  return timeout_ns ? timeout_ns : VK_DEFAULT_TIMEOUT_NS;
}
/* A device-side timeout in ms (0: the default) as a deadline on
 * vcpu_now_ns(). */
uint64_t vk_deadline_ms(uint32_t timeout_ms);

/* The extension's entry points (plugin.c puts them in its chain), by
 * file. */
C_Status vk_module_load_file(const C_Device device, const char *path,
                             int32_t kind, BP_KernelModule *out_module);
C_Status vk_module_load_data(const C_Device device, const void *data,
                             size_t size, int32_t kind,
                             BP_KernelModule *out_module);
C_Status vk_module_unload(const C_Device device, BP_KernelModule module);
C_Status vk_module_get_function(const C_Device device, BP_KernelModule module,
                                const char *name,
                                BP_KernelFunction *out_function);
C_Status vk_module_function_names(const C_Device device, BP_KernelModule module,
                                  const char **names, size_t capacity,
                                  size_t *out_count);
C_Status vk_launch_kernel(const C_Device device, C_Stream stream,
                          BP_KernelFunction function, uint32_t blocks,
                          const void *args, size_t args_size,
                          const BP_LaunchConfig *config, const char *label);
C_Status vk_notify_create(const C_Device device, BP_Notify *out_notify);
C_Status vk_notify_destroy(const C_Device device, BP_Notify notify);
C_Status vk_notify_id(const C_Device device, BP_Notify notify,
                      uint32_t *out_id);
C_Status vk_notify_record(const C_Device device, C_Stream stream,
                          BP_Notify notify);
C_Status vk_notify_wait(const C_Device device, C_Stream stream,
                        BP_Notify notify, uint64_t timeout_ns);
C_Status vk_comm_kernel_resources(const C_Device device, C_CCLComm comm,
                                  const char *name, void *local, size_t size,
                                  bp_kernel_resources_t *out);
extern const bp_kernel_device_api_t vk_device_api;
/* Frees the communicator names and channel tables (plugin finalize). */
void vk_comm_shutdown(void);

#endif /* BACKPLANE_VCPU_KERNELS_H_ */
