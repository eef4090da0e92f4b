#include "comm/small.h"

#include <stdlib.h>

#include "comm/failure.h"
#include "comm/meet.h"
#include "reduce/reduce.h"

enum { STACK_SOURCES = 16 };

static unsigned char *input_area(const vcpu_comm_world_t *world, size_t rank,
                                 uint64_t seq) {
  return world->small_inputs + (rank * 2 + seq % 2) * VCPU_COMM_SMALL_BYTES;
}

bool vcpu_comm_small_all_reduce_fits(const vcpu_comm_desc_t *desc) {
  return desc->kind == VCPU_COMM_ALL_REDUCE &&
         desc->count <=
             VCPU_COMM_SMALL_BYTES / vcpu_comm_dtype_size(desc->dtype);
}

bp_status_t vcpu_comm_small_all_reduce(C_CCLComm comm,
                                       const vcpu_comm_desc_t *desc,
                                       uint64_t deadline_ns) {
  vcpu_comm_world_t *world = comm->world;
  size_t n = comm->nranks;
  vcpu_comm_copy(input_area(world, comm->rank, desc->seq), desc->send,
                 desc->count * vcpu_comm_dtype_size(desc->dtype));
  bp_status_t status = vcpu_comm_start_collective(comm, desc, deadline_ns);
  if (status != BP_OK || desc->count == 0)
    return status;
  const void *stack_srcs[STACK_SOURCES];
  const void **srcs =
      n <= STACK_SOURCES ? stack_srcs : malloc(n * sizeof *srcs);
  if (srcs == NULL)
    return vcpu_comm_fail(comm, BP_ERR_OUT_OF_MEMORY,
                          "%s rank %zu: out of memory", comm->name, comm->rank);
  for (size_t r = 0; r < n; r++)
    srcs[r] = input_area(world, r, desc->seq);
  vcpu_comm_reduce(desc->recv, srcs, n, desc->count, desc->dtype, desc->op, n);
  if (srcs != stack_srcs)
    free(srcs);
  return BP_OK;
}
