/* xccl_* over NCCL. */
#include "comm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_library.h"
#include "stream.h"

struct C_CCLComm_st {
  ncclComm_t comm;
  cu_device_t *dev;
  int nranks;
};

static bool data_type(C_DataType type, ncclDataType_t *out) {
  switch (type) {
  case BOOL:
  case UINT8:
    *out = ncclUint8;
    return true;
  case INT8:
    *out = ncclInt8;
    return true;
  case INT32:
    *out = ncclInt32;
    return true;
  case UINT32:
    *out = ncclUint32;
    return true;
  case INT64:
    *out = ncclInt64;
    return true;
  case UINT64:
    *out = ncclUint64;
    return true;
  case FLOAT16:
    *out = ncclFloat16;
    return true;
  case BFLOAT16:
    *out = ncclBfloat16;
    return true;
  case FLOAT32:
    *out = ncclFloat32;
    return true;
  case FLOAT64:
    *out = ncclFloat64;
    return true;
  default:
    return false;
  }
}

static bool reduce_op(C_CCLReduceOp op, ncclRedOp_t *out) {
  switch (op) {
  case SUM:
    *out = ncclSum;
    return true;
  case AVG:
    *out = ncclAvg;
    return true;
  case MAX:
    *out = ncclMax;
    return true;
  case MIN:
    *out = ncclMin;
    return true;
  case PRODUCT:
    *out = ncclProd;
    return true;
  default:
    return false;
  }
}

/* What every collective checks: NCCL, a communicator, its device made
 * current, the type (and op) and the stream. NULL (with a message) on
 * failure. */
typedef struct call {
  const cu_nccl_t *nccl;
  ncclDataType_t type;
  ncclRedOp_t op;
  cudaStream_t stream;
} call_t;

static C_Status prepare(const char *function, C_CCLComm comm, C_DataType type,
                        const C_CCLReduceOp *op, C_Stream stream, call_t *out) {
  out->nccl = cu_nccl();
  if (!out->nccl)
    return C_FAILED;
  if (!comm)
    return cu_fail(C_ERROR, "cuda %s: comm is NULL", function);
  if (!cu_device_enter(&comm->dev->handle))
    return C_ERROR;
  if (!data_type(type, &out->type))
    return cu_unsupported("cuda %s: NCCL has no data type for C_DataType %d",
                          function, (int)type);
  if (op && !reduce_op(*op, &out->op))
    return cu_fail(C_ERROR, "cuda %s: unknown reduce op %d", function,
                   (int)*op);
  out->stream = NULL;
  if (stream) {
    struct C_Stream_st *s = cu_stream_of(comm->dev, stream);
    if (!s)
      return C_ERROR;
    out->stream = s->stream;
  }
  return C_SUCCESS;
}

/* prepare, then checks that `rank` (the collective's root or peer, named
 * `role`) is one of the communicator's ranks. */
static C_Status prepare_ranked(const char *function, C_CCLComm comm,
                               C_DataType type, const C_CCLReduceOp *op,
                               const char *role, size_t rank, C_Stream stream,
                               call_t *out) {
  C_Status status = prepare(function, comm, type, op, stream, out);
  if (status == C_SUCCESS && rank >= (size_t)comm->nranks)
    return cu_fail(C_ERROR, "cuda %s: %s %zu of %d ranks", function, role, rank,
                   comm->nranks);
  return status;
}

static C_Status result(const cu_nccl_t *nccl, ncclResult_t r,
                       const char *what) {
  return r == ncclSuccess ? C_SUCCESS : cu_fail_nccl(nccl, r, what);
}

static C_Status get_unique_id_size(size_t *size) {
  if (!size)
    return cu_fail(C_ERROR, "cuda xccl_get_unique_id_size: size is NULL");
  *size = sizeof(ncclUniqueId);
  return C_SUCCESS;
}

static C_Status get_unique_id(C_CCLRootId *id) {
  if (!id || !id->data || id->sz < sizeof(ncclUniqueId))
    return cu_fail(C_ERROR,
                   "cuda xccl_get_unique_id: expected a buffer of %zu bytes, "
                   "got %zu",
                   sizeof(ncclUniqueId), id && id->data ? id->sz : 0);
  const cu_nccl_t *nccl = cu_nccl();
  if (!nccl)
    return C_FAILED;
  ncclUniqueId unique;
  C_Status status =
      result(nccl, nccl->get_unique_id(&unique), "ncclGetUniqueId");
  if (status == C_SUCCESS)
    memcpy(id->data, &unique, sizeof unique);
  return status;
}

static C_Status comm_init_rank(size_t nranks, C_CCLRootId *id, size_t rank,
                               C_CCLComm *out) {
  if (!out || !id || !id->data || id->sz < sizeof(ncclUniqueId) ||
      nranks == 0 || rank >= nranks || nranks > INT32_MAX)
    return cu_fail(C_ERROR,
                   "cuda xccl_comm_init_rank: expected a %zu-byte unique id, "
                   "rank < nranks and an out-pointer (rank %zu of %zu)",
                   sizeof(ncclUniqueId), rank, nranks);
  const cu_nccl_t *nccl = cu_nccl();
  cu_device_t *dev = cu_device_current();
  if (!nccl)
    return C_FAILED;
  if (!dev || !cu_device_enter(&dev->handle))
    return cu_fail(C_ERROR, "cuda xccl_comm_init_rank: not initialised");
  struct C_CCLComm_st *comm = calloc(1, sizeof *comm);
  if (!comm)
    return cu_fail(C_FAILED, "out of host memory");
  ncclUniqueId unique;
  memcpy(&unique, id->data, sizeof unique);
  ncclResult_t r =
      nccl->comm_init_rank(&comm->comm, (int)nranks, unique, (int)rank);
  if (r != ncclSuccess) {
    free(comm);
    return cu_fail_nccl(nccl, r, "ncclCommInitRank");
  }
  comm->dev = dev;
  comm->nranks = (int)nranks;
  *out = comm;
  return C_SUCCESS;
}

static C_Status destroy_comm(C_CCLComm comm) {
  const cu_nccl_t *nccl = cu_nccl();
  if (!comm)
    return cu_fail(C_ERROR, "cuda xccl_destroy_comm: comm is NULL");
  if (!nccl)
    return C_FAILED;
  cu_device_enter(&comm->dev->handle);
  ncclResult_t r = nccl->comm_destroy(comm->comm);
  free(comm);
  return result(nccl, r, "ncclCommDestroy");
}

static C_Status all_reduce(void *send, void *recv, size_t count,
                           C_DataType type, C_CCLReduceOp op, C_CCLComm comm,
                           C_Stream stream) {
  call_t c;
  C_Status s = prepare("xccl_all_reduce", comm, type, &op, stream, &c);
  return s ? s
           : result(c.nccl,
                    c.nccl->all_reduce(send, recv, count, c.type, c.op,
                                       comm->comm, c.stream),
                    "ncclAllReduce");
}

static C_Status broadcast(void *buf, size_t count, C_DataType type, size_t root,
                          C_CCLComm comm, C_Stream stream) {
  call_t c;
  C_Status s = prepare_ranked("xccl_broadcast", comm, type, NULL, "root", root,
                              stream, &c);
  return s ? s
           : result(c.nccl,
                    c.nccl->broadcast(buf, buf, count, c.type, (int)root,
                                      comm->comm, c.stream),
                    "ncclBroadcast");
}

static C_Status reduce(void *send, void *recv, size_t count, C_DataType type,
                       C_CCLReduceOp op, size_t root, C_CCLComm comm,
                       C_Stream stream) {
  call_t c;
  C_Status s =
      prepare_ranked("xccl_reduce", comm, type, &op, "root", root, stream, &c);
  return s ? s
           : result(c.nccl,
                    c.nccl->reduce(send, recv, count, c.type, c.op, (int)root,
                                   comm->comm, c.stream),
                    "ncclReduce");
}

static C_Status all_gather(void *send, void *recv, size_t count,
                           C_DataType type, C_CCLComm comm, C_Stream stream) {
  call_t c;
  C_Status s = prepare("xccl_all_gather", comm, type, NULL, stream, &c);
  return s ? s
           : result(c.nccl,
                    c.nccl->all_gather(send, recv, count, c.type, comm->comm,
                                       c.stream),
                    "ncclAllGather");
}

static C_Status reduce_scatter(void *send, void *recv, size_t count,
                               C_DataType type, C_CCLReduceOp op,
                               C_CCLComm comm, C_Stream stream) {
  call_t c;
  C_Status s = prepare("xccl_reduce_scatter", comm, type, &op, stream, &c);
  return s ? s
           : result(c.nccl,
                    c.nccl->reduce_scatter(send, recv, count, c.type, c.op,
                                           comm->comm, c.stream),
                    "ncclReduceScatter");
}

static C_Status group_start(void) {
  const cu_nccl_t *nccl = cu_nccl();
  return nccl ? result(nccl, nccl->group_start(), "ncclGroupStart") : C_FAILED;
}

static C_Status group_end(void) {
  const cu_nccl_t *nccl = cu_nccl();
  return nccl ? result(nccl, nccl->group_end(), "ncclGroupEnd") : C_FAILED;
}

/* A send to `peer` (`sending`) or a receive from it. */
static C_Status point_to_point(bool sending, void *buf, size_t count,
                               C_DataType type, size_t peer, C_CCLComm comm,
                               C_Stream stream) {
  call_t c;
  C_Status s = prepare_ranked(sending ? "xccl_send" : "xccl_recv", comm, type,
                              NULL, "peer", peer, stream, &c);
  if (s)
    return s;
  ncclResult_t r =
      sending
          ? c.nccl->send(buf, count, c.type, (int)peer, comm->comm, c.stream)
          : c.nccl->recv(buf, count, c.type, (int)peer, comm->comm, c.stream);
  return result(c.nccl, r, sending ? "ncclSend" : "ncclRecv");
}

static C_Status send_to(void *buf, size_t count, C_DataType type, size_t peer,
                        C_CCLComm comm, C_Stream stream) {
  return point_to_point(true, buf, count, type, peer, comm, stream);
}

static C_Status recv_from(void *buf, size_t count, C_DataType type, size_t peer,
                          C_CCLComm comm, C_Stream stream) {
  return point_to_point(false, buf, count, type, peer, comm, stream);
}

/* One send and one receive per peer inside a group. */
static C_Status all_to_all(const void **send_buf, const size_t *send_count,
                           const C_DataType *send_type, void **recv_buf,
                           const size_t *recv_count,
                           const C_DataType *recv_type, size_t rank,
                           size_t nranks, C_CCLComm comm, C_Stream stream) {
  if (!send_buf || !send_count || !send_type || !recv_buf || !recv_count ||
      !recv_type || !comm || nranks != (size_t)comm->nranks || rank >= nranks)
    return cu_fail(C_ERROR, "cuda xccl_all_to_all: expected every array, a "
                            "communicator and rank < nranks == its size");
  C_Status status = group_start();
  for (size_t peer = 0; status == C_SUCCESS && peer < nranks; ++peer) {
    status = send_to((void *)send_buf[peer], send_count[peer], send_type[peer],
                     peer, comm, stream);
    if (status == C_SUCCESS)
      status = recv_from(recv_buf[peer], recv_count[peer], recv_type[peer],
                         peer, comm, stream);
  }
  C_Status ended = group_end();
  return status != C_SUCCESS ? status : ended;
}

static C_Status comm_abort(C_CCLComm comm) {
  const cu_nccl_t *nccl = cu_nccl();
  if (!comm)
    return cu_fail(C_ERROR, "cuda comm_abort: comm is NULL");
  if (!nccl)
    return C_FAILED;
  return result(nccl, nccl->comm_abort(comm->comm), "ncclCommAbort");
}

static int32_t ext_status_of(ncclResult_t r) {
  switch (r) {
  case ncclSuccess:
    return BP_COMM_EXT_OK;
  case ncclInvalidArgument:
  case ncclInvalidUsage:
    return BP_COMM_EXT_INVALID_USAGE;
  case ncclSystemError:
  case ncclRemoteError:
    return BP_COMM_EXT_SYSTEM_ERROR;
  default:
    return BP_COMM_EXT_INTERNAL;
  }
}

static C_Status comm_get_async_error(C_CCLComm comm, int32_t *out_status,
                                     char *message, size_t capacity) {
  const cu_nccl_t *nccl = cu_nccl();
  if (!comm || !out_status)
    return cu_fail(C_ERROR, "cuda comm_get_async_error: %s is NULL",
                   !comm ? "comm" : "out_status");
  if (!nccl)
    return C_FAILED;
  ncclResult_t async = ncclSuccess;
  C_Status status = result(nccl, nccl->comm_get_async_error(comm->comm, &async),
                           "ncclCommGetAsyncError");
  if (status != C_SUCCESS)
    return status;
  *out_status = ext_status_of(async);
  if (message && capacity)
    snprintf(message, capacity, "%s",
             async == ncclSuccess ? "" : nccl->get_error_string(async));
  return C_SUCCESS;
}

const BP_CommExtension cu_comm_extension = {
    .base = {.struct_size = sizeof(BP_CommExtension),
             .type = BP_EXTENSION_COMM,
             .next = NULL},
    .comm_abort = comm_abort,
    .comm_get_async_error = comm_get_async_error,
    .last_error = cu_last_error,
    .description = "NCCL: device-direct (NVLink, PCIe or network), on the "
                   "caller's CUDA stream",
};

void cu_comm_fill_interface(C_DeviceInterface *table) {
  table->xccl_get_unique_id_size = get_unique_id_size;
  table->xccl_get_unique_id = get_unique_id;
  table->xccl_comm_init_rank = comm_init_rank;
  table->xccl_destroy_comm = destroy_comm;
  table->xccl_all_reduce = all_reduce;
  table->xccl_broadcast = broadcast;
  table->xccl_reduce = reduce;
  table->xccl_all_gather = all_gather;
  table->xccl_reduce_scatter = reduce_scatter;
  table->xccl_group_start = group_start;
  table->xccl_group_end = group_end;
  table->xccl_send = send_to;
  table->xccl_recv = recv_from;
  table->xccl_all_to_all = all_to_all;
}
