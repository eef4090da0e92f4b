#include "comm/threads.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/failure.h"
#include "comm/meet.h"
#include "reduce/reduce.h"

/* Reduces elements [begin, end) of every rank's send buffer (offset by
 * `src_offset` elements) into dst. */
static bp_status_t reduce_from_all(C_CCLComm comm, const vcpu_comm_desc_t *d,
                                   const vcpu_comm_desc_t *peers,
                                   size_t src_offset, size_t begin, size_t end,
                                   void *dst) {
  size_t n = comm->nranks, es = vcpu_comm_dtype_size(d->dtype);
  const void *stack_srcs[16];
  const void **srcs = n <= 16 ? stack_srcs : malloc(n * sizeof *srcs);
  if (srcs == NULL)
    return vcpu_comm_fail(comm, BP_ERR_OUT_OF_MEMORY,
                          "%s rank %zu: out of memory", comm->name, comm->rank);
  for (size_t r = 0; r < n; r++)
    srcs[r] = (const char *)peers[r].send + (src_offset + begin) * es;
  vcpu_comm_reduce(dst, srcs, n, end - begin, d->dtype, d->op, n);
  if (srcs != stack_srcs)
    free(srcs);
  return BP_OK;
}

bp_status_t vcpu_comm_threads_collective(C_CCLComm comm,
                                         const vcpu_comm_desc_t *d,
                                         const vcpu_comm_desc_t *peers,
                                         unsigned step, uint64_t deadline_ns) {
  size_t n = comm->nranks, me = comm->rank;
  size_t es = vcpu_comm_dtype_size(d->dtype);
  bp_status_t status = BP_OK;

  size_t begin, end;
  switch (d->kind) {
  case VCPU_COMM_ALL_REDUCE:
    vcpu_comm_chunk_of(d->count, es, n, me, &begin, &end);
    status = reduce_from_all(comm, d, peers, 0, begin, end,
                             (char *)d->recv + begin * es);
    if (status == BP_OK)
      status = vcpu_comm_meet(comm, d, step, deadline_ns);
    if (status != BP_OK)
      return status;
    for (size_t r = 0; r < n; r++) {
      if (r == me)
        continue;
      vcpu_comm_chunk_of(d->count, es, n, r, &begin, &end);
      vcpu_comm_copy((char *)d->recv + begin * es,
                     (const char *)peers[r].recv + begin * es,
                     (end - begin) * es);
    }
    return vcpu_comm_meet(comm, d, step + 1, deadline_ns);
  case VCPU_COMM_BROADCAST:
    if (me != d->peer)
      vcpu_comm_copy(d->recv, peers[d->peer].send, d->count * es);
    return vcpu_comm_meet(comm, d, step, deadline_ns);
  case VCPU_COMM_REDUCE:
    vcpu_comm_chunk_of(d->count, es, n, me, &begin, &end);
    status = reduce_from_all(comm, d, peers, 0, begin, end,
                             (char *)peers[d->peer].recv + begin * es);
    return status == BP_OK ? vcpu_comm_meet(comm, d, step, deadline_ns)
                           : status;
  case VCPU_COMM_ALL_GATHER:
    for (size_t r = 0; r < n; r++)
      vcpu_comm_copy((char *)d->recv + r * d->count * es, peers[r].send,
                     d->count * es);
    return vcpu_comm_meet(comm, d, step, deadline_ns);
  case VCPU_COMM_REDUCE_SCATTER:
    status =
        reduce_from_all(comm, d, peers, me * d->count, 0, d->count, d->recv);
    return status == BP_OK ? vcpu_comm_meet(comm, d, step, deadline_ns)
                           : status;
  default:
    return vcpu_comm_fail(comm, BP_ERR_INTERNAL,
                          "%s rank %zu: %s is not a collective", comm->name,
                          comm->rank, vcpu_comm_kind_name(d->kind));
  }
}
