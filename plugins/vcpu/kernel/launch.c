/* Launches: enqueued as a stream command whose slot (queue.h) carries the
 * op's label and the arguments (larger ones go to the heap), so enqueueing
 * takes no lock and no allocation. The stream worker runs the kernel itself,
 * block 0 of it when blocks > 1 (the others go to the device's pool), under
 * the worker watchdog (stream.h): a block 0 past the deadline gets the stream
 * a sticky BP_ERR_TIMEOUT naming the kernel, and its thread is abandoned to
 * it while a new worker drains the rest of the stream. Pool blocks past the
 * deadline are abandoned the same way (the pool grows by as many threads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/kernel.h"
#include "base/park.h"
#include "device.h"
#include "kernels.h"
#include "stream.h"

/* A slot: the label, then the arguments when they fit. */
enum {
  LABEL_SIZE = VCPU_KERNEL_LABEL_SIZE,
  SLOT_ARGS_OFFSET = VCPU_KERNEL_LABEL_SIZE
};
#define SLOT_ARGS_CAPACITY (VCPU_QUEUE_SLOT_SIZE - SLOT_ARGS_OFFSET)

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

/* What the watchdog reports when the worker's own block passes the
 * deadline. */
typedef struct running_kernel {
  const char *name, *label;
  uint64_t timeout_ns;
  uint32_t blocks;
} running_kernel;

static void worker_block_expired(C_Stream stream, void *context) {
  running_kernel *running = context;
  vk_pin_plugin(); /* the abandoned thread returns into this plugin */
  vk_stream_fail(stream, BP_ERR_TIMEOUT,
                 "kernel %s (op %s) passed its timeout of %llu ms on the "
                 "stream's worker (block 0 of %u); abandoned (its thread runs "
                 "on), the stream continues on a new worker",
                 running->name, running->label,
                 (unsigned long long)(running->timeout_ns / 1000000u),
                 running->blocks);
}

/* blocks > 1: block 0 here, the others on the pool. False if this thread
 * was abandoned in block 0. */
static bool run_blocks(C_Stream stream, const vcpu_command *command,
                       const void *args, const char *label,
                       running_kernel *running, uint64_t deadline) {
  struct BP_KernelFunction_st *function = command->kernel.function;
  uint32_t blocks = command->kernel.blocks;
  size_t args_size = command->kernel.args_size;
  vk_launch *launch = malloc(sizeof *launch + args_size);
  if (!launch) {
    vk_stream_fail(stream, BP_ERR_OUT_OF_MEMORY,
                   "kernel %s (op %s): out of memory for a %u-block launch",
                   function->name, label, blocks);
    return true;
  }
  atomic_init(&launch->refs, 1 + blocks); /* this thread + one per block */
  launch->function = function;
  launch->device_id = vcpu_stream_device(stream)->id;
  launch->blocks = blocks;
  atomic_init(&launch->done, 0);
  atomic_init(&launch->first_code, 0);
  atomic_init(&launch->failed_block, 0);
  atomic_init(&launch->signal.generation, 0);
  atomic_init(&launch->signal.sleepers, 0);
  launch->timeout_ns = command->kernel.timeout_ns;
  snprintf(launch->label, sizeof launch->label, "%s", label);
  launch->args_size = args_size;
  if (args_size)
    memcpy(launch->args, args, args_size);
  vk_module_retain(function->module); /* the launch's own, for the pool */
  vk_pool_submit(launch, 1);
  vcpu_worker_watch(deadline, worker_block_expired, running);
  vk_run_block(launch, 0);
  if (!vcpu_worker_unwatch()) {
    vk_launch_release(launch);
    return false;
  }
  vcpu_comm_wait_result_t waited =
      vcpu_comm_wait(&launch->signal, &g_never_aborted, deadline,
                     all_blocks_done, always_yield, launch);
  if (waited != VCPU_COMM_WAIT_READY) {
    uint32_t done = atomic_load(&launch->done);
    vk_stream_fail(stream, BP_ERR_TIMEOUT,
                   "kernel %s (op %s) passed its timeout of %llu ms with %u of "
                   "%u blocks returned; abandoned (its threads run on)",
                   function->name, launch->label,
                   (unsigned long long)(launch->timeout_ns / 1000000u), done,
                   blocks);
    vk_pool_grow(launch->device_id, blocks - done);
  } else if (atomic_load(&launch->first_code) != 0) {
    vk_stream_fail(stream, BP_ERR_PLUGIN,
                   "kernel %s (op %s) returned %u in block %u of %u",
                   function->name, launch->label,
                   atomic_load(&launch->first_code),
                   atomic_load(&launch->failed_block), blocks);
  }
  vk_launch_release(launch);
  return true;
}

void vk_run_kernel(C_Stream stream, const vcpu_command *command,
                   unsigned char *slot) {
  /* Copies: an abandoned thread keeps using them after the slot is reused. */
  vcpu_command own = *command;
  struct BP_KernelFunction_st *function = own.kernel.function;
  char label[LABEL_SIZE];
  memcpy(label, slot, LABEL_SIZE);
  _Alignas(16) unsigned char args[BP_LAUNCH_MAX_ARGS];
  size_t args_size = own.kernel.args_size;
  const void *source =
      own.kernel.heap_args ? own.kernel.heap_args : slot + SLOT_ARGS_OFFSET;
  if (args_size)
    memcpy(args, source, args_size);
  running_kernel running = {function->name, label, own.kernel.timeout_ns,
                            own.kernel.blocks};
  uint64_t deadline = vcpu_now_ns() + own.kernel.timeout_ns;
  bool kept;
  if (own.kernel.blocks > 1) {
    kept = run_blocks(stream, &own, args, label, &running, deadline);
  } else {
    vk_context context = {.block = 0,
                          .blocks = 1,
                          .device_id = vcpu_stream_device(stream)->id,
                          .thread = vk_thread_id()};
    vk_current = &context;
    vcpu_worker_watch(deadline, worker_block_expired, &running);
    unsigned code = function->fn(args);
    kept = vcpu_worker_unwatch();
    vk_batch_abandon();
    vk_current = NULL;
    if (kept && code != 0)
      vk_stream_fail(stream, BP_ERR_PLUGIN,
                     "kernel %s (op %s) returned %u in block 0 of 1",
                     function->name, label, code);
  }
  if (!kept) /* the command is this thread's alone now */
    vk_kernel_command_done(&own);
}

void vk_kernel_command_done(const vcpu_command *command) {
  free(command->kernel.heap_args);
  vk_module_release(command->kernel.function->module);
}

typedef struct slot_fill {
  const char *label;
  const void *args; /* NULL when they went to the heap */
  size_t args_size;
} slot_fill;

static void fill_slot(void *context, unsigned char *slot) {
  const slot_fill *fill = context;
  size_t n = strnlen(fill->label, LABEL_SIZE - 1);
  memcpy(slot, fill->label, n);
  slot[n] = '\0';
  if (fill->args && fill->args_size)
    memcpy(slot + SLOT_ARGS_OFFSET, fill->args, fill->args_size);
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
  if (args_size > BP_LAUNCH_MAX_ARGS)
    return vk_fail(C_ERROR, "launch: %zu argument bytes (at most %d)",
                   args_size, BP_LAUNCH_MAX_ARGS);
  bool has_timeout =
      config && config->struct_size >=
                    offsetof(BP_LaunchConfig, timeout_ns) + sizeof(uint64_t);
  vcpu_command command = {.kind = VCPU_COMMAND_KERNEL,
                          .kernel = {.function = function,
                                     .name = function->name,
                                     .timeout_ns = vk_timeout_ns(
                                         has_timeout ? config->timeout_ns : 0),
                                     .blocks = blocks,
                                     .args_size = (uint32_t)args_size}};
  slot_fill fill = {label ? label : function->name, args, args_size};
  if (args_size > SLOT_ARGS_CAPACITY) {
    if (!(command.kernel.heap_args = malloc(args_size)))
      return vk_fail(C_FAILED, "launch: out of memory for %zu argument bytes",
                     args_size);
    memcpy(command.kernel.heap_args, args, args_size);
    fill.args = NULL;
  }
  vk_module_retain(function->module);
  vcpu_stream_enqueue_filled(stream, &command, fill_slot, &fill);
  return C_SUCCESS;
}
