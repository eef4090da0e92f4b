/* A collective's data in a shared-memory world (threads or processes of
 * one host), once its ranks met and agreed on the call. Used by comm/ops.c
 * for the world's own calls and by the hybrid's stages inside a host. */
#ifndef BACKPLANE_VCPU_COMM_DATA_H_
#define BACKPLANE_VCPU_COMM_DATA_H_

#include "comm/comm.h"

/* The data of a collective of a shared-memory world after its ranks met
 * and agreed (vcpu_comm_arena_publish, then vcpu_comm_start_collective):
 * single copy through the ranks' buffers when the world's ranks are
 * threads, or through mapped device arenas when every rank's buffers are
 * in one and the call is large; else staged through the world segment. On
 * the rank's stream worker. Fails the communicator (vcpu_comm_fail) on a
 * timeout, an abort or a lost peer. */
bp_status_t vcpu_comm_collective_data(C_CCLComm comm,
                                      const vcpu_comm_desc_t *desc,
                                      uint64_t deadline);

#endif /* BACKPLANE_VCPU_COMM_DATA_H_ */
