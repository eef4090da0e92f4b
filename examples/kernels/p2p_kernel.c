/* Seed 004's custom send/receive, rebuilt for Backplane: the kernel acquires
 * its communicator, opens a batch, waits for the host's notify, moves the
 * data over the channel to its peer, notifies the host back, closes the
 * batch and releases the communicator; any failure is a non-zero return.
 *
 * The sender copies its input into its communication buffer and signals the
 * peer; the receiver waits for that signal, reads the peer's buffer
 * (one-sided) into its output and signals back, so the sender knows the
 * buffer may be reused. */
#include <string.h>

#include "backplane/kernel_device.h"
#include "op_param.h"

#define EXPORT __attribute__((visibility("default")))

static int exec_op(const op_param *param, const bp_kernel_resources_t *res) {
  uint64_t bytes = param->count * op_element_size(param->data_type);
  bp_channel_t channel = res->channel[param->peer];
  if (bytes == 0 || bytes > res->local.size || channel == 0)
    return 1;
  int status = 0;
  if (param->op_type == OP_SEND) {
    status = bp_device_local_copy(res->local.addr, param->input, bytes);
    if (status == 0)
      status = bp_channel_signal(channel, CUSTOM_TIMEOUT_MS);
    if (status == 0)
      status = bp_channel_wait(channel, CUSTOM_TIMEOUT_MS);
  } else if (param->op_type == OP_RECEIVE) {
    status = bp_channel_wait(channel, CUSTOM_TIMEOUT_MS);
    if (status == 0)
      status =
          bp_channel_read(channel, param->output, 0, bytes, CUSTOM_TIMEOUT_MS);
    if (status == 0)
      status = bp_channel_signal(channel, CUSTOM_TIMEOUT_MS);
  } else {
    status = 1;
  }
  return status;
}

EXPORT unsigned int LaunchP2PKernel(void *arg) {
  op_param *param = arg;
  const bp_kernel_resources_t *res = param->resources;
  bp_device_comm_t comm;
  if (bp_device_comm_acquire(param->comm_name, &comm) != 0)
    return 1;
  bp_device_thread_t thread = res->thread;
  if (bp_device_batch_start(param->tag) != 0)
    return 2;
  /* The host stream's notify 0 says the inputs are ready. */
  if (bp_device_notify_wait(thread, res->notify_ids[0], CUSTOM_TIMEOUT_MS) != 0)
    return 3;
  if (exec_op(param, res) != 0)
    return 4;
  /* Notify 1 lets the host stream go on. */
  if (bp_device_notify_record(thread, res->notify_ids[1]) != 0)
    return 5;
  if (bp_device_batch_end(param->tag) != 0)
    return 6;
  if (bp_device_comm_release(param->comm_name) != 0)
    return 7;
  return 0;
}
