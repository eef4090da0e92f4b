/* Meeting points of the collectives: each rank publishes how far it got,
 * (sequence << VCPU_COMM_STEP_BITS) + step, in its slot, and waits until every
 * rank got as far, within the deadline and unless the world is aborted. A
 * failure poisons the communicator with a message naming the operation, its
 * sequence number and the first rank that is missing. */
#ifndef BACKPLANE_VCPU_COMM_MEET_H_
#define BACKPLANE_VCPU_COMM_MEET_H_

#include "comm/comm.h"

/* Publishes that this rank reached `step` of the collective `desc` and waits
 * for every rank. */
bp_status_t vcpu_comm_meet(C_CCLComm comm, const vcpu_comm_desc_t *desc,
                           unsigned step, uint64_t deadline_ns);

/* Step 1 of every collective: publishes `desc`, meets, and checks that every
 * rank called the same operation (kind, count, type, op, root) at this
 * sequence number; a mismatch is BP_ERR_INVALID_ARGUMENT naming both calls. */
bp_status_t vcpu_comm_start_collective(C_CCLComm comm,
                                       const vcpu_comm_desc_t *desc,
                                       uint64_t deadline_ns);

/* Rank `rank`'s call `seq` as it published it (valid from step 1 of that
 * call until this rank leaves it). */
const vcpu_comm_desc_t *vcpu_comm_published_call(const vcpu_comm_world_t *world,
                                                 size_t rank, uint64_t seq);

/* "rank 2 never joined", "rank 1 is at sequence 4 step 2", ... */
void vcpu_comm_describe_rank(const vcpu_comm_world_t *world, size_t rank,
                             char *out, size_t capacity);

/* Rank r's share [begin, end) of `count` elements: whole cache lines, so
 * ranks never write the same line. */
void vcpu_comm_chunk_of(size_t count, size_t elem_size, size_t nranks, size_t r,
                        size_t *out_begin, size_t *out_end);

/* memcpy unless dst == src or bytes == 0. */
void vcpu_comm_copy(void *dst, const void *src, size_t bytes);

#endif /* BACKPLANE_VCPU_COMM_MEET_H_ */
