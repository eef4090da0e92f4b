/* A deliberately wrong plugin for `backplane check`: two synchronous
 * malloc-backed devices with right copies, and collectives whose
 * xccl_all_reduce returns success without moving any data (what Paddle's
 * custom_cpu reference plugin does: a barrier). The checker must report the
 * all-reduce checks as FAIL; every other collective is absent (SKIP). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/device_ext.h"

#define NO_DATA_MEMORY ((size_t)256 << 20)
#define NO_DATA_DEVICES 2
#define NO_DATA_ID_BYTES 16

static _Thread_local int current_device;

static C_Status ok_device(const C_Device device) {
  return device && device->id >= 0 && device->id < NO_DATA_DEVICES ? C_SUCCESS
                                                                   : C_ERROR;
}

static C_Status set_device(const C_Device device) {
  if (ok_device(device) != C_SUCCESS)
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
  *ptr = size <= NO_DATA_MEMORY ? malloc(size ? size : 1) : NULL;
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

static C_Status memory_stats(const C_Device device, size_t *total,
                             size_t *free_memory) {
  *total = NO_DATA_MEMORY;
  *free_memory = NO_DATA_MEMORY;
  return ok_device(device);
}

static C_Status device_count(size_t *count) {
  *count = NO_DATA_DEVICES;
  return C_SUCCESS;
}

static C_Status device_list(size_t *devices) {
  for (size_t d = 0; d < NO_DATA_DEVICES; d++)
    devices[d] = d;
  return C_SUCCESS;
}

/* Communicators: a rank number; unique ids: a counter, so two differ. */
struct C_CCLComm_st {
  size_t rank;
};

static C_Status unique_id_size(size_t *size) {
  *size = NO_DATA_ID_BYTES;
  return C_SUCCESS;
}

static C_Status unique_id(C_CCLRootId *id) {
  static atomic_uint next_id;
  if (id == NULL || id->sz < NO_DATA_ID_BYTES || id->data == NULL)
    return C_ERROR;
  memset(id->data, 0, NO_DATA_ID_BYTES);
  unsigned value = atomic_fetch_add(&next_id, 1) + 1;
  memcpy(id->data, &value, sizeof value);
  return C_SUCCESS;
}

static C_Status comm_init_rank(size_t nranks, C_CCLRootId *id, size_t rank,
                               C_CCLComm *comm) {
  if (id == NULL || rank >= nranks || comm == NULL)
    return C_ERROR;
  *comm = malloc(sizeof **comm);
  if (*comm == NULL)
    return C_FAILED;
  (*comm)->rank = rank;
  return C_SUCCESS;
}

static C_Status destroy_comm(C_CCLComm comm) {
  free(comm);
  return C_SUCCESS;
}

/* The defect: success, and not a byte moved. */
static C_Status all_reduce_moving_nothing(void *send, void *recv, size_t count,
                                          C_DataType dtype, C_CCLReduceOp op,
                                          C_CCLComm comm, C_Stream stream) {
  (void)send;
  (void)recv;
  (void)count;
  (void)dtype;
  (void)op;
  (void)stream;
  return comm ? C_SUCCESS : C_ERROR;
}

__attribute__((visibility("default"))) void
InitPlugin(CustomRuntimeParams *params) {
  PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params);
  params->device_type = "no_data_all_reduce";
  params->sub_device_type = "test";
  C_DeviceInterface *i = params->interface;
  i->set_device = set_device;
  i->get_device = get_device;
  i->synchronize_device = ok_device;
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
  i->get_device_count = device_count;
  i->get_device_list = device_list;
  i->xccl_get_unique_id_size = unique_id_size;
  i->xccl_get_unique_id = unique_id;
  i->xccl_comm_init_rank = comm_init_rank;
  i->xccl_destroy_comm = destroy_comm;
  i->xccl_all_reduce = all_reduce_moving_nothing;
}
