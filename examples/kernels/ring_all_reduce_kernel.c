/* A custom all-reduce (float32 sum) as a kernel: the ranks pass data around
 * the ring, each step writing what it last received into the next rank's
 * communication buffer (one slot per step, so nothing is overwritten before
 * it is read) and adding what arrives from the previous rank. nranks - 1
 * steps; every rank moves (nranks - 1) * count elements, so this is the
 * simple ring, not the bandwidth-optimal reduce-scatter + all-gather one.
 * The communication buffer must hold (nranks - 1) * count floats. Like the
 * send/receive kernel it starts on the host's notify 0 and ends by recording
 * notify 1. */
#include "backplane/kernel_device.h"
#include "op_param.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT unsigned int RingAllReduceKernel(void *arg) {
  const op_param *param = arg;
  const bp_kernel_resources_t *res = param->resources;
  uint32_t n = res->nranks, rank = res->rank;
  uint64_t count = param->count, bytes = count * sizeof(float);
  if (param->data_type != BP_DTYPE_FLOAT32 || (n - 1) * bytes > res->local.size)
    return 1;
  if (bp_device_notify_wait(res->thread, res->notify_ids[0],
                            CUSTOM_TIMEOUT_MS) != 0)
    return 4;
  float *out = param->output;
  const float *in = param->input;
  for (uint64_t i = 0; i < count; ++i)
    out[i] = in[i];
  if (n == 1)
    return (unsigned)bp_device_notify_record(res->thread, res->notify_ids[1]);
  bp_channel_t next = res->channel[(rank + 1) % n];
  bp_channel_t prev = res->channel[(rank + n - 1) % n];
  const float *passing = in; /* what goes to the next rank this step */
  for (uint32_t step = 0; step + 1 < n; ++step) {
    if (bp_channel_write(next, step * bytes, passing, bytes,
                         CUSTOM_TIMEOUT_MS) != 0 ||
        bp_channel_signal(next, CUSTOM_TIMEOUT_MS) != 0 ||
        bp_channel_wait(prev, CUSTOM_TIMEOUT_MS) != 0)
      return 2;
    const float *arrived =
        (const float *)((char *)res->local.addr + step * bytes);
    for (uint64_t i = 0; i < count; ++i)
      out[i] += arrived[i];
    passing = arrived;
  }
  /* Done: the previous rank may reuse our buffer once we said so. */
  if (bp_channel_signal(prev, CUSTOM_TIMEOUT_MS) != 0 ||
      bp_channel_wait(next, CUSTOM_TIMEOUT_MS) != 0)
    return 3;
  return (unsigned)bp_device_notify_record(res->thread, res->notify_ids[1]);
}
