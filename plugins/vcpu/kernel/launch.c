/* Launches: copied into a heap record at launch, run as a stream callback
 * that hands the blocks to the device's pool and waits for them with the
 * launch's deadline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/park.h"
#include "device.h"
#include "kernels.h"
#include "stream.h"

static const atomic_bool g_never_aborted = false;

void vk_launch_release(vk_launch *launch) {
  if (atomic_fetch_sub_explicit(&launch->refs, 1, memory_order_acq_rel) != 1)
    return;
  vk_module_release(launch->function->module);
  free(launch);
}

static bool all_blocks_done(void *context) {
  vk_launch *launch = context;
  return atomic_load_explicit(&launch->done, memory_order_acquire) ==
         launch->blocks;
}

/* The blocks run on other threads, which may be queued behind this one on
 * its CPU (more runnable threads than cores): let them run. */
static bool always_yield(void *context) {
  (void)context;
  return true;
}

static void run_launch(C_Device device, C_Stream stream, void *user_data,
                       C_Status *status) {
  (void)device;
  (void)status;
  vk_launch *launch = user_data;
  uint64_t deadline = vcpu_now_ns() + launch->timeout_ns;
  vk_pool_submit(launch);
  vcpu_comm_wait_result_t waited =
      vcpu_comm_wait(&launch->signal, &g_never_aborted, deadline,
                     all_blocks_done, always_yield, launch);
  if (waited != VCPU_COMM_WAIT_READY) {
    uint32_t done = atomic_load(&launch->done);
    vk_stream_fail(stream, BP_ERR_TIMEOUT,
                   "kernel %s (op %s) passed its timeout of %llu ms with %u of "
                   "%u blocks returned; abandoned (its threads run on)",
                   launch->function->name, launch->label,
                   (unsigned long long)(launch->timeout_ns / 1000000u), done,
                   launch->blocks);
    vk_pool_grow(launch->device_id, launch->blocks - done);
  } else if (atomic_load(&launch->first_code) != 0) {
    vk_stream_fail(stream, BP_ERR_PLUGIN,
                   "kernel %s (op %s) returned %u in block %u of %u",
                   launch->function->name, launch->label,
                   atomic_load(&launch->first_code),
                   atomic_load(&launch->failed_block), launch->blocks);
  }
  vk_launch_release(launch);
}

C_Status vk_launch_kernel(const C_Device device, C_Stream stream,
                          BP_KernelFunction function, uint32_t blocks,
                          const void *args, size_t args_size,
                          const BP_LaunchConfig *config, const char *label) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev || !vcpu_stream_of(dev, stream))
    return vk_fail(C_ERROR, "launch: not a live stream of this device");
  if (!function || blocks == 0 || (args_size && !args))
    return vk_fail(C_ERROR, "launch: no function, no blocks or NULL args");
  vk_launch *launch = malloc(sizeof *launch + args_size);
  if (!launch)
    return vk_fail(C_FAILED, "launch: out of memory for %zu argument bytes",
                   args_size);
  atomic_init(&launch->refs, 1 + blocks);
  launch->function = function;
  launch->device_id = dev->id;
  launch->blocks = blocks;
  atomic_init(&launch->done, 0);
  atomic_init(&launch->first_code, 0);
  atomic_init(&launch->failed_block, 0);
  atomic_init(&launch->signal.generation, 0);
  atomic_init(&launch->signal.sleepers, 0);
  bool has_timeout =
      config && config->struct_size >=
                    offsetof(BP_LaunchConfig, timeout_ns) + sizeof(uint64_t);
  launch->timeout_ns = vk_timeout_ns(has_timeout ? config->timeout_ns : 0);
  snprintf(launch->label, sizeof launch->label, "%s",
           label ? label : function->name);
  launch->args_size = args_size;
  if (args_size)
    memcpy(launch->args, args, args_size);
  vk_module_retain(function->module);
  vcpu_command command = {.kind = VCPU_COMMAND_CALLBACK,
                          .callback = {run_launch, launch, &dev->handle}};
  vcpu_stream_enqueue(stream, &command);
  return C_SUCCESS;
}
