/* A world of the vcpu MPI transport: its communicators and the state its
 * calls share (internal to libbackplane_vcpu_mpi.so). A world is driven by
 * one thread at a time: the stream worker running its collectives, or the
 * caller running one in its stream's turn (comm/mpi.h's `start`), and the
 * hand-over between them orders their accesses. */
#ifndef BACKPLANE_VCPU_MPI_MPI_WORLD_H_
#define BACKPLANE_VCPU_MPI_MPI_WORLD_H_

#include <inttypes.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "comm/comm.h"

/* A call as the call check exchanges it: kind, count, dtype, op, peer and
 * (a stage of the hybrid's) the whole call. */
enum { CALL_WORDS = 6 };

/* What a wait is for, in messages: `label` (a string that lives as long as
 * the process: "all_reduce", "send/recv") and, for a call of a world, its
 * sequence number (0 for none). Formatted only when something is said. */
typedef struct mpi_wait_name {
  const char *label;
  uint64_t seq;
} mpi_wait_name;

/* "all_reduce sequence 7", or the label alone. */
static inline void mpi_wait_name_format(mpi_wait_name name, char *out,
                                        size_t capacity) {
  if (name.seq != 0)
    snprintf(out, capacity, "%s sequence %" PRIu64, name.label, name.seq);
  else
    snprintf(out, capacity, "%s", name.label);
}

/* The call exchange a world is in (mpi_all_reduce_small.c: a small
 * all-reduce, or the call check of another collective), kept with the world
 * so that it can stop on one thread and go on on another: the call, its
 * deadline, the step of this rank's plan it is at, and that step's requests
 * once posted. */
typedef struct mpi_small_call {
  vcpu_comm_desc_t call;
  uint64_t deadline_ns;
  /* This rank's partial result: its input until a step wrote call.recv. */
  const void *partial;
  unsigned step, steps;
  bool posted, agreed, pending;
  /* The step's second message is on its way; the bytes received so far. */
  bool second;
  int received;
  int nrequests, nsends;
  /* The receive (if the step has one), then the sends, then the second
   * message's receive. */
  MPI_Request requests[4];
} mpi_small_call;

typedef struct mpi_world {
  MPI_Comm comm;
  /* A duplicate of comm for roll calls (mpi_roll_call.h), or
   * MPI_COMM_NULL. */
  MPI_Comm roll;
  size_t rank, nranks;
  /* What a rank of this world is, in messages: "rank", or "host" for the
   * world of the host leaders (whose rank h leads host h). */
  const char *member;
  /* The world of the host leaders only: the host of each rank of the world
   * it was made from (world_nranks entries), so that messages name a host's
   * ranks ("host 1 (world ranks 2,3)"); NULL elsewhere. */
  size_t *host_of;
  size_t world_nranks;
  /* The sequence number of the call this rank is in, told to roll calls. */
  uint64_t at_seq;
  /* The secret check's buffers, and the call check's (every rank's call as
   * CALL_WORDS words, nranks + 1 entries, this rank's last): MPI cannot
   * cancel a collective, so a check that timed out may still be written
   * into later. */
  uint64_t check_mine[2], check_highest[2];
  uint64_t *calls;
  /* The small all-reduce's messages (mpi_all_reduce_small.c): the call words
   * this rank sends, and the words and data it receives, at one step,
   * allocated on first use; and the call in progress. */
  unsigned char *small_out, *small_in;
  mpi_small_call small;
  /* A larger all-reduce's data from a partner, before it is reduced
   * (mpi_all_reduce_large.c), allocated on first use. */
  void *scratch;
  /* Whether each rank runs on this rank's host (nranks entries), and
   * whether any does not. */
  bool *near;
  bool spans_hosts;
  /* The small exchange's shared memory with this host's other ranks
   * (mpi_mailbox.h), or NULL. */
  struct mpi_mailbox *mailbox;
  /* A roll call's question and answers (nranks entries), kept with the
   * world because a question sent to a dead rank may never complete. */
  uint64_t roll_question;
  uint64_t *roll_answers;
  /* A request of this world was given up (deadline or abort): its buffers
   * must outlive the world, so destroy() keeps the struct. */
  bool abandoned;
  /* The ranks' calls disagreed (a mismatch): peers may have sent messages
   * that no receive of this rank will match. Open MPI hands a message for a
   * freed communicator to the next one given the same context id, where its
   * old sequence number stalls every later message from that peer (a
   * broadcast root's data held up the next all-reduce's second message
   * until its deadline), so destroy() keeps the communicator. */
  bool disagreed;
} mpi_world;

/* Nanoseconds on CLOCK_MONOTONIC: the clock of the module's deadlines. */
static inline uint64_t mpi_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* BACKPLANE_VCPU_MPI_MPI_WORLD_H_ */
