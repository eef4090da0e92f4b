/* A kernel only the tests need: acquires and releases a communicator by
 * name, returning the device-side status (2 = BP_ERR_NOT_FOUND). */
#include "acquire_kernel.h"
#include "backplane/kernel_device.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT unsigned int acquire_kernel(void *param) {
  acquire_param *p = param;
  bp_device_comm_t comm = 0;
  int status = bp_device_comm_acquire(p->name, &comm);
  if (status == 0)
    status = bp_device_comm_release(p->name);
  return (unsigned)status;
}
