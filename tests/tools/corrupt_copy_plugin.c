/* A deliberately wrong plugin for `backplane check`: one synchronous
 * malloc-backed device whose host-to-device copies flip one bit in the middle
 * of every copy. Everything else is right, so the checker must report FAIL
 * lines for the copies and nothing it cannot explain. */
#include <stdlib.h>
#include <string.h>

#include "backplane/device_ext.h"

#define CORRUPT_MEMORY ((size_t)256 << 20)

static C_Status ok_device(const C_Device device) {
  return device && device->id == 0 ? C_SUCCESS : C_ERROR;
}

static C_Status get_device(const C_Device device) {
  device->id = 0;
  return C_SUCCESS;
}

static C_Status no_event(const C_Device device, C_Event *event) {
  (void)event;
  return ok_device(device);
}

static C_Status record_event(const C_Device device, C_Stream stream,
                             C_Event event) {
  (void)stream;
  (void)event;
  return ok_device(device);
}

static C_Status event_call(const C_Device device, C_Event event) {
  (void)event;
  return ok_device(device);
}

static C_Status allocate(const C_Device device, void **ptr, size_t size) {
  if (ok_device(device) != C_SUCCESS)
    return C_ERROR;
  *ptr = size <= CORRUPT_MEMORY ? malloc(size ? size : 1) : NULL;
  return *ptr ? C_SUCCESS : C_FAILED;
}

static C_Status deallocate(const C_Device device, void *ptr, size_t size) {
  (void)size;
  free(ptr);
  return ok_device(device);
}

static C_Status copy(const C_Device device, void *dst, const void *src,
                     size_t size) {
  memcpy(dst, src, size);
  return ok_device(device);
}

/* The defect. */
static C_Status corrupting_h2d(const C_Device device, void *dst,
                               const void *src, size_t size) {
  memcpy(dst, src, size);
  if (size)
    ((unsigned char *)dst)[size / 2] ^= 0x10;
  return ok_device(device);
}

static C_Status memory_stats(const C_Device device, size_t *total,
                             size_t *free_memory) {
  *total = CORRUPT_MEMORY;
  *free_memory = CORRUPT_MEMORY;
  return ok_device(device);
}

static C_Status device_count(size_t *count) {
  *count = 1;
  return C_SUCCESS;
}

static C_Status device_list(size_t *devices) {
  devices[0] = 0;
  return C_SUCCESS;
}

__attribute__((visibility("default"))) void
InitPlugin(CustomRuntimeParams *params) {
  PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params);
  params->device_type = "corrupt_copy";
  params->sub_device_type = "test";
  C_DeviceInterface *i = params->interface;
  i->set_device = ok_device;
  i->get_device = get_device;
  i->synchronize_device = ok_device;
  i->create_event = no_event;
  i->record_event = record_event;
  i->destroy_event = event_call;
  i->synchronize_event = event_call;
  i->device_memory_allocate = allocate;
  i->device_memory_deallocate = deallocate;
  i->memory_copy_h2d = corrupting_h2d;
  i->memory_copy_d2h = copy;
  i->memory_copy_d2d = copy;
  i->device_memory_stats = memory_stats;
  i->get_device_count = device_count;
  i->get_device_list = device_list;
}
