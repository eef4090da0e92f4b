/* A runtime plugin built the way a Paddle-3-era plugin is: against layout E
 * (paddle3_device_ext.h, 1128 bytes), with Paddle's version macro and the
 * custom_cpu habit of zeroing the whole table. One synchronous device in
 * host memory. Besides what Backplane's layout B has, it sets slots only E
 * has (xccl_get_comm_name, the device-taking get_compute_capability); the
 * ones B shares sit at other slots than in B (the collectives, the profiler,
 * blas_axpby), and answer with values the test recognizes. */
#include <stdlib.h>
#include <string.h>

#include "paddle3_device_ext.h"

#define EXPORT __attribute__((visibility("default")))

static C_Status ok_device(const C_Device device) {
  (void)device;
  return C_SUCCESS;
}

static C_Status get_device(const C_Device device) {
  device->id = 0;
  return C_SUCCESS;
}

static C_Status create_event(const C_Device device, C_Event *event) {
  (void)device;
  *event = (C_Event)(uintptr_t)1; /* synchronous: nothing to wait for */
  return C_SUCCESS;
}

static C_Status record_event(const C_Device device, C_Stream stream,
                             C_Event event) {
  (void)device, (void)stream, (void)event;
  return C_SUCCESS;
}

static C_Status ok_event(const C_Device device, C_Event event) {
  (void)device, (void)event;
  return C_SUCCESS;
}

static C_Status allocate(const C_Device device, void **ptr, size_t size) {
  (void)device;
  *ptr = malloc(size ? size : 1);
  return *ptr ? C_SUCCESS : C_FAILED;
}

static C_Status deallocate(const C_Device device, void *ptr, size_t size) {
  (void)device, (void)size;
  free(ptr);
  return C_SUCCESS;
}

static C_Status copy(const C_Device device, void *dst, const void *src,
                     size_t size) {
  (void)device;
  memmove(dst, src, size);
  return C_SUCCESS;
}

static C_Status device_count(size_t *count) {
  *count = 1;
  return C_SUCCESS;
}

static C_Status device_list(size_t *devices) {
  devices[0] = 0;
  return C_SUCCESS;
}

static C_Status compute_capability(const C_Device device, size_t *value) {
  (void)device;
  *value = 75;
  return C_SUCCESS;
}

static C_Status comm_name(C_CCLComm comm, char *name) {
  (void)comm;
  name[0] = '\0';
  return C_SUCCESS;
}

/* 24: a size no other slot would answer with. */
static C_Status unique_id_size(size_t *size) {
  *size = 24;
  return C_SUCCESS;
}

static C_Status profiler_initialize(C_Profiler prof, void **user_data) {
  (void)prof;
  *user_data = (void *)(uintptr_t)0xE103;
  return C_SUCCESS;
}

/* y = alpha * x + beta * y, float32 only. */
static C_Status axpby(const C_Device device, C_Stream stream, C_DataType dtype,
                      size_t numel, float alpha, void *x, float beta, void *y) {
  (void)device, (void)stream;
  if (dtype != FLOAT32)
    return C_ERROR;
  const float *xf = x;
  float *yf = y;
  for (size_t i = 0; i < numel; ++i)
    yf[i] = alpha * xf[i] + beta * yf[i];
  return C_SUCCESS;
}

EXPORT void InitPlugin(CustomRuntimeParams *params) {
  PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params);
  params->device_type = "paddle3";
  params->sub_device_type = "layout-e";
  C_DeviceInterface *table = params->interface;
  memset(table, 0, sizeof *table);
  table->set_device = ok_device;
  table->get_device = get_device;
  table->synchronize_device = ok_device;
  table->create_event = create_event;
  table->record_event = record_event;
  table->destroy_event = ok_event;
  table->synchronize_event = ok_event;
  table->device_memory_allocate = allocate;
  table->device_memory_deallocate = deallocate;
  table->memory_copy_h2d = copy;
  table->memory_copy_d2h = copy;
  table->memory_copy_d2d = copy;
  table->get_device_count = device_count;
  table->get_device_list = device_list;
  table->get_compute_capability = compute_capability;
  table->xccl_get_comm_name = comm_name;
  table->xccl_get_unique_id_size = unique_id_size;
  table->profiler_initialize = profiler_initialize;
  table->blas_axpby = axpby;
}
