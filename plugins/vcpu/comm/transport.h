/* Creating a communicator from a unique id: the xccl_comm_init_rank entry,
 * which chooses the world's transport (internal). */
#ifndef BACKPLANE_VCPU_COMM_TRANSPORT_H_
#define BACKPLANE_VCPU_COMM_TRANSPORT_H_

#include <stddef.h>

#include "backplane/device_ext.h"
#include "comm/comm.h"

/* Creates rank `rank` of the world the id names, in this process or another
 * one on this host (creating the world's segment on first use). Does not
 * wait for peers: a peer that never joins is reported by the first
 * collective that needs it. BP_ERR_INVALID_ARGUMENT for a malformed id, a
 * wrong secret, an nranks that differs from the world's, or a rank already
 * joined; BP_ERR_PLUGIN when the segment cannot be made; the message is in
 * vcpu_comm_last_error(). */
bp_status_t vcpu_comm_create(size_t nranks, const C_CCLRootId *root,
                             size_t rank, C_CCLComm *out_comm);

#endif /* BACKPLANE_VCPU_COMM_TRANSPORT_H_ */
