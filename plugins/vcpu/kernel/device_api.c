/* The device-side API (kernel_device.h) as vcpu provides it: block queries,
 * notifies by id, communicators by name, channels and batch mode. */
#include <stdlib.h>
#include <string.h>

#include "base/park.h"
#include "channels.h"
#include "kernels.h"

static uint32_t block_index(void) {
  return vk_current ? vk_current->block : 0;
}
static uint32_t block_count(void) {
  return vk_current ? vk_current->blocks : 0;
}
static bp_device_thread_t current_thread(void) {
  return vk_current ? vk_current->thread : 0;
}

/* Batch mode: operations queued per thread until batch_end. */
typedef enum op_kind {
  OP_NOTIFY_RECORD,
  OP_NOTIFY_WAIT,
  OP_WRITE,
  OP_READ,
  OP_SIGNAL,
  OP_WAIT,
  OP_LOCAL_COPY,
} op_kind;

typedef struct device_op {
  op_kind kind;
  uint32_t notify_id, timeout_ms;
  bp_channel_t channel;
  uint64_t offset, size;
  const void *src;
  void *dst;
} device_op;

typedef struct batch {
  bool active;
  char tag[160];
  device_op *ops;
  size_t count, capacity;
} batch;

static _Thread_local batch g_batch;

void vk_batch_abandon(void) {
  free(g_batch.ops);
  memset(&g_batch, 0, sizeof g_batch);
}

static int run_op(const device_op *op) {
  switch (op->kind) {
  case OP_NOTIFY_RECORD: {
    struct BP_Notify_st *notify = vk_notify_lookup(op->notify_id);
    if (!notify)
      return BP_ERR_NOT_FOUND;
    vk_notify_set(notify);
    return BP_OK;
  }
  case OP_NOTIFY_WAIT: {
    struct BP_Notify_st *notify = vk_notify_lookup(op->notify_id);
    if (!notify)
      return BP_ERR_NOT_FOUND;
    return vk_notify_take(notify, vk_deadline_ms(op->timeout_ms))
               ? BP_OK
               : BP_ERR_TIMEOUT;
  }
  case OP_WRITE:
    return vk_channel_write(op->channel, op->offset, op->src, op->size);
  case OP_READ:
    return vk_channel_read(op->channel, op->dst, op->offset, op->size);
  case OP_SIGNAL:
    return vk_channel_signal(op->channel);
  case OP_WAIT:
    return vk_channel_wait(op->channel, vk_deadline_ms(op->timeout_ms));
  case OP_LOCAL_COPY:
    if (op->size && (!op->dst || !op->src))
      return BP_ERR_INVALID_ARGUMENT;
    memmove(op->dst, op->src, op->size);
    return BP_OK;
  }
  return BP_ERR_INVALID_ARGUMENT;
}

/* Runs `op` now, or queues it while a batch is open. */
static int submit(const device_op *op) {
  if (!vk_current)
    return BP_DEVICE_ERR_NOT_IN_KERNEL;
  if (!g_batch.active)
    return run_op(op);
  if (g_batch.count == g_batch.capacity) {
    size_t capacity = g_batch.capacity ? 2 * g_batch.capacity : 16;
    device_op *ops = realloc(g_batch.ops, capacity * sizeof *ops);
    if (!ops)
      return BP_ERR_OUT_OF_MEMORY;
    g_batch.ops = ops;
    g_batch.capacity = capacity;
  }
  g_batch.ops[g_batch.count++] = *op;
  return BP_OK;
}

static int notify_record(bp_device_thread_t thread, uint32_t id) {
  (void)thread;
  return submit(&(device_op){.kind = OP_NOTIFY_RECORD, .notify_id = id});
}

static int notify_wait(bp_device_thread_t thread, uint32_t id,
                       uint32_t timeout_ms) {
  (void)thread;
  return submit(&(device_op){
      .kind = OP_NOTIFY_WAIT, .notify_id = id, .timeout_ms = timeout_ms});
}

static int channel_write(bp_channel_t channel, uint64_t offset, const void *src,
                         uint64_t size, uint32_t timeout_ms) {
  return submit(&(device_op){.kind = OP_WRITE,
                             .channel = channel,
                             .offset = offset,
                             .src = src,
                             .size = size,
                             .timeout_ms = timeout_ms});
}

static int channel_read(bp_channel_t channel, void *dst, uint64_t offset,
                        uint64_t size, uint32_t timeout_ms) {
  return submit(&(device_op){.kind = OP_READ,
                             .channel = channel,
                             .offset = offset,
                             .dst = dst,
                             .size = size,
                             .timeout_ms = timeout_ms});
}

static int channel_signal(bp_channel_t channel, uint32_t timeout_ms) {
  return submit(&(device_op){
      .kind = OP_SIGNAL, .channel = channel, .timeout_ms = timeout_ms});
}

static int channel_wait(bp_channel_t channel, uint32_t timeout_ms) {
  return submit(&(device_op){
      .kind = OP_WAIT, .channel = channel, .timeout_ms = timeout_ms});
}

static int local_copy(void *dst, const void *src, uint64_t size) {
  return submit(&(device_op){
      .kind = OP_LOCAL_COPY, .dst = dst, .src = src, .size = size});
}

static int batch_start(const char *tag) {
  if (!vk_current)
    return BP_DEVICE_ERR_NOT_IN_KERNEL;
  if (!tag || g_batch.active || strlen(tag) >= sizeof g_batch.tag)
    return BP_ERR_INVALID_ARGUMENT;
  g_batch.active = true;
  g_batch.count = 0;
  strcpy(g_batch.tag, tag);
  return BP_OK;
}

static int batch_end(const char *tag) {
  if (!vk_current)
    return BP_DEVICE_ERR_NOT_IN_KERNEL;
  if (!tag || !g_batch.active || strcmp(tag, g_batch.tag) != 0)
    return BP_ERR_INVALID_ARGUMENT;
  g_batch.active = false;
  int result = BP_OK;
  for (size_t i = 0; i < g_batch.count && result == BP_OK; ++i)
    result = run_op(&g_batch.ops[i]);
  g_batch.count = 0;
  return result;
}

static int comm_acquire(const char *name, bp_device_comm_t *out_comm) {
  if (!vk_current)
    return BP_DEVICE_ERR_NOT_IN_KERNEL;
  return vk_comm_acquire(vk_current->device_id, name, out_comm);
}

static int comm_release(const char *name) {
  if (!vk_current)
    return BP_DEVICE_ERR_NOT_IN_KERNEL;
  return vk_comm_release(vk_current->device_id, name);
}

const bp_kernel_device_api_t vk_device_api = {
    .struct_size = sizeof(bp_kernel_device_api_t),
    .block_index = block_index,
    .block_count = block_count,
    .current_thread = current_thread,
    .notify_record = notify_record,
    .notify_wait = notify_wait,
    .comm_acquire = comm_acquire,
    .comm_release = comm_release,
    .channel_write = channel_write,
    .channel_read = channel_read,
    .channel_signal = channel_signal,
    .channel_wait = channel_wait,
    .batch_start = batch_start,
    .batch_end = batch_end,
    .local_copy = local_copy,
};
