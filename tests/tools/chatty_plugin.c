/* A correct plugin that prints to stdout, as some real plugins do (one of
 * PaddleCustomDevice's announces the compiler it was built with): when the
 * library is loaded, in InitPlugin, in initialize and in every device-count
 * and allocation call. None of it may reach the stdout of `backplane`,
 * whose --json output must stay parseable. Each line carries CHATTY_MARK. */
#include <stdio.h>

#include "host_test_device.h"

#define CHATTY_MARK "chatty plugin says"

static C_Status (*host_get_count)(size_t *count);
static C_Status (*host_allocate)(const C_Device device, void **ptr,
                                 size_t size);

__attribute__((constructor)) static void on_load(void) {
  printf(CHATTY_MARK " hello from the library constructor\n");
}

static C_Status chatty_initialize(void) {
  printf(CHATTY_MARK " initialize\n");
  fflush(stdout);
  return C_SUCCESS;
}

static C_Status chatty_get_count(size_t *count) {
  printf(CHATTY_MARK " get_device_count\n");
  return host_get_count(count);
}

static C_Status chatty_allocate(const C_Device device, void **ptr,
                                size_t size) {
  printf(CHATTY_MARK " allocating %zu bytes\n", size);
  fflush(stdout);
  return host_allocate(device, ptr, size);
}

__attribute__((visibility("default"))) void
InitPlugin(CustomRuntimeParams *params) {
  printf(CHATTY_MARK " InitPlugin\n");
  PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params);
  params->device_type = "chatty";
  params->sub_device_type = "test";
  host_test_device_fill(params->interface, 1);
  params->interface->initialize = chatty_initialize;
  host_get_count = params->interface->get_device_count;
  params->interface->get_device_count = chatty_get_count;
  host_allocate = params->interface->device_memory_allocate;
  params->interface->device_memory_allocate = chatty_allocate;
}
