/* Single copy between processes: like CUDA IPC, a rank's device buffers live
 * in its virtual device's memfd arena, which peers on the same host can map
 * (through /proc/<pid>/fd/<memfd>). Each rank publishes where its buffers
 * are; peers map those arenas once per world and then run the same
 * algorithms as threads do, reading and writing each other's buffers
 * directly instead of staging them twice through the world segment. */
#ifndef BACKPLANE_VCPU_COMM_ARENA_H_
#define BACKPLANE_VCPU_COMM_ARENA_H_

#include <stdbool.h>
#include <stdint.h>

#include "comm/comm.h"

/* Records in this rank's slot whether (and where) the call's buffers lie in
 * a device arena. Call before vcpu_comm_start_collective publishes the call. */
void vcpu_comm_arena_publish(C_CCLComm comm, const vcpu_comm_desc_t *desc);

/* After vcpu_comm_start_collective: whether every rank published buffers in an
 * arena (so all ranks reach the same answer). */
bool vcpu_comm_arena_everyone_published(const vcpu_comm_world_t *world);

/* Fills peers[r] with rank r's call `seq`, its buffers translated into this
 * process (mapping arenas on first use). false if an arena cannot be mapped
 * or a buffer does not fit in it; then this rank cannot take part in a
 * single-copy collective. Thread-safe. */
bool vcpu_comm_arena_translate(C_CCLComm comm, uint64_t seq,
                               vcpu_comm_desc_t *peers);

/* Unmaps every peer arena of the world (when its last communicator in this
 * process goes). */
void vcpu_comm_arena_unmap_all(vcpu_comm_world_t *world);

#endif /* BACKPLANE_VCPU_COMM_ARENA_H_ */
