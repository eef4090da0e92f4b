#include "comm/interface.h"

#include <string.h>

#include "comm/create.h"
#include "comm/failure.h"
#include "comm/id.h"
#include "comm/transport.h"

C_Status vcpu_comm_c_status(bp_status_t status) {
  switch (status) {
  case BP_OK:
    return C_SUCCESS;
  case BP_ERR_INVALID_ARGUMENT:
  case BP_ERR_UNSUPPORTED:
    return C_ERROR;
  default:
    return C_FAILED;
  }
}

static C_Status get_unique_id_size(size_t *size) {
  if (size == NULL)
    return vcpu_comm_c_status(vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT, "xccl_get_unique_id_size: size is NULL"));
  *size = VCPU_COMM_UNIQUE_ID_BYTES;
  return C_SUCCESS;
}

static C_Status get_unique_id(C_CCLRootId *unique_id) {
  if (unique_id == NULL || unique_id->data == NULL ||
      unique_id->sz < VCPU_COMM_UNIQUE_ID_BYTES)
    return vcpu_comm_c_status(vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT,
        "xccl_get_unique_id: needs a buffer of %d bytes (got %s)",
        VCPU_COMM_UNIQUE_ID_BYTES,
        unique_id == NULL ? "NULL" : "a smaller or NULL one"));
  vcpu_comm_unique_id_t id;
  if (!vcpu_comm_unique_id_generate(&id))
    return vcpu_comm_c_status(vcpu_comm_reject(
        BP_ERR_PLUGIN, "xccl_get_unique_id: no randomness from getrandom"));
  memcpy(unique_id->data, &id, sizeof id);
  unique_id->sz = VCPU_COMM_UNIQUE_ID_BYTES;
  return C_SUCCESS;
}

C_Status vcpu_comm_init_rank_calling(size_t nranks, C_CCLRootId *unique_id,
                                     size_t rank, vcpu_comm_call_fn call,
                                     C_CCLComm *comm) {
  bp_status_t status = vcpu_comm_create(nranks, unique_id, rank, comm);
  if (status == BP_OK)
    (*comm)->call = call;
  return vcpu_comm_c_status(status);
}

static C_Status init_rank(size_t nranks, C_CCLRootId *unique_id, size_t rank,
                          C_CCLComm *comm) {
  return vcpu_comm_init_rank_calling(nranks, unique_id, rank, NULL, comm);
}

static C_Status destroy_comm(C_CCLComm comm) {
  vcpu_comm_destroy(comm);
  return C_SUCCESS;
}

/* The library's own run of a described call. */
static C_Status run_call(vcpu_comm_desc_t d, C_CCLComm comm, C_Stream stream) {
  return vcpu_comm_c_status(d.kind >= VCPU_COMM_SEND
                                ? vcpu_comm_call_p2p(comm, d, stream)
                                : vcpu_comm_call_collective(comm, d, stream));
}

/* Where the wrappers below send a call: the communicator's own run when its
 * plugin gave one (vcpu_comm_init_rank_calling), else the library's. */
static C_Status dispatch(vcpu_comm_desc_t d, C_CCLComm comm, C_Stream stream) {
  if (comm != NULL && comm->call != NULL)
    return comm->call(d, comm, stream);
  return run_call(d, comm, stream);
}

static C_Status all_reduce(void *send_buf, void *recv_buf, size_t count,
                           C_DataType data_type, C_CCLReduceOp op,
                           C_CCLComm comm, C_Stream stream) {
  return dispatch((vcpu_comm_desc_t){.kind = VCPU_COMM_ALL_REDUCE,
                                     .send = send_buf,
                                     .recv = recv_buf,
                                     .count = count,
                                     .dtype = data_type,
                                     .op = op},
                  comm, stream);
}

static C_Status broadcast(void *buf, size_t count, C_DataType data_type,
                          size_t root, C_CCLComm comm, C_Stream stream) {
  return dispatch((vcpu_comm_desc_t){.kind = VCPU_COMM_BROADCAST,
                                     .send = buf,
                                     .recv = buf,
                                     .count = count,
                                     .dtype = data_type,
                                     .op = SUM,
                                     .peer = root},
                  comm, stream);
}

static C_Status reduce(void *send_buf, void *recv_buf, size_t count,
                       C_DataType data_type, C_CCLReduceOp op, size_t root,
                       C_CCLComm comm, C_Stream stream) {
  return dispatch((vcpu_comm_desc_t){.kind = VCPU_COMM_REDUCE,
                                     .send = send_buf,
                                     .recv = recv_buf,
                                     .count = count,
                                     .dtype = data_type,
                                     .op = op,
                                     .peer = root},
                  comm, stream);
}

static C_Status all_gather(void *send_buf, void *recv_buf, size_t count,
                           C_DataType data_type, C_CCLComm comm,
                           C_Stream stream) {
  return dispatch((vcpu_comm_desc_t){.kind = VCPU_COMM_ALL_GATHER,
                                     .send = send_buf,
                                     .recv = recv_buf,
                                     .count = count,
                                     .dtype = data_type,
                                     .op = SUM},
                  comm, stream);
}

static C_Status reduce_scatter(void *send_buf, void *recv_buf, size_t count,
                               C_DataType data_type, C_CCLReduceOp op,
                               C_CCLComm comm, C_Stream stream) {
  return dispatch((vcpu_comm_desc_t){.kind = VCPU_COMM_REDUCE_SCATTER,
                                     .send = send_buf,
                                     .recv = recv_buf,
                                     .count = count,
                                     .dtype = data_type,
                                     .op = op},
                  comm, stream);
}

static C_Status group_start(void) {
  vcpu_comm_group_start();
  return C_SUCCESS;
}

static C_Status group_end(void) {
  return vcpu_comm_c_status(vcpu_comm_group_end());
}

static C_Status send(void *send_buf, size_t count, C_DataType data_type,
                     size_t dest_rank, C_CCLComm comm, C_Stream stream) {
  return dispatch((vcpu_comm_desc_t){.kind = VCPU_COMM_SEND,
                                     .send = send_buf,
                                     .count = count,
                                     .dtype = data_type,
                                     .peer = dest_rank},
                  comm, stream);
}

static C_Status recv(void *recv_buf, size_t count, C_DataType data_type,
                     size_t src_rank, C_CCLComm comm, C_Stream stream) {
  return dispatch((vcpu_comm_desc_t){.kind = VCPU_COMM_RECV,
                                     .recv = recv_buf,
                                     .count = count,
                                     .dtype = data_type,
                                     .peer = src_rank},
                  comm, stream);
}

static C_Status all_to_all(const void **send_buf, const size_t *send_count,
                           const C_DataType *send_dtype, void **recv_buf,
                           const size_t *recv_count,
                           const C_DataType *recv_dtype, size_t rank,
                           size_t nranks, C_CCLComm comm, C_Stream stream) {
  if (comm != NULL && (rank != comm->rank || nranks != comm->nranks))
    return vcpu_comm_c_status(vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT,
        "all_to_all on %s: rank %zu of %zu given, the communicator is rank "
        "%zu of %zu",
        comm->name, rank, nranks, comm->rank, comm->nranks));
  return vcpu_comm_c_status(
      vcpu_comm_call_all_to_all(comm, send_buf, send_count, send_dtype,
                                recv_buf, recv_count, recv_dtype, stream));
}

void vcpu_comm_fill_interface(C_DeviceInterface *interface) {
  interface->xccl_get_unique_id_size = get_unique_id_size;
  interface->xccl_get_unique_id = get_unique_id;
  interface->xccl_comm_init_rank = init_rank;
  interface->xccl_destroy_comm = destroy_comm;
  interface->xccl_all_reduce = all_reduce;
  interface->xccl_broadcast = broadcast;
  interface->xccl_reduce = reduce;
  interface->xccl_all_gather = all_gather;
  interface->xccl_reduce_scatter = reduce_scatter;
  interface->xccl_group_start = group_start;
  interface->xccl_group_end = group_end;
  interface->xccl_send = send;
  interface->xccl_recv = recv;
  interface->xccl_all_to_all = all_to_all;
}

C_Status vcpu_comm_ext_abort(C_CCLComm comm) {
  if (comm == NULL)
    return vcpu_comm_c_status(
        vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT, "comm abort: comm is NULL"));
  vcpu_comm_abort(comm);
  return C_SUCCESS;
}

/* The comm extension's code for a communicator failure. */
static BP_CommExtStatus vcpu_comm_ext_status(bp_status_t status) {
  switch (status) {
  case BP_OK:
    return BP_COMM_EXT_OK;
  case BP_ERR_INVALID_ARGUMENT:
    return BP_COMM_EXT_INVALID_USAGE;
  case BP_ERR_OUT_OF_MEMORY:
    return BP_COMM_EXT_OUT_OF_MEMORY;
  case BP_ERR_UNSUPPORTED:
    return BP_COMM_EXT_UNSUPPORTED;
  case BP_ERR_TIMEOUT:
    return BP_COMM_EXT_TIMEOUT;
  case BP_ERR_ABORTED:
    return BP_COMM_EXT_ABORTED;
  case BP_ERR_PLUGIN:
    return BP_COMM_EXT_SYSTEM_ERROR;
  case BP_ERR_PEER_LOST:
    return BP_COMM_EXT_PEER_LOST;
  default:
    return BP_COMM_EXT_INTERNAL;
  }
}

C_Status vcpu_comm_ext_get_async_error(C_CCLComm comm, int32_t *out_status,
                                       char *message, size_t capacity) {
  if (comm == NULL || out_status == NULL)
    return vcpu_comm_c_status(vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT, "comm async error: comm or status is NULL"));
  *out_status =
      (int32_t)vcpu_comm_ext_status(vcpu_comm_error(comm, message, capacity));
  return C_SUCCESS;
}

const BP_CommExtension vcpu_comm_extension = {
    .base = {.struct_size = sizeof(BP_CommExtension),
             .type = BP_EXTENSION_COMM,
             .next = NULL},
    .comm_abort = vcpu_comm_ext_abort,
    .comm_get_async_error = vcpu_comm_ext_get_async_error,
    .last_error = vcpu_comm_last_error,
    .description = "in place in device memory over threads, shared memory "
                   "or Open MPI",
};
