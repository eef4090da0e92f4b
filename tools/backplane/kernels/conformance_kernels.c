/* The kernels `backplane check` and `backplane bench launch` launch (the
 * kernel tests too). Each takes one parameter struct (conformance_kernels.h)
 * and returns 0 on success. Built as libbackplane_check_kernels.so into
 * <libdir>/backplane/kernels/. */
#include <stdatomic.h>
#include <time.h>

#include "backplane/kernel_device.h"
#include "conformance_kernels.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT unsigned int empty_kernel(void *param) {
  (void)param;
  return 0;
}

EXPORT unsigned int append_kernel(void *param) {
  append_param *p = param;
  int slot = atomic_fetch_add((_Atomic int *)p->position, 1);
  p->log[slot] = p->value;
  return 0;
}

EXPORT unsigned int block_kernel(void *param) {
  block_param *p = param;
  p->seen[bp_block_index()] = (int)(bp_block_count() * 1000 + bp_block_index());
  return 0;
}

EXPORT unsigned int fail_kernel(void *param) {
  return ((fail_param *)param)->code;
}

EXPORT unsigned int sleep_kernel(void *param) {
  sleep_param *p = param;
  struct timespec delay = {(time_t)(p->ms / 1000),
                           (long)(p->ms % 1000) * 1000000};
  nanosleep(&delay, NULL);
  return 0;
}

EXPORT unsigned int notify_kernel(void *param) {
  notify_param *p = param;
  bp_device_thread_t thread = bp_device_thread();
  int status = bp_device_notify_wait(thread, p->wait_id, p->timeout_ms);
  if (status != 0)
    return (unsigned)status;
  return (unsigned)bp_device_notify_record(thread, p->record_id);
}

EXPORT unsigned int spin_kernel(void *param) {
  spin_param *p = param;
  uint64_t share = p->iterations / bp_block_count();
  double x = 1.0 + bp_block_index();
  for (uint64_t i = 0; i < share; ++i)
    x = x * 1.0000001 + 1e-9;
  p->out[bp_block_index()] = x;
  return 0;
}
