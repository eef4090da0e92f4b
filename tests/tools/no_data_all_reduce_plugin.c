/* A deliberately wrong plugin for `backplane check`: two synchronous
 * malloc-backed devices with right copies, and collectives whose
 * xccl_all_reduce returns success without moving any data (what Paddle's
 * custom_cpu reference plugin does: a barrier). The checker must report the
 * all-reduce checks as FAIL; every other collective is absent (SKIP). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "host_test_device.h"

#define NO_DATA_ID_BYTES 16

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
  host_test_device_fill(i, 2);
  i->xccl_get_unique_id_size = unique_id_size;
  i->xccl_get_unique_id = unique_id;
  i->xccl_comm_init_rank = comm_init_rank;
  i->xccl_destroy_comm = destroy_comm;
  i->xccl_all_reduce = all_reduce_moving_nothing;
}
