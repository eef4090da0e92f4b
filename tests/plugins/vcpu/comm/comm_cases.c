#include "comm_cases.h"

#include <stdio.h>
#include <stdlib.h>

#include "comm_reference.h"
#include "plugins/vcpu/comm/interface.h"
#include "plugins/vcpu/memory.h"

int32_t settle(C_CCLComm comm, test_stream *stream, char message[512]) {
  test_stream_synchronize(stream);
  int32_t status = -1;
  vcpu_comm_ext_get_async_error(comm, &status, message, 512);
  return status;
}

typedef enum kind {
  ALL_REDUCE,
  REDUCE,
  BROADCAST,
  ALL_GATHER,
  REDUCE_SCATTER
} kind;

const C_DataType comm_case_dtypes[COMM_CASE_DTYPES] = {
    INT8,   INT16,  INT32,   INT64,    UINT8,   UINT16,
    UINT32, UINT64, FLOAT16, BFLOAT16, FLOAT32, FLOAT64};
const C_CCLReduceOp comm_case_ops[COMM_CASE_OPS] = {SUM, AVG, MAX, MIN,
                                                    PRODUCT};

static void *case_alloc(struct C_Device_st *device, size_t bytes) {
  if (!device)
    return malloc(bytes);
  void *ptr = NULL;
  return vcpu_device_memory_allocate(device, &ptr, bytes) == C_SUCCESS ? ptr
                                                                       : NULL;
}

static void case_release(struct C_Device_st *device, void *ptr, size_t bytes) {
  if (device)
    vcpu_device_memory_deallocate(device, ptr, bytes);
  else
    free(ptr);
}

int comm_case_run(const C_DeviceInterface *xccl, C_CCLComm comm,
                  test_stream *stream, size_t me, size_t n, comm_case_kind k,
                  C_DataType t, C_CCLReduceOp op, size_t count, bool in_place,
                  size_t root, struct C_Device_st *device) {
  size_t es = ref_dtype_size(t);
  size_t send_elems = k == CASE_REDUCE_SCATTER ? n * count : count;
  size_t recv_elems = k == CASE_ALL_GATHER ? n * count : count;
  char *send_mem = case_alloc(device, send_elems * es + 8);
  char *recv_mem = case_alloc(device, recv_elems * es + 8);
  char *send = send_mem, *recv = in_place ? send_mem : recv_mem;
  if (k == CASE_ALL_GATHER && in_place) {
    send = recv_mem + me * count * es;
    recv = recv_mem;
  } else if (k == CASE_REDUCE_SCATTER && in_place) {
    recv = send_mem + me * count * es;
  }
  for (size_t i = 0; i < send_elems; i++)
    ref_store(t, send, i, ref_value(t, me, i));
  C_Stream s = test_stream_handle(stream);
  C_Status called;
  switch (k) {
  case CASE_ALL_REDUCE:
    called = xccl->xccl_all_reduce(send, recv, count, t, op, comm, s);
    break;
  case CASE_REDUCE:
    called = xccl->xccl_reduce(send, recv, count, t, op, root, comm, s);
    break;
  case CASE_BROADCAST:
    called = xccl->xccl_broadcast(send, count, t, root, comm, s);
    recv = send;
    break;
  case CASE_ALL_GATHER:
    called = xccl->xccl_all_gather(send, recv, count, t, comm, s);
    break;
  default:
    called = xccl->xccl_reduce_scatter(send, recv, count, t, op, comm, s);
  }
  char message[512] = "";
  int failures = called != C_SUCCESS || settle(comm, stream, message) != 0;
  /* Off the root, reduce leaves the receive buffer alone: nothing to check. */
  size_t checked = k == CASE_REDUCE && me != root ? 0 : recv_elems;
  for (size_t i = 0; i < checked && !failures; i++) {
    double got = ref_load(t, recv, i), want;
    switch (k) {
    case CASE_ALL_REDUCE:
      want = ref_expected_reduction(t, op, n, i);
      break;
    case CASE_REDUCE:
      want = ref_expected_reduction(t, op, n, i);
      break;
    case CASE_BROADCAST:
      want = ref_value(t, root, i);
      break;
    case CASE_ALL_GATHER:
      want = ref_value(t, i / count, i % count);
      break;
    default:
      want = ref_expected_reduction(t, op, n, me * count + i);
    }
    if (!ref_close(t, got, want)) {
      fprintf(stderr,
              "rank %zu/%zu kind %d type %d op %d count %zu in_place %d: "
              "element %zu is %g, expected %g\n",
              me, n, (int)k, (int)t, (int)op, count, (int)in_place, i, got,
              want);
      failures = 1;
    }
  }
  if (called != C_SUCCESS || (failures && message[0] != '\0'))
    fprintf(stderr, "rank %zu: %s\n", me,
            called != C_SUCCESS ? vcpu_comm_last_error() : message);
  case_release(device, send_mem, send_elems * es + 8);
  case_release(device, recv_mem, recv_elems * es + 8);
  return failures;
}
