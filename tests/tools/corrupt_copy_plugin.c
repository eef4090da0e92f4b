/* A deliberately wrong plugin for `backplane check`: one synchronous
 * malloc-backed device whose host-to-device copies flip one bit in the middle
 * of every copy. Everything else is right, so the checker must report FAIL
 * lines for the copies and nothing it cannot explain. */
#include <string.h>

#include "host_test_device.h"

/* The defect. */
static C_Status corrupting_h2d(const C_Device device, void *dst,
                               const void *src, size_t size) {
  memcpy(dst, src, size);
  if (size)
    ((unsigned char *)dst)[size / 2] ^= 0x10;
  return host_test_device_check(device);
}

__attribute__((visibility("default"))) void
InitPlugin(CustomRuntimeParams *params) {
  PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params);
  params->device_type = "corrupt_copy";
  params->sub_device_type = "test";
  host_test_device_fill(params->interface, 1);
  params->interface->memory_copy_h2d = corrupting_h2d;
}
