#include "host_test_device.h"

#include <stdlib.h>
#include <string.h>

#define HOST_TEST_MEMORY ((size_t)256 << 20)

static int device_count_ = 1;
static _Thread_local int current_device;

C_Status host_test_device_check(const C_Device device) {
  return device && device->id >= 0 && device->id < device_count_ ? C_SUCCESS
                                                                 : C_ERROR;
}

static C_Status set_device(const C_Device device) {
  if (host_test_device_check(device) != C_SUCCESS)
    return C_ERROR;
  current_device = device->id;
  return C_SUCCESS;
}

static C_Status get_device(const C_Device device) {
  device->id = current_device;
  return C_SUCCESS;
}

static C_Status no_event(const C_Device device, C_Event *event) {
  (void)event;
  return host_test_device_check(device);
}

static C_Status record_event(const C_Device device, C_Stream stream,
                             C_Event event) {
  (void)stream;
  (void)event;
  return host_test_device_check(device);
}

static C_Status event_call(const C_Device device, C_Event event) {
  (void)event;
  return host_test_device_check(device);
}

static C_Status allocate(const C_Device device, void **ptr, size_t size) {
  if (host_test_device_check(device) != C_SUCCESS)
    return C_ERROR;
  *ptr = size <= HOST_TEST_MEMORY ? malloc(size ? size : 1) : NULL;
  return *ptr ? C_SUCCESS : C_FAILED;
}

static C_Status deallocate(const C_Device device, void *ptr, size_t size) {
  (void)size;
  free(ptr);
  return host_test_device_check(device);
}

static C_Status copy(const C_Device device, void *dst, const void *src,
                     size_t size) {
  memcpy(dst, src, size);
  return host_test_device_check(device);
}

static C_Status memory_stats(const C_Device device, size_t *total,
                             size_t *free_memory) {
  *total = HOST_TEST_MEMORY;
  *free_memory = HOST_TEST_MEMORY;
  return host_test_device_check(device);
}

static C_Status get_count(size_t *count) {
  *count = (size_t)device_count_;
  return C_SUCCESS;
}

static C_Status get_list(size_t *devices) {
  for (int d = 0; d < device_count_; d++)
    devices[d] = (size_t)d;
  return C_SUCCESS;
}

void host_test_device_fill(C_DeviceInterface *i, int device_count) {
  device_count_ = device_count;
  i->set_device = set_device;
  i->get_device = get_device;
  i->synchronize_device = host_test_device_check;
  i->create_event = no_event;
  i->record_event = record_event;
  i->destroy_event = event_call;
  i->synchronize_event = event_call;
  i->device_memory_allocate = allocate;
  i->device_memory_deallocate = deallocate;
  i->memory_copy_h2d = copy;
  i->memory_copy_d2h = copy;
  i->memory_copy_d2d = copy;
  i->device_memory_stats = memory_stats;
  i->get_device_count = get_count;
  i->get_device_list = get_list;
}
