#include "comm/small.h"

#include <stdlib.h>

#include "comm/meet.h"
#include "reduce/reduce.h"

enum { STACK_SOURCES = 16 };

static unsigned char *input_area(const comm_world *world, size_t rank,
                                 uint64_t seq) {
  return world->small_inputs + (rank * 2 + seq % 2) * COMM_SMALL_BYTES;
}

bool comm_small_all_reduce_fits(const comm_desc *desc) {
  return desc->kind == COMM_ALL_REDUCE &&
         desc->count <= COMM_SMALL_BYTES / comm_dtype_size(desc->dtype);
}

bp_status_t comm_small_all_reduce(C_CCLComm comm, const comm_desc *desc,
                                  uint64_t deadline_ns) {
  comm_world *world = comm->world;
  size_t n = comm->nranks;
  comm_copy(input_area(world, comm->rank, desc->seq), desc->send,
            desc->count * comm_dtype_size(desc->dtype));
  bp_status_t status = comm_start_collective(comm, desc, deadline_ns);
  if (status != BP_OK || desc->count == 0)
    return status;
  const void *stack_srcs[STACK_SOURCES];
  const void **srcs =
      n <= STACK_SOURCES ? stack_srcs : malloc(n * sizeof *srcs);
  if (srcs == NULL)
    return comm_fail(comm, BP_ERR_OUT_OF_MEMORY, "%s rank %zu: out of memory",
                     comm->name, comm->rank);
  for (size_t r = 0; r < n; r++)
    srcs[r] = input_area(world, r, desc->seq);
  comm_reduce(desc->recv, srcs, n, desc->count, desc->dtype, desc->op, n);
  if (srcs != stack_srcs)
    free(srcs);
  return BP_OK;
}
