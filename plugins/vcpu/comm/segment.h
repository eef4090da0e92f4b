/* The POSIX shared-memory segment that holds a world's shared state: the
 * header, per-rank slots, pair mailboxes and staging buffers, and per-rank
 * collective staging slots. Every rank maps it, whether its peers are
 * threads of the same process or other processes on this host.
 *
 * Name: "/bpvcpu-<token>-<tag>", the tag derived from the secret, mode 0600.
 * A rank whose id has the right token but another secret finds the world's
 * segment under another tag and is refused.
 *
 * Nothing is left in /dev/shm: the name is removed as soon as every rank has
 * mapped it, or as soon as one rank gives up on the world (fails a
 * collective, or destroys its communicator before every rank joined: such a
 * world can never complete). A name whose every process died before that
 * (e.g. a creator killed while waiting for peers that never come) is an
 * orphan: the next rank of any world to map a segment removes it. */
#ifndef BACKPLANE_VCPU_COMM_SEGMENT_H_
#define BACKPLANE_VCPU_COMM_SEGMENT_H_

#include <stdatomic.h>
#include <stdint.h>

#include "comm/comm.h"

#define VCPU_COMM_SEGMENT_READY 0x62707663706d6d31ull /* "bpvcpmm1" */

struct vcpu_comm_world_header {
  _Atomic uint64_t
      ready; /* VCPU_COMM_SEGMENT_READY once the creator filled it */
  uint64_t token, secret;
  uint64_t nranks, pair_bytes, slot_bytes, total_bytes;
  int32_t creator_pid;     /* the process that created the segment */
  uint64_t pid_namespace;  /* its pid namespace (0 if unknown) */
  _Atomic uint64_t joined; /* ranks that have joined */
  atomic_bool unlinked;    /* the name was removed */
  atomic_bool aborted;
  /* 1 + the first rank found dead (comm/liveness.h); 0 while none. */
  _Atomic uint64_t lost;
  vcpu_comm_signal_t signal;
  /* A failure relayed by one rank to the others (comm/relay.h). */
  _Atomic uint32_t relay_state;
  int32_t relayed_status;
  uint64_t relayed_by;
  char relayed_message[448];
};

/* Maps the world's segment, creating it if this is the first rank to come
 * (after removing orphaned segments, see vcpu_comm_segment_remove_orphans);
 * fills the views of *world (token, secret, nranks, header, arrays). Waits
 * (until deadline_ns) for a creator that is still filling it in.
 * BP_ERR_INVALID_ARGUMENT (message set) for a wrong secret or nranks,
 * BP_ERR_TIMEOUT if the creator never finished, BP_ERR_PLUGIN for system
 * failures. */
bp_status_t vcpu_comm_segment_map(const vcpu_comm_unique_id_t *id,
                                  size_t nranks, uint64_t deadline_ns,
                                  vcpu_comm_world_t *world);

/* Removes the segment's name (once per world; later calls do nothing).
 * Thread-safe, and safe between processes. */
void vcpu_comm_segment_unlink(vcpu_comm_world_t *world);

/* Removes every /dev/shm/bpvcpu-* segment of this user whose creator and
 * joined ranks are all dead processes of this pid namespace (or that was
 * never initialized and is older than a minute). Returns how many it
 * removed. Segments of live processes are never touched. */
size_t vcpu_comm_segment_remove_orphans(void);

/* The inode of this process's pid namespace (pids mean something only
 * within one); 0 if /proc does not tell. */
uint64_t vcpu_comm_own_pid_namespace(void);

/* Unmaps this process's view. */
void vcpu_comm_segment_unmap(vcpu_comm_world_t *world);

#endif /* BACKPLANE_VCPU_COMM_SEGMENT_H_ */
