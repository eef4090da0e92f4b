/* Every collective of the MPI transport but all_reduce (mpi_collectives.h):
 * Open MPI's nonblocking collectives polled to completion. */
#include "mpi_collectives.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_all_reduce.h"
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

/* The most bytes one nonblocking collective carries: Open MPI's libnbc
 * progresses a schedule's rounds by recursion, and a 64 MiB reduce between
 * two hosts (thousands of segments) overflowed the stream worker's 8 MiB
 * stack inside one MPI_Testall. Larger broadcasts and reduces go as
 * consecutive collectives of at most this size. */
enum { COLLECTIVE_CHUNK_BYTES = 4 << 20 };

/* One nonblocking collective of a call's data in flight: its request, the
 * element after the part it moves, and the buffer an in-place
 * reduce_scatter reduces into (its layout is not MPI's IN_PLACE one) before
 * the copy to the result. */
typedef struct data_part {
  MPI_Request request;
  size_t next;
  void *scratch;
} data_part;

/* Posts the collective that moves `d`'s data from element `first`: a
 * broadcast or reduce of at most COLLECTIVE_CHUNK_BYTES, the others whole.
 * Returns MPI's code, or -1 out of memory. */
static int post_mpi_part(mpi_world *world, const vcpu_comm_desc_t *d,
                         size_t first, data_part *part) {
  size_t es = vcpu_comm_dtype_size(d->dtype), offset = first * es;
  MPI_Datatype type = mpi_type_of(d->dtype);
  MPI_Op op = mpi_op_of(d->dtype, d->op);
  part->request = MPI_REQUEST_NULL;
  part->next = d->count;
  switch (d->kind) {
  case VCPU_COMM_BROADCAST:
  case VCPU_COMM_REDUCE: {
    size_t chunk = COLLECTIVE_CHUNK_BYTES / es;
    int count = (int)(d->count - first < chunk ? d->count - first : chunk);
    part->next = first + (size_t)count;
    void *recv = (char *)d->recv + offset;
    int root = (int)d->peer;
    if (d->kind == VCPU_COMM_BROADCAST)
      return MPI_Ibcast(recv, count, type, root, world->comm, &part->request);
    /* MPI_IN_PLACE is for the root only */
    const void *send = d->send == d->recv && world->rank == d->peer
                           ? MPI_IN_PLACE
                           : (const char *)d->send + offset;
    return MPI_Ireduce(send, recv, count, type, op, root, world->comm,
                       &part->request);
  }
  case VCPU_COMM_ALL_GATHER: {
    size_t bytes = d->count * es;
    const void *send = (const char *)d->recv + world->rank * bytes == d->send
                           ? MPI_IN_PLACE
                           : d->send;
    return MPI_Iallgather(send, (int)d->count, type, d->recv, (int)d->count,
                          type, world->comm, &part->request);
  }
  default: {
    size_t bytes = d->count * es;
    void *out = d->recv;
    if ((const char *)d->send + world->rank * bytes == d->recv && bytes)
      out = part->scratch = malloc(bytes);
    if (out == NULL)
      return -1;
    return MPI_Ireduce_scatter_block(d->send, out, (int)d->count, type, op,
                                     world->comm, &part->request);
  }
  }
}

/* post_mpi_part with a bp_status_t, and a message when it fails. */
static int post_part(mpi_world *world, const vcpu_comm_desc_t *d, size_t first,
                     data_part *part, char *error, size_t capacity) {
  int rc = post_mpi_part(world, d, first, part);
  if (rc == MPI_SUCCESS)
    return BP_OK;
  if (rc < 0)
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  return mpi_fail(BP_ERR_PLUGIN, error, capacity,
                  "%s sequence %" PRIu64 ": MPI failed: %s",
                  vcpu_comm_kind_name(d->kind), d->seq, text);
}

/* Waits for the part posted and copies an in-place reduce_scatter's
 * result. */
static int finish_part(mpi_world *world, const vcpu_comm_desc_t *d,
                       data_part *part, uint64_t deadline_ns,
                       const atomic_bool *aborted, char *error,
                       size_t capacity) {
  int status =
      mpi_wait_all(world, &part->request, 1, MPI_STATUSES_IGNORE, deadline_ns,
                   aborted, mpi_call_name(d), error, capacity);
  if (part->scratch != NULL && status == BP_OK)
    memcpy(d->recv, part->scratch, d->count * vcpu_comm_dtype_size(d->dtype));
  if (part->scratch != NULL && (status == BP_OK || !world->abandoned))
    free(part->scratch); /* an abandoned request may still write into it */
  part->scratch = NULL;
  return status;
}

/* The part posted is not waited for (the calls disagree, or the check
 * failed): given up unless it is done. */
static void drop_part(mpi_world *world, data_part *part) {
  int done = 1;
  if (part->request != MPI_REQUEST_NULL &&
      MPI_Test(&part->request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    done = 0;
  if (!done) {
    mpi_give_up(world); /* MPI cannot cancel a collective */
    return;
  }
  free(part->scratch);
}

/* The call check travels beside the data: the call exchange
 * (mpi_call_check_start) is posted with the data's first collective and
 * completed first, so agreeing ranks pay no extra round of messages, and
 * ranks that disagree (whatever each called, an all_reduce included) learn
 * it from the exchange and give the data's collective up instead of
 * waiting for it: MPI never matches a collective to another rank's
 * different one safely, and one another rank never posts never ends. */
int mpi_rooted_or_gathering(mpi_world *world, const vcpu_comm_desc_t *d,
                            uint64_t deadline_ns, const atomic_bool *aborted,
                            char *error, size_t capacity) {
  world->at_seq = d->seq;
  if (d->count > (size_t)INT32_MAX)
    return mpi_fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                    "%s sequence %" PRIu64
                    ": count %zu exceeds MPI's int counts",
                    vcpu_comm_kind_name(d->kind), d->seq, d->count);
  int status = mpi_call_check_start(world, d, deadline_ns, error, capacity);
  if (status != BP_OK)
    return status;
  data_part part = {MPI_REQUEST_NULL, 0, NULL};
  char refused[256] = "";
  int posted = post_part(world, d, 0, &part, refused, sizeof refused);
  status = mpi_call_check_finish(world, aborted, error, capacity);
  if (status != BP_OK || posted != BP_OK) {
    drop_part(world, &part);
    return status != BP_OK ? status
                           : mpi_fail(posted, error, capacity, "%s", refused);
  }
  for (;;) {
    status =
        finish_part(world, d, &part, deadline_ns, aborted, error, capacity);
    if (status != BP_OK || part.next >= d->count)
      break;
    status = post_part(world, d, part.next, &part, error, capacity);
    if (status != BP_OK)
      return status;
  }
  status = mpi_name_the_missing(world, status, d->seq, error, capacity);
  bool has_result = d->kind == VCPU_COMM_REDUCE_SCATTER ||
                    (d->kind == VCPU_COMM_REDUCE && world->rank == d->peer);
  if (status == BP_OK && d->op == AVG && has_result)
    vcpu_comm_reduce(d->recv, (const void *const[]){d->recv}, 1, d->count,
                     d->dtype, AVG, world->nranks);
  return status;
}
