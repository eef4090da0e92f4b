/* The shared-memory mailbox of a world's ranks on one host (internal to
 * libbackplane_vcpu_mpi.so): the small all-reduce's messages, and every
 * other collective's call check, between two ranks of one host go through
 * it instead of MPI_Isend / MPI_Irecv, which cost about 0.4 us of the
 * 1 KiB all-reduce's 0.9. Ranks on other hosts still exchange over MPI.
 *
 * One POSIX shared-memory segment per world and host, "/bpvcpu-<token>-mpi<r>"
 * (the world's token, r the host's lowest world rank; every host's names
 * differ, since network namespaces on one machine share /dev/shm). It holds
 * a slot per ordered pair of the host's ranks and sequence parity: a rank
 * sends at most one message to a given peer per call, and cannot be two
 * calls ahead of that peer's reading it (it must first receive the peer's
 * message of the call between), so two slots per pair never overwrite an
 * unread message. The sender writes the message, then the slot's sequence
 * number with one release store; the receiver polls that number
 * (mpi_wait_for_word) under the same deadline, abort and roll-call rules as
 * MPI's requests.
 *
 * Nothing is left in /dev/shm: every rank of the host removes the name as
 * soon as every rank of the world has mapped it or failed to, before
 * mpi_mailbox_open returns, so a rank that dies later leaves only mappings
 * the kernel drops with its process. If any rank of the world cannot map its
 * host's segment (or the host holds more than MPI_MAILBOX_MAX_RANKS ranks,
 * or BACKPLANE_COMM_MPI_MAILBOX=0 on some rank), no rank uses a mailbox and
 * all messages go over MPI. */
#ifndef BACKPLANE_VCPU_MPI_MPI_MAILBOX_H_
#define BACKPLANE_VCPU_MPI_MPI_MAILBOX_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi_world.h"

/* Past this many ranks on one host the pairs' slots take more than a few
 * megabytes of address space per world: such hosts use MPI. */
enum { MPI_MAILBOX_MAX_RANKS = 16 };

/* One message's place: the sender stores `seq` last (release). */
typedef struct mpi_mailbox_slot {
  _Atomic uint64_t seq;
  uint64_t bytes;
  unsigned char padding[48];
  unsigned char message[]; /* call words, then data */
} mpi_mailbox_slot;

typedef struct mpi_mailbox {
  unsigned char *base;
  size_t mapped_bytes, slot_bytes;
  size_t nlocal;
  /* Each world rank's index among this host's ranks (nranks entries;
   * SIZE_MAX for other hosts' ranks). */
  size_t *local;
} mpi_mailbox;

/* Makes world->mailbox (collective over the world: every rank calls it
 * after world->near is known; `token` names the segment). A rank whose
 * host has one rank, or any rank of a world where a host's segment could not
 * be mapped, gets none (world->mailbox NULL, BP_OK). Fails (BP_ERR_TIMEOUT,
 * ...) only when the ranks' agreement over MPI does. */
int mpi_mailbox_open(mpi_world *world, uint64_t token, uint64_t deadline_ns,
                     char *error, size_t capacity);

/* Unmaps and frees world->mailbox, if any. */
void mpi_mailbox_close(mpi_world *world);

/* Whether the messages between this rank and world rank `peer` go through
 * the mailbox. */
static inline bool mpi_mailbox_reaches(const mpi_world *world, size_t peer) {
  return world->mailbox != NULL &&
         world->mailbox->local[peer] != (size_t)SIZE_MAX;
}

/* The slot of the message from world rank `from` to `to` at `seq` (both
 * reached by the mailbox). */
static inline mpi_mailbox_slot *mpi_mailbox_slot_of(const mpi_world *world,
                                                    size_t from, size_t to,
                                                    uint64_t seq) {
  const mpi_mailbox *m = world->mailbox;
  size_t index = (m->local[from] * m->nlocal + m->local[to]) * 2 + (seq & 1);
  return (mpi_mailbox_slot *)(m->base + index * m->slot_bytes);
}

/* Hands the message written into slot->message (`bytes` bytes) to its
 * reader. */
static inline void mpi_mailbox_post(mpi_mailbox_slot *slot, size_t bytes,
                                    uint64_t seq) {
  slot->bytes = bytes;
  atomic_store_explicit(&slot->seq, seq, memory_order_release);
}

#endif /* BACKPLANE_VCPU_MPI_MPI_MAILBOX_H_ */
