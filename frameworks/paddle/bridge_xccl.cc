/* Paddle's collectives on Backplane's communicators. Paddle's C_DataType
 * and C_CCLReduceOp number their values as bp_dtype_t and bp_reduce_op_t do
 * (static assertions below), so they pass through unchanged. */
#include "bridge_xccl.h"

#include "bridge.h"

static_assert((int)FLOAT32 == (int)BP_DTYPE_FLOAT32 &&
                  (int)INT64 == (int)BP_DTYPE_INT64 &&
                  (int)BFLOAT16 == (int)BP_DTYPE_BFLOAT16 &&
                  (int)BOOL == (int)BP_DTYPE_BOOL,
              "C_DataType numbering is bp_dtype_t's");
static_assert((int)SUM == (int)BP_REDUCE_SUM &&
                  (int)PRODUCT == (int)BP_REDUCE_PRODUCT,
              "C_CCLReduceOp numbering is bp_reduce_op_t's");

#define COMM(c) reinterpret_cast<bp_comm_t *>(c)
#define STREAM(s) reinterpret_cast<bp_stream_t *>(s)
#define DTYPE(t) static_cast<bp_dtype_t>(t)
#define OP(o) static_cast<bp_reduce_op_t>(o)

static C_Status status_of(const char *call, bp_status_t status) {
  return bridge_note(call, status) == BP_OK ? C_SUCCESS : C_FAILED;
}

static C_Status unique_id_size(size_t *size) {
  bp_device_t *d = bridge_current_device();
  if (d == NULL)
    return C_ERROR;
  return status_of("bp_comm_unique_id_size", bp_comm_unique_id_size(d, size));
}

static C_Status unique_id(C_CCLRootId *id) {
  bp_device_t *d = bridge_current_device();
  if (d == NULL)
    return C_ERROR;
  return status_of("bp_comm_get_unique_id",
                   bp_comm_get_unique_id(d, id->data, id->sz));
}

static C_Status comm_init_rank(size_t nranks, C_CCLRootId *id, size_t rank,
                               C_CCLComm *comm) {
  bp_device_t *d = bridge_current_device();
  if (d == NULL)
    return C_ERROR;
  bp_comm_t *c = NULL;
  bp_status_t st = bp_comm_init_rank(d, nranks, id->data, id->sz, rank, &c);
  *comm = reinterpret_cast<C_CCLComm>(c);
  return status_of("bp_comm_init_rank", st);
}

static C_Status destroy_comm(C_CCLComm comm) {
  return status_of("bp_comm_destroy", bp_comm_destroy(COMM(comm)));
}

static C_Status all_reduce(void *send, void *recv, size_t count,
                           C_DataType dtype, C_CCLReduceOp op, C_CCLComm comm,
                           C_Stream stream) {
  return status_of("bp_comm_all_reduce",
                   bp_comm_all_reduce(send, recv, count, DTYPE(dtype), OP(op),
                                      COMM(comm), STREAM(stream)));
}

static C_Status broadcast(void *buf, size_t count, C_DataType dtype,
                          size_t root, C_CCLComm comm, C_Stream stream) {
  return status_of("bp_comm_broadcast",
                   bp_comm_broadcast(buf, count, DTYPE(dtype), root, COMM(comm),
                                     STREAM(stream)));
}

static C_Status reduce(void *send, void *recv, size_t count, C_DataType dtype,
                       C_CCLReduceOp op, size_t root, C_CCLComm comm,
                       C_Stream stream) {
  return status_of("bp_comm_reduce",
                   bp_comm_reduce(send, recv, count, DTYPE(dtype), OP(op), root,
                                  COMM(comm), STREAM(stream)));
}

static C_Status all_gather(void *send, void *recv, size_t count,
                           C_DataType dtype, C_CCLComm comm, C_Stream stream) {
  return status_of("bp_comm_all_gather",
                   bp_comm_all_gather(send, recv, count, DTYPE(dtype),
                                      COMM(comm), STREAM(stream)));
}

static C_Status reduce_scatter(void *send, void *recv, size_t count,
                               C_DataType dtype, C_CCLReduceOp op,
                               C_CCLComm comm, C_Stream stream) {
  return status_of("bp_comm_reduce_scatter",
                   bp_comm_reduce_scatter(send, recv, count, DTYPE(dtype),
                                          OP(op), COMM(comm), STREAM(stream)));
}

static C_Status group_start() {
  return status_of("bp_comm_group_start",
                   bp_comm_group_start(bridge_runtime()));
}

static C_Status group_end() {
  return status_of("bp_comm_group_end", bp_comm_group_end(bridge_runtime()));
}

static C_Status send(void *buf, size_t count, C_DataType dtype, size_t peer,
                     C_CCLComm comm, C_Stream stream) {
  return status_of("bp_comm_send", bp_comm_send(buf, count, DTYPE(dtype), peer,
                                                COMM(comm), STREAM(stream)));
}

static C_Status recv(void *buf, size_t count, C_DataType dtype, size_t peer,
                     C_CCLComm comm, C_Stream stream) {
  return status_of("bp_comm_recv", bp_comm_recv(buf, count, DTYPE(dtype), peer,
                                                COMM(comm), STREAM(stream)));
}

void bridge_xccl_fill(C_DeviceInterface *in) {
  in->xccl_get_unique_id_size = unique_id_size;
  in->xccl_get_unique_id = unique_id;
  in->xccl_comm_init_rank = comm_init_rank;
  in->xccl_destroy_comm = destroy_comm;
  in->xccl_all_reduce = all_reduce;
  in->xccl_broadcast = broadcast;
  in->xccl_reduce = reduce;
  in->xccl_all_gather = all_gather;
  in->xccl_reduce_scatter = reduce_scatter;
  in->xccl_group_start = group_start;
  in->xccl_group_end = group_end;
  in->xccl_send = send;
  in->xccl_recv = recv;
}
