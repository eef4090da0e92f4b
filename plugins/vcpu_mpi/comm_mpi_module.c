/* The vcpu collectives over Open MPI (see plugins/vcpu/comm_mpi.h). Every
 * operation is a nonblocking MPI call polled to completion, so deadlines and
 * the abort flag hold even when a peer never shows up. float16/bfloat16 travel
 * as 2-byte derived types reduced by user ops; AVG is a sum divided once. */
#include <inttypes.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm_mpi.h"
#include "comm_reduce.h"

typedef struct mpi_world {
  MPI_Comm comm;
  size_t rank, nranks;
} mpi_world;

static pthread_once_t types_once = PTHREAD_ONCE_INIT;
static MPI_Datatype f16_type, bf16_type;
static MPI_Op user_ops[PRODUCT + 1]; /* for f16/bf16, by C_CCLReduceOp */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int fail(int status, char *error, size_t capacity, const char *format,
                ...) __attribute__((format(printf, 4, 5)));
static int fail(int status, char *error, size_t capacity, const char *format,
                ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error, capacity, format, args);
  va_end(args);
  return status;
}

static C_DataType half_type_of(MPI_Datatype *type) {
  return *type == bf16_type ? BFLOAT16 : FLOAT16;
}

#define DEFINE_USER_OP(name, op)                                               \
  static void name(void *in, void *inout, int *len, MPI_Datatype *type) {      \
    const void *srcs[2] = {in, inout};                                         \
    comm_reduce(inout, srcs, 2, (size_t)*len, half_type_of(type), op, 1);      \
  }
DEFINE_USER_OP(half_sum, SUM)
DEFINE_USER_OP(half_prod, PRODUCT)
DEFINE_USER_OP(half_max, MAX)
DEFINE_USER_OP(half_min, MIN)

static void create_types(void) {
  MPI_Type_contiguous(2, MPI_BYTE, &f16_type);
  MPI_Type_commit(&f16_type);
  MPI_Type_contiguous(2, MPI_BYTE, &bf16_type);
  MPI_Type_commit(&bf16_type);
  MPI_Op_create(half_sum, 1, &user_ops[SUM]);
  MPI_Op_create(half_sum, 1, &user_ops[AVG]);
  MPI_Op_create(half_prod, 1, &user_ops[PRODUCT]);
  MPI_Op_create(half_max, 1, &user_ops[MAX]);
  MPI_Op_create(half_min, 1, &user_ops[MIN]);
}

static MPI_Datatype mpi_type(C_DataType dtype) {
  switch (dtype) {
  case INT8:
    return MPI_INT8_T;
  case INT16:
    return MPI_INT16_T;
  case INT32:
    return MPI_INT32_T;
  case INT64:
    return MPI_INT64_T;
  case UINT8:
    return MPI_UINT8_T;
  case UINT16:
    return MPI_UINT16_T;
  case UINT32:
    return MPI_UINT32_T;
  case UINT64:
    return MPI_UINT64_T;
  case FLOAT16:
    return f16_type;
  case BFLOAT16:
    return bf16_type;
  case FLOAT32:
    return MPI_FLOAT;
  case FLOAT64:
    return MPI_DOUBLE;
  default:
    return MPI_DATATYPE_NULL;
  }
}

static MPI_Op mpi_op(C_DataType dtype, C_CCLReduceOp op) {
  if (dtype == FLOAT16 || dtype == BFLOAT16)
    return user_ops[op];
  switch (op) {
  case PRODUCT:
    return MPI_PROD;
  case MAX:
    return MPI_MAX;
  case MIN:
    return MPI_MIN;
  default: /* SUM, and AVG's sum */
    return MPI_SUM;
  }
}

/* Polls until the requests complete, the deadline passes or an abort. */
static int wait_all(MPI_Request *requests, int n, MPI_Status *statuses,
                    uint64_t deadline_ns, const atomic_bool *aborted,
                    const char *what, char *error, size_t capacity) {
  for (unsigned round = 0;; round++) {
    int done = 0;
    int rc = MPI_Testall(n, requests, &done, statuses);
    if (rc != MPI_SUCCESS) {
      char text[MPI_MAX_ERROR_STRING];
      int length = 0;
      MPI_Error_string(rc, text, &length);
      return fail(BP_ERR_PLUGIN, error, capacity, "%s: MPI failed: %s", what,
                  text);
    }
    if (done)
      return BP_OK;
    if (aborted && atomic_load(aborted))
      return fail(BP_ERR_ABORTED, error, capacity, "%s aborted", what);
    if (now_ns() > deadline_ns)
      return fail(BP_ERR_TIMEOUT, error, capacity,
                  "%s timed out: a peer rank never took part", what);
    if (round > 64) /* mpirun may oversubscribe: give the CPU away */
      sched_yield();
  }
}

static int create(uint64_t secret, size_t nranks, size_t rank,
                  uint64_t deadline_ns, void **out_handle, char *error,
                  size_t capacity) {
  int initialized = 0, provided = 0, size = 0, me = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
  else
    MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE)
    return fail(BP_ERR_UNSUPPORTED, error, capacity,
                "MPI was initialized without MPI_THREAD_MULTIPLE");
  pthread_once(&types_once, create_types);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if ((size_t)size != nranks || (size_t)me != rank)
    return fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                "rank %zu of %zu does not match MPI rank %d of %d", rank,
                nranks, me, size);
  mpi_world *world = calloc(1, sizeof *world);
  if (world == NULL)
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  MPI_Request request;
  MPI_Comm_idup(MPI_COMM_WORLD, &world->comm, &request);
  int status = wait_all(&request, 1, MPI_STATUSES_IGNORE, deadline_ns, NULL,
                        "MPI_Comm_idup", error, capacity);
  if (status != BP_OK) {
    free(world);
    return status;
  }
  MPI_Comm_set_errhandler(world->comm, MPI_ERRORS_RETURN);
  world->rank = rank;
  world->nranks = nranks;
  /* Every rank must present rank 0's secret. */
  uint64_t secrets[2] = {secret, ~secret}, highest[2];
  MPI_Iallreduce(secrets, highest, 2, MPI_UINT64_T, MPI_MAX, world->comm,
                 &request);
  status = wait_all(&request, 1, MPI_STATUSES_IGNORE, deadline_ns, NULL,
                    "checking the secrets", error, capacity);
  if (status == BP_OK && (highest[0] != secret || highest[1] != ~secret))
    status = fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                  "the ranks presented different secrets: refused");
  if (status != BP_OK) {
    MPI_Comm_free(&world->comm);
    free(world);
    return status;
  }
  *out_handle = world;
  return BP_OK;
}

static void destroy(void *handle) {
  mpi_world *world = handle;
  MPI_Comm_free(&world->comm);
  free(world);
}

/* A 64-bit fingerprint of the call, so ranks can compare them cheaply. */
static uint64_t fingerprint(const comm_desc *d) {
  uint64_t h = 1469598103934665603ull;
  uint64_t parts[5] = {(uint64_t)d->kind, d->count, (uint64_t)d->dtype,
                       (uint64_t)d->op, d->peer};
  if (d->kind == COMM_BROADCAST || d->kind == COMM_ALL_GATHER)
    parts[3] = 0;
  if (d->kind != COMM_BROADCAST && d->kind != COMM_REDUCE)
    parts[4] = 0;
  for (int i = 0; i < 5; i++)
    h = (h ^ parts[i]) * 1099511628211ull;
  return h;
}

static int check_same_call(mpi_world *world, const comm_desc *d,
                           uint64_t deadline_ns, const atomic_bool *aborted,
                           char *error, size_t capacity) {
  uint64_t mine = fingerprint(d);
  uint64_t values[2] = {mine, ~mine}, highest[2];
  MPI_Request request;
  MPI_Iallreduce(values, highest, 2, MPI_UINT64_T, MPI_MAX, world->comm,
                 &request);
  int status = wait_all(&request, 1, MPI_STATUSES_IGNORE, deadline_ns, aborted,
                        comm_kind_name(d->kind), error, capacity);
  if (status == BP_OK && (highest[0] != mine || highest[1] != ~mine))
    status = fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                  "mismatched collectives at sequence %" PRIu64
                  ": the ranks did not all call %s(count=%zu, %s)",
                  d->seq, comm_kind_name(d->kind), d->count,
                  comm_dtype_name(d->dtype));
  return status;
}

static int collective(void *handle, const comm_desc *d, uint64_t deadline_ns,
                      const atomic_bool *aborted, char *error,
                      size_t capacity) {
  mpi_world *world = handle;
  int status = check_same_call(world, d, deadline_ns, aborted, error, capacity);
  if (status != BP_OK)
    return status;
  MPI_Datatype type = mpi_type(d->dtype);
  MPI_Op op = mpi_op(d->dtype, d->op);
  int count = (int)d->count;
  if (d->count > (size_t)INT32_MAX)
    return fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                "%s: count %zu exceeds MPI's int counts",
                comm_kind_name(d->kind), d->count);
  const void *send = d->send == d->recv ? MPI_IN_PLACE : d->send;
  MPI_Request request = MPI_REQUEST_NULL;
  int root = (int)d->peer;
  size_t result_count = d->count;
  switch (d->kind) {
  case COMM_ALL_REDUCE:
    MPI_Iallreduce(send, d->recv, count, type, op, world->comm, &request);
    break;
  case COMM_BROADCAST:
    MPI_Ibcast(d->recv, count, type, root, world->comm, &request);
    break;
  case COMM_REDUCE:
    if (world->rank != d->peer)
      send = d->send; /* MPI_IN_PLACE is for the root only */
    MPI_Ireduce(send, d->recv, count, type, op, root, world->comm, &request);
    break;
  case COMM_ALL_GATHER: {
    size_t bytes = d->count * comm_dtype_size(d->dtype);
    send = (const char *)d->recv + world->rank * bytes == d->send ? MPI_IN_PLACE
                                                                  : d->send;
    MPI_Iallgather(send, count, type, d->recv, count, type, world->comm,
                   &request);
    break;
  }
  default: {
    size_t bytes = d->count * comm_dtype_size(d->dtype);
    /* In place (recv inside send) is not MPI's IN_PLACE layout: reduce into
     * a scratch buffer and copy, so the input is read whole first. */
    void *out = d->recv;
    if ((const char *)d->send + world->rank * bytes == d->recv && bytes)
      out = malloc(bytes);
    if (out == NULL)
      return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
    MPI_Ireduce_scatter_block(d->send, out, count, type, op, world->comm,
                              &request);
    status = wait_all(&request, 1, MPI_STATUSES_IGNORE, deadline_ns, aborted,
                      comm_kind_name(d->kind), error, capacity);
    if (out != d->recv) {
      if (status == BP_OK)
        memcpy(d->recv, out, bytes);
      free(out);
    }
    if (status == BP_OK && d->op == AVG)
      comm_reduce(d->recv, (const void *const[]){d->recv}, 1, d->count,
                  d->dtype, AVG, world->nranks);
    return status;
  }
  }
  status = wait_all(&request, 1, MPI_STATUSES_IGNORE, deadline_ns, aborted,
                    comm_kind_name(d->kind), error, capacity);
  bool has_result = d->kind == COMM_ALL_REDUCE ||
                    (d->kind == COMM_REDUCE && world->rank == d->peer);
  if (status == BP_OK && d->op == AVG && has_result)
    comm_reduce(d->recv, (const void *const[]){d->recv}, 1, result_count,
                d->dtype, AVG, world->nranks);
  return status;
}

static int p2p(void *handle, const comm_desc *ops, size_t n,
               uint64_t deadline_ns, const atomic_bool *aborted, char *error,
               size_t capacity) {
  mpi_world *world = handle;
  MPI_Request *requests = malloc((n ? n : 1) * sizeof *requests);
  MPI_Status *statuses = malloc((n ? n : 1) * sizeof *statuses);
  if (requests == NULL || statuses == NULL) {
    free(requests);
    free(statuses);
    return fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  }
  /* Bytes with a margin on receives, so a longer send shows as a mismatch
   * instead of an MPI truncation error. */
  for (size_t i = 0; i < n; i++) {
    size_t bytes = ops[i].count * comm_dtype_size(ops[i].dtype);
    if (ops[i].kind == COMM_SEND)
      MPI_Isend(ops[i].send, (int)bytes, MPI_BYTE, (int)ops[i].peer, 0,
                world->comm, &requests[i]);
    else
      MPI_Irecv(ops[i].recv, (int)bytes, MPI_BYTE, (int)ops[i].peer, 0,
                world->comm, &requests[i]);
  }
  int status = wait_all(requests, (int)n, statuses, deadline_ns, aborted,
                        "send/recv", error, capacity);
  for (size_t i = 0; i < n && status == BP_OK; i++) {
    if (ops[i].kind != COMM_RECV)
      continue;
    int received = 0;
    MPI_Get_count(&statuses[i], MPI_BYTE, &received);
    if ((size_t)received != ops[i].count * comm_dtype_size(ops[i].dtype))
      status = fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                    "mismatched recv #%" PRIu64
                    " from rank %zu: %d bytes arrived, %zu expected",
                    ops[i].seq, ops[i].peer, received,
                    ops[i].count * comm_dtype_size(ops[i].dtype));
  }
  free(requests);
  free(statuses);
  return status;
}

static const comm_mpi_module module = {
    .create = create,
    .destroy = destroy,
    .collective = collective,
    .p2p = p2p,
};

__attribute__((visibility("default"))) const comm_mpi_module *
BackplaneVcpuCommMpi(void) {
  return &module;
}
