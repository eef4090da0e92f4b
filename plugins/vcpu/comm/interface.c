#include "comm/interface.h"

#include <string.h>

#include "comm/id.h"

static C_Status to_c_status(bp_status_t status) {
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
    return to_c_status(comm_reject(BP_ERR_INVALID_ARGUMENT,
                                   "xccl_get_unique_id_size: size is NULL"));
  *size = COMM_UNIQUE_ID_BYTES;
  return C_SUCCESS;
}

static C_Status get_unique_id(C_CCLRootId *unique_id) {
  if (unique_id == NULL || unique_id->data == NULL ||
      unique_id->sz < COMM_UNIQUE_ID_BYTES)
    return to_c_status(
        comm_reject(BP_ERR_INVALID_ARGUMENT,
                    "xccl_get_unique_id: needs a buffer of %d bytes (got %s)",
                    COMM_UNIQUE_ID_BYTES,
                    unique_id == NULL ? "NULL" : "a smaller or NULL one"));
  comm_unique_id id;
  if (!comm_unique_id_generate(&id))
    return to_c_status(comm_reject(
        BP_ERR_PLUGIN, "xccl_get_unique_id: no randomness from getrandom"));
  memcpy(unique_id->data, &id, sizeof id);
  unique_id->sz = COMM_UNIQUE_ID_BYTES;
  return C_SUCCESS;
}

static C_Status comm_init_rank(size_t nranks, C_CCLRootId *unique_id,
                               size_t rank, C_CCLComm *comm) {
  return to_c_status(comm_create(nranks, unique_id, rank, comm));
}

static C_Status destroy_comm(C_CCLComm comm) {
  comm_destroy(comm);
  return C_SUCCESS;
}

/* One collective of `comm` on `stream`, described by its arguments
 * (`op` and `peer` where the kind has them). */
static C_Status collective(comm_kind kind, void *send_buf, void *recv_buf,
                           size_t count, C_DataType data_type, C_CCLReduceOp op,
                           size_t peer, C_CCLComm comm, C_Stream stream) {
  comm_desc d = {.kind = kind,
                 .send = send_buf,
                 .recv = recv_buf,
                 .count = count,
                 .dtype = data_type,
                 .op = op,
                 .peer = peer};
  return to_c_status(comm_call_collective(comm, d, stream));
}

static C_Status all_reduce(void *send_buf, void *recv_buf, size_t count,
                           C_DataType data_type, C_CCLReduceOp op,
                           C_CCLComm comm, C_Stream stream) {
  return collective(COMM_ALL_REDUCE, send_buf, recv_buf, count, data_type, op,
                    0, comm, stream);
}

static C_Status broadcast(void *buf, size_t count, C_DataType data_type,
                          size_t root, C_CCLComm comm, C_Stream stream) {
  return collective(COMM_BROADCAST, buf, buf, count, data_type, SUM, root, comm,
                    stream);
}

static C_Status reduce(void *send_buf, void *recv_buf, size_t count,
                       C_DataType data_type, C_CCLReduceOp op, size_t root,
                       C_CCLComm comm, C_Stream stream) {
  return collective(COMM_REDUCE, send_buf, recv_buf, count, data_type, op, root,
                    comm, stream);
}

static C_Status all_gather(void *send_buf, void *recv_buf, size_t count,
                           C_DataType data_type, C_CCLComm comm,
                           C_Stream stream) {
  return collective(COMM_ALL_GATHER, send_buf, recv_buf, count, data_type, SUM,
                    0, comm, stream);
}

static C_Status reduce_scatter(void *send_buf, void *recv_buf, size_t count,
                               C_DataType data_type, C_CCLReduceOp op,
                               C_CCLComm comm, C_Stream stream) {
  return collective(COMM_REDUCE_SCATTER, send_buf, recv_buf, count, data_type,
                    op, 0, comm, stream);
}

static C_Status group_start(void) {
  comm_group_start();
  return C_SUCCESS;
}

static C_Status group_end(void) {
  return to_c_status(comm_group_end());
}

/* One send (recv_buf NULL) or receive (send_buf NULL) with `peer`. */
static C_Status point_to_point(comm_kind kind, void *send_buf, void *recv_buf,
                               size_t count, C_DataType data_type, size_t peer,
                               C_CCLComm comm, C_Stream stream) {
  comm_desc d = {.kind = kind,
                 .send = send_buf,
                 .recv = recv_buf,
                 .count = count,
                 .dtype = data_type,
                 .peer = peer};
  return to_c_status(comm_call_p2p(comm, d, stream));
}

static C_Status send(void *send_buf, size_t count, C_DataType data_type,
                     size_t dest_rank, C_CCLComm comm, C_Stream stream) {
  return point_to_point(COMM_SEND, send_buf, NULL, count, data_type, dest_rank,
                        comm, stream);
}

static C_Status recv(void *recv_buf, size_t count, C_DataType data_type,
                     size_t src_rank, C_CCLComm comm, C_Stream stream) {
  return point_to_point(COMM_RECV, NULL, recv_buf, count, data_type, src_rank,
                        comm, stream);
}

static C_Status all_to_all(const void **send_buf, const size_t *send_count,
                           const C_DataType *send_dtype, void **recv_buf,
                           const size_t *recv_count,
                           const C_DataType *recv_dtype, size_t rank,
                           size_t nranks, C_CCLComm comm, C_Stream stream) {
  if (comm != NULL && (rank != comm->rank || nranks != comm->nranks))
    return to_c_status(comm_reject(
        BP_ERR_INVALID_ARGUMENT,
        "all_to_all on %s: rank %zu of %zu given, the communicator is rank "
        "%zu of %zu",
        comm->name, rank, nranks, comm->rank, comm->nranks));
  return to_c_status(comm_call_all_to_all(comm, send_buf, send_count,
                                          send_dtype, recv_buf, recv_count,
                                          recv_dtype, stream));
}

void vcpu_comm_fill_interface(C_DeviceInterface *interface,
                              comm_enqueue_fn enqueue) {
  comm_set_enqueue(enqueue);
  interface->xccl_get_unique_id_size = get_unique_id_size;
  interface->xccl_get_unique_id = get_unique_id;
  interface->xccl_comm_init_rank = comm_init_rank;
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

C_Status vcpu_comm_abort(C_CCLComm comm) {
  if (comm == NULL)
    return to_c_status(
        comm_reject(BP_ERR_INVALID_ARGUMENT, "comm abort: comm is NULL"));
  comm_abort(comm);
  return C_SUCCESS;
}

/* The comm extension's code for a communicator failure. */
static BP_CommExtStatus comm_ext_status(bp_status_t status) {
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
  default:
    return BP_COMM_EXT_INTERNAL;
  }
}

C_Status vcpu_comm_get_async_error(C_CCLComm comm, int32_t *out_status,
                                   char *message, size_t capacity) {
  if (comm == NULL || out_status == NULL)
    return to_c_status(comm_reject(BP_ERR_INVALID_ARGUMENT,
                                   "comm async error: comm or status is NULL"));
  *out_status = (int32_t)comm_ext_status(comm_error(comm, message, capacity));
  return C_SUCCESS;
}

const char *vcpu_comm_last_error(void) {
  return comm_last_error();
}

const BP_CommExtension vcpu_comm_extension = {
    .base = {.struct_size = sizeof(BP_CommExtension),
             .type = BP_EXTENSION_COMM,
             .next = NULL},
    .comm_abort = vcpu_comm_abort,
    .comm_get_async_error = vcpu_comm_get_async_error,
    .last_error = vcpu_comm_last_error,
};
