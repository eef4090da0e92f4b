/* The POSIX shared-memory segment that holds a world's shared state: the
 * header, per-rank slots, pair mailboxes and staging buffers, and per-rank
 * collective staging slots. Every rank maps it, whether its peers are
 * threads of the same process or other processes on this host.
 *
 * Name: "/bpvcpu-<token>-<tag>", the tag derived from the secret, mode 0600.
 * A rank whose id has the right token but another secret finds the world's
 * segment under another tag and is refused. The segment's name is removed as
 * soon as every rank has mapped it (comm.c), so nothing is left in /dev/shm
 * even if a process is killed afterwards. */
#ifndef BACKPLANE_VCPU_COMM_SEGMENT_H_
#define BACKPLANE_VCPU_COMM_SEGMENT_H_

#include <stdatomic.h>
#include <stdint.h>

#include "comm.h"

#define COMM_SEGMENT_READY 0x62707663706d6d31ull /* "bpvcpmm1" */

struct comm_world_header {
  _Atomic uint64_t ready; /* COMM_SEGMENT_READY once the creator filled it */
  uint64_t token, secret;
  uint64_t nranks, pair_bytes, slot_bytes, total_bytes;
  _Atomic uint64_t joined;   /* ranks that have joined */
  _Atomic uint64_t attached; /* joined ranks not yet destroyed */
  atomic_bool unlinked;      /* the name was removed */
  atomic_bool aborted;
  comm_signal signal;
};

/* Maps the world's segment, creating it if this is the first rank to come;
 * fills the views of *world (token, secret, nranks, header, arrays). Waits
 * (until deadline_ns) for a creator that is still filling it in.
 * BP_ERR_INVALID_ARGUMENT (message set) for a wrong secret or nranks,
 * BP_ERR_TIMEOUT if the creator never finished, BP_ERR_PLUGIN for system
 * failures. */
bp_status_t comm_segment_map(const comm_unique_id *id, size_t nranks,
                             uint64_t deadline_ns, comm_world *world);

/* Removes the segment's name (once per world; later calls do nothing). */
void comm_segment_unlink(comm_world *world);

/* Unmaps this process's view. */
void comm_segment_unmap(comm_world *world);

#endif /* BACKPLANE_VCPU_COMM_SEGMENT_H_ */
