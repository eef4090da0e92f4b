/* Every collective of the MPI transport but all_reduce (mpi_collectives.h):
 * Open MPI's nonblocking collectives polled to completion. */
#include "mpi_collectives.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_call_words.h"
#include "mpi_wait.h"
#include "reduce/reduce.h"

static pthread_once_t types_once = PTHREAD_ONCE_INIT;
static MPI_Datatype f16_type, bf16_type;
static MPI_Op user_ops[PRODUCT + 1]; /* for f16/bf16, by C_CCLReduceOp */

static C_DataType half_type_of(MPI_Datatype *type) {
  return *type == bf16_type ? BFLOAT16 : FLOAT16;
}

#define DEFINE_USER_OP(name, op)                                               \
  static void name(void *in, void *inout, int *len, MPI_Datatype *type) {      \
    const void *srcs[2] = {in, inout};                                         \
    vcpu_comm_reduce(inout, srcs, 2, (size_t)*len, half_type_of(type), op, 1); \
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

void mpi_collectives_init(void) {
  pthread_once(&types_once, create_types);
}

static MPI_Datatype mpi_type_of(C_DataType dtype) {
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

static MPI_Op mpi_op_of(C_DataType dtype, C_CCLReduceOp op) {
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

/* The call check: every rank's call at this sequence number, all-gathered
 * into world->calls. check_start posts it; check_finish waits for it and
 * names a rank that called something else, with what it called. */
static MPI_Request check_start(mpi_world *world, const vcpu_comm_desc_t *d) {
  world->at_seq = d->seq;
  uint64_t *mine = world->calls + world->nranks * CALL_WORDS;
  mpi_call_to_words(d, mine);
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallgather(mine, CALL_WORDS, MPI_UINT64_T, world->calls, CALL_WORDS,
                 MPI_UINT64_T, world->comm, &request);
  return request;
}

static int check_finish(mpi_world *world, const vcpu_comm_desc_t *d,
                        MPI_Request *request, uint64_t deadline_ns,
                        const atomic_bool *aborted, char *error,
                        size_t capacity) {
  int status = mpi_wait_all(world, request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                            aborted, mpi_call_name(d), error, capacity);
  status = mpi_name_the_missing(world, status, d->seq, error, capacity);
  return status == BP_OK ? mpi_compare_calls(world, d, error, capacity)
                         : status;
}

/* reduce_scatter: in place (recv inside send) is not MPI's IN_PLACE layout,
 * so it reduces into a scratch buffer and copies, reading the input whole
 * first. */
static int reduce_scatter(mpi_world *world, const vcpu_comm_desc_t *d,
                          uint64_t deadline_ns, const atomic_bool *aborted,
                          char *error, size_t capacity) {
  size_t bytes = d->count * vcpu_comm_dtype_size(d->dtype);
  void *out = d->recv;
  if ((const char *)d->send + world->rank * bytes == d->recv && bytes)
    out = malloc(bytes);
  if (out == NULL)
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  MPI_Request request;
  MPI_Ireduce_scatter_block(d->send, out, (int)d->count, mpi_type_of(d->dtype),
                            mpi_op_of(d->dtype, d->op), world->comm, &request);
  int status =
      mpi_wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                   aborted, mpi_call_name(d), error, capacity);
  if (out != d->recv) {
    if (status == BP_OK)
      memcpy(d->recv, out, bytes);
    if (status == BP_OK || !world->abandoned)
      free(out); /* an abandoned request may still write into it */
  }
  return status;
}

/* The most bytes one nonblocking collective carries: Open MPI's libnbc
 * progresses a schedule's rounds by recursion, and a 64 MiB reduce between
 * two hosts (thousands of segments) overflowed the stream worker's 8 MiB
 * stack inside one MPI_Testall. Larger broadcasts and reduces go as
 * consecutive collectives of at most this size. */
enum { COLLECTIVE_CHUNK_BYTES = 4 << 20 };

/* Posts one broadcast or reduce of `count` elements from element `first`
 * and waits for it. */
static int rooted(mpi_world *world, const vcpu_comm_desc_t *d, size_t first,
                  int count, uint64_t deadline_ns, const atomic_bool *aborted,
                  char *error, size_t capacity) {
  size_t offset = first * vcpu_comm_dtype_size(d->dtype);
  MPI_Datatype type = mpi_type_of(d->dtype);
  MPI_Op op = mpi_op_of(d->dtype, d->op);
  const void *send =
      d->send == d->recv ? MPI_IN_PLACE : (const char *)d->send + offset;
  void *recv = (char *)d->recv + offset;
  int root = (int)d->peer;
  MPI_Request request = MPI_REQUEST_NULL;
  if (d->kind == VCPU_COMM_BROADCAST) {
    MPI_Ibcast(recv, count, type, root, world->comm, &request);
  } else {
    if (world->rank != d->peer) /* MPI_IN_PLACE is for the root only */
      send = (const char *)d->send + offset;
    MPI_Ireduce(send, recv, count, type, op, root, world->comm, &request);
  }
  return mpi_wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                      aborted, mpi_call_name(d), error, capacity);
}

/* Every collective but all_reduce. */
static int run(mpi_world *world, const vcpu_comm_desc_t *d,
               uint64_t deadline_ns, const atomic_bool *aborted, char *error,
               size_t capacity) {
  world->at_seq = d->seq;
  if (d->count > (size_t)INT32_MAX)
    return mpi_fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                    "%s sequence %" PRIu64
                    ": count %zu exceeds MPI's int counts",
                    vcpu_comm_kind_name(d->kind), d->seq, d->count);
  int status = BP_OK;
  switch (d->kind) {
  case VCPU_COMM_BROADCAST:
  case VCPU_COMM_REDUCE: {
    size_t chunk = COLLECTIVE_CHUNK_BYTES / vcpu_comm_dtype_size(d->dtype);
    size_t first = 0;
    do {
      size_t count = d->count - first < chunk ? d->count - first : chunk;
      status = rooted(world, d, first, (int)count, deadline_ns, aborted, error,
                      capacity);
      first += count;
    } while (status == BP_OK && first < d->count);
    break;
  }
  case VCPU_COMM_ALL_GATHER: {
    size_t bytes = d->count * vcpu_comm_dtype_size(d->dtype);
    const void *send = (const char *)d->recv + world->rank * bytes == d->send
                           ? MPI_IN_PLACE
                           : d->send;
    MPI_Datatype type = mpi_type_of(d->dtype);
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallgather(send, (int)d->count, type, d->recv, (int)d->count, type,
                   world->comm, &request);
    status = mpi_wait_all(world, &request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                          aborted, mpi_call_name(d), error, capacity);
    break;
  }
  default:
    status = reduce_scatter(world, d, deadline_ns, aborted, error, capacity);
    break;
  }
  status = mpi_name_the_missing(world, status, d->seq, error, capacity);
  bool has_result = d->kind == VCPU_COMM_REDUCE_SCATTER ||
                    (d->kind == VCPU_COMM_REDUCE && world->rank == d->peer);
  if (status == BP_OK && d->op == AVG && has_result)
    vcpu_comm_reduce(d->recv, (const void *const[]){d->recv}, 1, d->count,
                     d->dtype, AVG, world->nranks);
  return status;
}

/* The check travels beside the data instead of before it: both are posted
 * at once, so agreeing ranks pay no extra round of messages (the small
 * all-reduce carries it in its own messages). Ranks that disagree may run
 * mismatched MPI collectives; MPI never writes past a posted buffer (a
 * longer message is a truncation error), so the data call ends in garbage,
 * an MPI error or the deadline, and the check, which completes regardless,
 * then reports the mismatch in its place. */
int mpi_rooted_or_gathering(mpi_world *world, const vcpu_comm_desc_t *d,
                            uint64_t deadline_ns, const atomic_bool *aborted,
                            char *error, size_t capacity) {
  MPI_Request request = check_start(world, d);
  int status = run(world, d, deadline_ns, aborted, error, capacity);
  if (status == BP_OK)
    return check_finish(world, d, &request, deadline_ns, aborted, error,
                        capacity);
  /* The data failed: past the deadline (or aborted) the check gets one
   * look, after an MPI error (a truncation, say) it gets the deadline. */
  char checked[512] = "";
  int done = 0;
  if (status == BP_ERR_PLUGIN)
    done = check_finish(world, d, &request, deadline_ns, aborted, checked,
                        sizeof checked) != BP_ERR_TIMEOUT;
  else if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done)
    mpi_compare_calls(world, d, checked, sizeof checked);
  if (!done)
    mpi_give_up(world);
  if (done && strstr(checked, "mismatched collectives") != NULL) {
    snprintf(error, capacity, "%s", checked);
    return BP_ERR_INVALID_ARGUMENT;
  }
  return status;
}
