/* vcpu communicators (internal): the objects behind C_CCLComm.
 *
 * A world is the set of `nranks` communicators created from one unique id.
 * Its shared state lives in a POSIX shared-memory segment (comm/segment.h)
 * that every rank maps, whether its peers are threads of this process
 * (virtual devices) or other processes on this host; worlds over Open MPI
 * (comm/mpi.h) have none, except that a hybrid one (comm/hybrid.h) holds a
 * communicator of its host's shared-memory world. Collective calls only enqueue
 * a task on the rank's stream (comm/ops.h); the task meets its peers' tasks
 * through per-rank arrival counters, so no call blocks its caller and one
 * thread can drive every rank.
 *
 * Every collective gets a per-communicator sequence number at call time; at
 * the first meeting point each rank checks that all ranks called the same
 * operation (kind, count, type, op, root) at that number. Every wait has the
 * deadline BACKPLANE_COMM_TIMEOUT_MS and watches the world's abort flag and
 * (comm/liveness.h) its peers' processes: a rank process that dies fails every
 * pending and later call with BP_ERR_PEER_LOST within milliseconds. The
 * first failure poisons the communicator: later calls fail at once, and
 * vcpu_comm_error() names the communicator, operation, sequence number and the
 * missing rank.
 */
#ifndef BACKPLANE_VCPU_COMM_H_
#define BACKPLANE_VCPU_COMM_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "backplane/status.h"
#include "comm/id.h"
#include "comm/wait.h"
#include "reduce/call.h"

/* Where a rank's buffers lie in its device arena (comm/arena_map.h). */
typedef struct vcpu_comm_location {
  bool shareable; /* both buffers (or NULL ones) are in one arena */
  int32_t memfd;  /* the arena's fd in the rank's process */
  uint64_t send_offset, recv_offset;
} vcpu_comm_location_t;

/* Per-rank state shared with peers. `arrive` is the rank's position:
 * (sequence << 32) + step of the collective it is in. desc[seq % 2] is the
 * rank's call `seq`, valid for peers from step 1 on: the rank rewrites it
 * only at seq + 2, after every peer reached step 1 of seq + 1 (so finished
 * with seq), which lets a collective end at its first meeting. */
typedef struct vcpu_comm_rank_slot {
  _Alignas(64) _Atomic uint64_t arrive;
  atomic_bool joined;
  _Atomic int32_t pid; /* the rank's process, 0 until it joins */
  /* Set when the rank destroys its communicator: its process ending after
   * that is no death (comm/liveness.h). */
  atomic_bool left;
  /* The CPU the rank ran on when it last arrived at a meeting. */
  _Atomic int32_t cpu;
  vcpu_comm_desc_t desc[2];
  vcpu_comm_location_t where;
  /* The sequence number of the last collective for which this rank mapped
   * every peer's arena (single copy possible on its side). */
  _Atomic uint64_t mapped_seq;
  /* The call of an enclosing world this rank is away in, 0 if none
   * (comm/relay.h). */
  _Atomic uint64_t away_seq;
} vcpu_comm_rank_slot_t;

#define VCPU_COMM_STEP_BITS 32
/* VCPU_COMM_SMALL_BYTES: per rank and sequence parity, the world's area for
 * one-meeting all_reduce inputs (comm/small.h). */
enum { VCPU_COMM_MAILBOX_SLOTS = 16, VCPU_COMM_SMALL_BYTES = 16 * 1024 };

/* A posted send, read by the receiver. `buf` is only meaningful when both
 * ranks share a process; otherwise the data streams through the pair's
 * staging buffer. `status` is written by the receiver before it consumes the
 * message: 0, or 1 when count/type did not match. */
typedef struct vcpu_comm_message {
  const void *buf;
  size_t count;
  C_DataType dtype;
  int status;
} vcpu_comm_message_t;

/* Ordered pair (src -> dst) of ranks: `posted` and `consumed` count messages,
 * message k lives in ring[k % VCPU_COMM_MAILBOX_SLOTS]. Between processes the
 * bytes go through the pair's staging buffer one chunk at a time, counted by
 * `chunks_posted` / `chunks_consumed`. */
typedef struct vcpu_comm_mailbox {
  _Alignas(64) _Atomic uint64_t posted;
  _Atomic uint64_t consumed;
  _Alignas(64) _Atomic uint64_t chunks_posted;
  _Atomic uint64_t chunks_consumed;
  vcpu_comm_message_t ring[VCPU_COMM_MAILBOX_SLOTS];
} vcpu_comm_mailbox_t;

/* The shared state of a world: one POSIX shared-memory segment that every
 * rank maps (comm/segment.h). Ranks of one process share one mapping. */
typedef struct vcpu_comm_world_header vcpu_comm_world_header_t;

typedef struct vcpu_comm_world {
  struct vcpu_comm_world *next; /* this process's registry, under its lock */
  uint64_t token, secret;
  size_t nranks;
  size_t attached; /* this process's communicators (registry lock) */
  vcpu_comm_world_header_t *header;
  size_t mapped_bytes;
  char segment_name[64];
  /* Views into the segment: */
  vcpu_comm_signal_t *signal;
  atomic_bool *aborted;
  vcpu_comm_rank_slot_t *slots;   /* nranks */
  vcpu_comm_mailbox_t *mailboxes; /* nranks * nranks, [src * nranks + dst] */
  unsigned char *pair_buffers;    /* nranks * nranks * pair_bytes */
  size_t pair_bytes;
  unsigned char *data_slots; /* nranks * slot_bytes: collective staging */
  size_t slot_bytes;
  /* nranks * 2 * VCPU_COMM_SMALL_BYTES: [rank][seq % 2], comm/small.h */
  unsigned char *small_inputs;
  /* 0 unknown, 1 every rank lives in this process, 2 some do not. Decided
   * once every rank has joined. */
  _Atomic int locality;
  /* This process's watch on its peers' processes (comm/liveness.h); NULL
   * for worlds without a segment. */
  struct vcpu_comm_liveness *liveness;
  /* Peers' device arenas mapped here (comm/arena_map.c), under map_lock. */
  pthread_mutex_t map_lock;
  struct vcpu_comm_arena_map *maps; /* nranks, or NULL before the first use */
  /* MPI worlds (comm/mpi.h) have no segment: the module's handle, and the
   * abort flag and signal live here. */
  const struct vcpu_comm_mpi_module *mpi;
  void *mpi_handle;
  atomic_bool local_aborted;
  vcpu_comm_signal_t local_signal;
} vcpu_comm_world_t;

/* How a plugin runs one call the xccl_* slots describe (a collective, or a
 * send or receive: d.kind >= VCPU_COMM_SEND); comm/interface.h. */
typedef C_Status (*vcpu_comm_call_fn)(vcpu_comm_desc_t d, C_CCLComm comm,
                                      C_Stream stream);

/* Fields are grouped on cache lines by who writes them: the callers' threads,
 * the stream workers running its tasks, or whoever fails first. */
struct C_CCLComm_st {
  vcpu_comm_world_t *world;
  size_t rank, nranks;
  /* The plugin's run of the slots' calls; NULL: the library's. Set once,
   * before the communicator is handed out (comm/interface.h). */
  vcpu_comm_call_fn call;
  uint64_t timeout_ns;
  char name[64];                /* "vcpu-comm:<token>" */
  _Atomic uint64_t *sends_to;   /* nranks: messages sent to each peer */
  _Atomic uint64_t *recvs_from; /* nranks: messages received from each */
  /* Callers. */
  _Alignas(64) _Atomic uint64_t next_seq; /* collectives called so far */
  _Atomic uint64_t tasks_submitted;       /* handed to streams */
  /* Stream workers. */
  _Alignas(64) _Atomic uint64_t tasks_done; /* ran (or were skipped) */
  /* Collectives between processes that ran single-copy through mapped
   * device arenas (comm/arena_map.h); for tests and diagnostics. */
  _Atomic uint64_t single_copy_calls;
  /* Meetings in a row where a peer shared this rank's CPU (comm/spread.c):
   * a heuristic, relaxed. */
  _Atomic uint32_t crowded_meetings;
  _Alignas(64) pthread_mutex_t error_lock;
  _Atomic int error; /* a bp_status_t, BP_OK until the first failure */
  char error_message[512];
};

/* The calling thread's message for the last call rejected before it was
 * enqueued (bad argument, poisoned communicator). Never NULL. */
const char *vcpu_comm_last_error(void);
bp_status_t vcpu_comm_reject(bp_status_t status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* True when `peer` runs in this process (waits for nothing: false until the
 * peer has joined). */
bool vcpu_comm_peer_is_local(const vcpu_comm_world_t *world, size_t peer);

/* Whether every rank of the world lives in this process; decided (and
 * cached) once all have joined, which the caller has made sure of. */
bool vcpu_comm_world_is_local(vcpu_comm_world_t *world);

#endif /* BACKPLANE_VCPU_COMM_H_ */
