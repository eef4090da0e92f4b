#include "comm/hybrid.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/arena_map.h"
#include "comm/create.h"
#include "comm/data.h"
#include "comm/failure.h"
#include "comm/liveness.h"
#include "comm/meet.h"
#include "comm/mpi.h"
#include "comm/p2p.h"
#include "comm/relay.h"
#include "comm/segment.h"
#include "reduce/reduce.h"

typedef struct hybrid {
  const vcpu_comm_mpi_module_t *mpi;
  void *everyone; /* the module's world of every rank */
  /* The module's world of the ranks at this rank's place on every host
   * (rank = host index): the host leaders' on a leader; on the others only
   * when every host holds as many ranks (`even`); NULL elsewhere. */
  void *rail;
  C_CCLComm host; /* this host's shared-memory world; NULL if alone on it */
  size_t rank, nranks;
  size_t per_host;      /* ranks on this rank's host */
  bool even;            /* every host holds per_host ranks */
  size_t *host_of;      /* nranks: the host of each world rank */
  size_t *local_of;     /* nranks: each world rank's rank within its host */
  char host_ranks[160]; /* "host 1 = world ranks 2,3", for messages */
} hybrid;

/* One call's progress through its stages. */
typedef struct stage_context {
  hybrid *h;
  const vcpu_comm_desc_t *call;
  uint64_t deadline_ns;
  const atomic_bool *aborted;
  char *error;
  size_t capacity;
  /* This rank's own call over MPI failed (not aborted): its message names
   * what it met there. */
  bool failed_over_mpi;
  /* The ranks of this host called different collectives: this rank's
   * message names them. */
  bool host_disagreed;
} stage_context;

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void vcpu_comm_hybrid_host_id(const vcpu_comm_unique_id_t *id, size_t host,
                              vcpu_comm_unique_id_t *out_id) {
  *out_id = *id;
  uint64_t key = mix((uint64_t)host + 1);
  out_id->secret = mix(id->secret ^ key);
  out_id->world_token = mix(id->world_token + key * 0x9e3779b97f4a7c15ull);
}

static bool is_leader(const hybrid *h) {
  return h->local_of[h->rank] == 0;
}

/* How long past its deadline a rank waits for the failure of a rank of its
 * host that is still away over MPI in the same call: that rank names the
 * missing ranks after its own deadline, by a roll call of 300 ms
 * (plugins/vcpu_mpi/mpi_roll_call.c), and the ranks' deadlines start a
 * little apart. */
#define RELAY_GRACE_NS 1000000000ull

/* Writes the call's failure in `stage` (detail: the stage's own message)
 * and returns `status`. */
static int stage_failed(stage_context *s, const char *stage, int status,
                        const char *detail) {
  snprintf(s->error, s->capacity, "%s sequence %" PRIu64 ": %s failed: %s (%s)",
           vcpu_comm_kind_name(s->call->kind), s->call->seq, stage, detail,
           s->h->host_ranks);
  return status;
}

/* The result of a stage of the host's shared-memory world: its failure
 * with the host world's own message. */
static int host_stage_result(stage_context *s, const char *stage,
                             bp_status_t status) {
  if (status == BP_OK)
    return BP_OK;
  char detail[512];
  vcpu_comm_error(s->h->host, detail, sizeof detail);
  return stage_failed(s, stage, (int)status, detail);
}

/* One collective of this host's shared-memory world, run here and now (the
 * caller is the rank's stream worker), numbered in that world's sequence,
 * in two halves: host_start publishes it and meets the host's ranks, which
 * compares their calls (each stage carries the whole call, so this checks
 * that the host's ranks made the same call; no message is added);
 * host_finish moves the data. */
static int host_start(stage_context *s, const char *stage,
                      vcpu_comm_desc_t *d) {
  C_CCLComm host = s->h->host;
  d->seq = atomic_fetch_add(&host->next_seq, 1) + 1;
  d->stage_of = vcpu_comm_stage_of(s->call, false);
  vcpu_comm_arena_publish(host, d);
  bp_status_t status = vcpu_comm_start_collective(host, d, s->deadline_ns);
  s->host_disagreed = status == BP_ERR_INVALID_ARGUMENT;
  return host_stage_result(s, stage, status);
}

static int host_finish(stage_context *s, const char *stage,
                       const vcpu_comm_desc_t *d) {
  return host_stage_result(
      s, stage, vcpu_comm_collective_data(s->h->host, d, s->deadline_ns));
}

static int host_stage(stage_context *s, const char *stage, vcpu_comm_desc_t d) {
  int status = host_start(s, stage, &d);
  return status == BP_OK ? host_finish(s, stage, &d) : status;
}

/* A send (VCPU_COMM_SEND) or receive of `buffer` to or from host rank `peer`.
 */
static int host_p2p_stage(stage_context *s, const char *stage,
                          vcpu_comm_kind_t kind, void *buffer, size_t peer) {
  C_CCLComm host = s->h->host;
  vcpu_comm_desc_t d = {.kind = kind,
                        .send = buffer,
                        .recv = buffer,
                        .count = s->call->count,
                        .dtype = s->call->dtype,
                        .peer = peer};
  _Atomic uint64_t *counter =
      kind == VCPU_COMM_SEND ? &host->sends_to[peer] : &host->recvs_from[peer];
  d.seq = atomic_fetch_add(counter, 1);
  return host_stage_result(s, stage,
                           vcpu_comm_p2p_run(host, &d, 1, s->deadline_ns));
}

/* Before a stage over MPI: this rank is away from its host until
 * back_from_mpi (comm/relay.h). */
static void away_over_mpi(stage_context *s) {
  if (s->h->host != NULL)
    vcpu_comm_relay_away(s->h->host->world, s->h->host->rank, s->call->seq);
}

/* After a stage over MPI that ended with `status`: back, or failed, and
 * then `failure` (what it met there) is posted to the host's other ranks,
 * which wait for this one inside the host. An abort is no failure of its
 * own: the rank then takes what was posted, like its peers. */
static int back_from_mpi(stage_context *s, int status, const char *failure) {
  s->failed_over_mpi = status != BP_OK && status != BP_ERR_ABORTED;
  if (s->h->host == NULL)
    return status;
  if (status == BP_OK)
    vcpu_comm_relay_away(s->h->host->world, s->h->host->rank, 0);
  else if (s->failed_over_mpi)
    vcpu_comm_relay_post(s->h->host->world, s->h->rank, (bp_status_t)status,
                         failure);
  return status;
}

/* One collective of this rank's rail over MPI (the leaders', or on rails
 * every rank's), in place on `count` elements at `buffer`. The calls are
 * checked beside the data (comm/mpi.h's `collective`); each carries its
 * whole call, and after its host's ranks disagreed a leader's matches no
 * other, so every host learns of it. */
static int rail_stage(stage_context *s, const char *stage,
                      vcpu_comm_kind_t kind, void *buffer, size_t count,
                      C_CCLReduceOp op, size_t root_host) {
  vcpu_comm_desc_t d = *s->call;
  d.kind = kind;
  d.send = d.recv = buffer;
  d.count = count;
  d.op = op;
  d.peer = root_host;
  d.stage_of = vcpu_comm_stage_of(s->call, s->host_disagreed);
  away_over_mpi(s);
  char detail[400];
  int status = s->h->mpi->collective(s->h->rail, &d, s->deadline_ns, s->aborted,
                                     detail, sizeof detail);
  /* The detail names other hosts with their world ranks. */
  char failure[448] = "";
  if (status != BP_OK)
    snprintf(failure, sizeof failure, "%s failed: %s", stage, detail);
  if (back_from_mpi(s, status, failure) == BP_OK)
    return BP_OK;
  snprintf(s->error, s->capacity, "%s sequence %" PRIu64 ": %s",
           vcpu_comm_kind_name(s->call->kind), s->call->seq, failure);
  return status;
}

/* The stage between hosts of a call, of `count` elements at `buffer`: the
 * leaders', or with `every_place` every rank's on its rail. When this host's
 * ranks disagreed, its leader still takes its place among the leaders (the
 * other hosts' leaders wait for it), so that they fail with the mismatch
 * too, and keeps its own message. Returns `status` (the host's failure)
 * then, else the stage's. */
static int between_hosts(stage_context *s, int status, const char *stage,
                         vcpu_comm_kind_t kind, void *buffer, size_t count,
                         C_CCLReduceOp op, size_t root_host, bool every_place) {
  bool takes_part = s->h->rail != NULL && (every_place || is_leader(s->h));
  if (!takes_part || (status != BP_OK && !s->host_disagreed))
    return status;
  if (status == BP_OK)
    return rail_stage(s, stage, kind, buffer, count, op, root_host);
  if (!is_leader(s->h))
    return status;
  char own[512];
  snprintf(own, sizeof own, "%s", s->error);
  rail_stage(s, stage, kind, buffer, count, op, root_host);
  snprintf(s->error, s->capacity, "%s", own);
  return status;
}

/* After the call failed inside the host (or was aborted): the failure a
 * rank of the host met over MPI in this call, if one is posted or comes
 * while that rank is still away (comm/relay.h), in place of this rank's
 * own, which at best names the rank it waited for. */
static int relayed_failure(stage_context *s, int status) {
  hybrid *h = s->h;
  if (h->host == NULL)
    return status;
  char relayed[448];
  size_t by = 0;
  bp_status_t told = vcpu_comm_relay_take(h->host->world, s->call->seq,
                                          s->deadline_ns + RELAY_GRACE_NS, &by,
                                          relayed, sizeof relayed);
  if (told == BP_OK)
    return status;
  snprintf(s->error, s->capacity,
           "%s sequence %" PRIu64 ": rank %zu of this host failed over MPI: %s",
           vcpu_comm_kind_name(s->call->kind), s->call->seq, by, relayed);
  return (int)told;
}

/* AVG travels as a sum, divided once at the end. */
static C_CCLReduceOp summed(C_CCLReduceOp op) {
  return op == AVG ? SUM : op;
}

static void finish_average(const stage_context *s, void *result) {
  if (s->call->op == AVG)
    vcpu_comm_reduce(result, (const void *const[]){result}, 1, s->call->count,
                     s->call->dtype, AVG, s->h->nranks);
}

/* Rails: an all_reduce of at least RAIL_MIN_BYTES, in a world whose hosts
 * all hold the same number L of ranks, whose count L divides, runs on every
 * rank at once: a reduce_scatter inside the host (the rank at place i keeps
 * slice i), an all_reduce of slice i among the ranks at place i of every
 * host (its rail, over MPI), an all_gather inside the host. Each host sends
 * what it sends through its leader, over L connections at once instead of
 * one, and the shared-memory stages split their work over the host's ranks
 * instead of leaving it to the leader. The choice depends on the call
 * alone, so every rank makes the same. */
enum { RAIL_MIN_BYTES = 1 << 20 };

static bool on_rails(const hybrid *h, const vcpu_comm_desc_t *d) {
  return h->even && h->host != NULL && h->rail != NULL &&
         d->count % h->per_host == 0 &&
         d->count * vcpu_comm_dtype_size(d->dtype) >= RAIL_MIN_BYTES;
}

static int all_reduce_on_rails(stage_context *s) {
  hybrid *h = s->h;
  const vcpu_comm_desc_t *d = s->call;
  size_t slice = d->count / h->per_host;
  char *mine = (char *)d->recv +
               h->local_of[h->rank] * slice * vcpu_comm_dtype_size(d->dtype);
  vcpu_comm_desc_t host_call = *d;
  host_call.kind = VCPU_COMM_REDUCE_SCATTER;
  host_call.op = summed(d->op);
  host_call.count = slice;
  host_call.recv = mine;
  int status = host_stage(s, "the reduce_scatter inside the host", host_call);
  status =
      between_hosts(s, status, "the all_reduce between hosts",
                    VCPU_COMM_ALL_REDUCE, mine, slice, summed(d->op), 0, true);
  if (status == BP_OK) {
    host_call.kind = VCPU_COMM_ALL_GATHER;
    host_call.send = mine;
    host_call.recv = d->recv;
    status = host_stage(s, "the all_gather inside the host", host_call);
  }
  if (status == BP_OK)
    finish_average(s, d->recv);
  return status;
}

static int all_reduce(stage_context *s) {
  hybrid *h = s->h;
  const vcpu_comm_desc_t *d = s->call;
  if (on_rails(h, d))
    return all_reduce_on_rails(s);
  int status = BP_OK;
  vcpu_comm_desc_t host_call = *d;
  host_call.op = summed(d->op);
  if (h->host != NULL) {
    host_call.kind = VCPU_COMM_REDUCE;
    host_call.peer = 0;
    status = host_stage(s, "the reduce inside the host", host_call);
  } else {
    vcpu_comm_copy(d->recv, d->send, d->count * vcpu_comm_dtype_size(d->dtype));
  }
  status = between_hosts(s, status, "the all_reduce between hosts",
                         VCPU_COMM_ALL_REDUCE, d->recv, d->count, summed(d->op),
                         0, false);
  if (status == BP_OK && h->host != NULL) {
    host_call.kind = VCPU_COMM_BROADCAST;
    host_call.send = d->recv;
    status = host_stage(s, "the broadcast inside the host", host_call);
  }
  if (status == BP_OK)
    finish_average(s, d->recv);
  return status;
}

/* The root's host spreads the data inside itself first when the root is not
 * its leader; then the leaders broadcast; then every other host spreads
 * (its ranks meet, checking their calls, before the leaders' stage). */
static int broadcast(stage_context *s) {
  hybrid *h = s->h;
  const vcpu_comm_desc_t *d = s->call;
  size_t root_host = h->host_of[d->peer], root_local = h->local_of[d->peer];
  bool spread_first = h->host_of[h->rank] == root_host && root_local != 0;
  vcpu_comm_desc_t host_call = *d;
  int status = BP_OK;
  if (h->host != NULL && spread_first) {
    host_call.peer = root_local;
    status = host_stage(s, "the broadcast inside the root's host", host_call);
  } else if (h->host != NULL) {
    host_call.peer = 0;
    status = host_start(s, "the broadcast inside the host", &host_call);
  }
  status = between_hosts(s, status, "the broadcast between hosts",
                         VCPU_COMM_BROADCAST, d->recv, d->count, d->op,
                         root_host, false);
  if (status == BP_OK && h->host != NULL && !spread_first)
    status = host_finish(s, "the broadcast inside the host", &host_call);
  return status;
}

/* Each host reduces into its leader, the leaders into the root's leader,
 * which sends the result on to the root when the root is not itself. */
static int reduce(stage_context *s) {
  hybrid *h = s->h;
  const vcpu_comm_desc_t *d = s->call;
  size_t root_host = h->host_of[d->peer], root_local = h->local_of[d->peer];
  size_t bytes = d->count * vcpu_comm_dtype_size(d->dtype);
  bool leader = is_leader(h);
  void *partial = d->recv, *scratch = NULL;
  if (leader && h->rank != d->peer) {
    partial = scratch = malloc(bytes ? bytes : 1);
    if (scratch == NULL)
      return stage_failed(s, "the reduce inside the host", BP_ERR_OUT_OF_MEMORY,
                          "out of memory");
  }
  int status = BP_OK;
  if (h->host != NULL) {
    vcpu_comm_desc_t host_call = *d;
    host_call.recv = leader ? partial : NULL;
    host_call.op = summed(d->op);
    host_call.peer = 0;
    status = host_stage(s, "the reduce inside the host", host_call);
  } else {
    vcpu_comm_copy(partial, d->send, bytes);
  }
  bool host_ok = status == BP_OK;
  status =
      between_hosts(s, status, "the reduce between hosts", VCPU_COMM_REDUCE,
                    partial, d->count, summed(d->op), root_host, false);
  /* MPI may still write into a buffer of a stage it gave up. */
  bool mpi_gave_up = leader && h->rail != NULL &&
                     (host_ok ? status != BP_OK : s->host_disagreed);
  if (status == BP_OK && h->host_of[h->rank] == root_host && root_local != 0) {
    if (leader)
      status = host_p2p_stage(s, "the send from the host's leader to the root",
                              VCPU_COMM_SEND, partial, root_local);
    else if (h->rank == d->peer)
      status = host_p2p_stage(s, "the send from the host's leader to the root",
                              VCPU_COMM_RECV, d->recv, 0);
  }
  if (status == BP_OK && h->rank == d->peer)
    finish_average(s, d->recv);
  if (!mpi_gave_up) /* else MPI may still write into it */
    free(scratch);
  return status;
}

static int hybrid_collective(void *handle, const vcpu_comm_desc_t *d,
                             uint64_t deadline_ns, const atomic_bool *aborted,
                             char *error, size_t capacity) {
  hybrid *h = handle;
  if (d->kind == VCPU_COMM_ALL_GATHER || d->kind == VCPU_COMM_REDUCE_SCATTER)
    return h->mpi->collective(h->everyone, d, deadline_ns, aborted, error,
                              capacity);
  stage_context s = {h, d, deadline_ns, aborted, error, capacity, false, false};
  int status;
  switch (d->kind) {
  case VCPU_COMM_ALL_REDUCE:
    status = all_reduce(&s);
    break;
  case VCPU_COMM_BROADCAST:
    status = broadcast(&s);
    break;
  default:
    status = reduce(&s);
    break;
  }
  return status == BP_OK || s.failed_over_mpi || s.host_disagreed
             ? status
             : relayed_failure(&s, status);
}

static int hybrid_p2p(void *handle, const vcpu_comm_desc_t *ops, size_t n,
                      uint64_t deadline_ns, const atomic_bool *aborted,
                      char *error, size_t capacity) {
  hybrid *h = handle;
  return h->mpi->p2p(h->everyone, ops, n, deadline_ns, aborted, error,
                     capacity);
}

/* Frees what the hybrid made; the module's world of every rank only when
 * `with_everyone` (setup's failures leave it to the caller). */
static void hybrid_free(hybrid *h, bool with_everyone) {
  if (h->host != NULL)
    vcpu_comm_destroy(h->host);
  if (h->rail != NULL)
    h->mpi->destroy(h->rail);
  if (with_everyone)
    h->mpi->destroy(h->everyone);
  free(h->host_of);
  free(h->local_of);
  free(h);
}

static void hybrid_destroy(void *handle) {
  hybrid_free(handle, true);
}

/* What comm/create.c and comm/ops.c call on an MPI world: they never create,
 * check, run or group through world->mpi. */
static const vcpu_comm_mpi_module_t hybrid_dispatch = {
    .destroy = hybrid_destroy,
    .collective = hybrid_collective,
    .p2p = hybrid_p2p,
};

bool vcpu_comm_hybrid_in_use(const vcpu_comm_world_t *world) {
  return world->mpi == &hybrid_dispatch;
}

C_CCLComm vcpu_comm_hybrid_host_comm(const vcpu_comm_world_t *world) {
  return vcpu_comm_hybrid_in_use(world)
             ? ((const hybrid *)world->mpi_handle)->host
             : NULL;
}

bool vcpu_comm_hybrid_on_rails(const vcpu_comm_world_t *world,
                               const vcpu_comm_desc_t *desc) {
  return vcpu_comm_hybrid_in_use(world) && desc->kind == VCPU_COMM_ALL_REDUCE &&
         on_rails((const hybrid *)world->mpi_handle, desc);
}

/* Reads BACKPLANE_COMM_HYBRID and BACKPLANE_COMM_RANKS_PER_HOST. */
static bp_status_t read_settings(bool *out_enabled, size_t *out_per_host) {
  const char *enabled = getenv("BACKPLANE_COMM_HYBRID");
  *out_enabled =
      enabled == NULL || *enabled == '\0' || strcmp(enabled, "1") == 0;
  if (!*out_enabled && strcmp(enabled, "0") != 0)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "xccl_comm_init_rank: BACKPLANE_COMM_HYBRID=%s is "
                            "neither 0 nor 1",
                            enabled);
  const char *per_host = getenv("BACKPLANE_COMM_RANKS_PER_HOST");
  *out_per_host = 0;
  if (per_host == NULL || *per_host == '\0')
    return BP_OK;
  char *end = NULL;
  errno = 0;
  unsigned long long value = strtoull(per_host, &end, 10);
  if (errno != 0 || *end != '\0' || value == 0 || value > 4096 ||
      per_host[0] == '-')
    return vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT,
        "xccl_comm_init_rank: BACKPLANE_COMM_RANKS_PER_HOST=%s "
        "is not a rank count from 1 to 4096",
        per_host);
  *out_per_host = (size_t)value;
  return BP_OK;
}

/* Fills local_of and host_ranks from host_of; returns how many hosts there
 * are and the largest number of ranks on one. */
static void describe_hosts(hybrid *h, size_t *out_hosts, size_t *out_largest) {
  size_t hosts = 0, largest = 0, mine = h->host_of[h->rank];
  int n = snprintf(h->host_ranks, sizeof h->host_ranks,
                   "host %zu = world "
                   "ranks",
                   mine);
  for (size_t r = 0; r < h->nranks; r++) {
    size_t on_same = 0;
    for (size_t q = 0; q < r; q++)
      on_same += h->host_of[q] == h->host_of[r];
    h->local_of[r] = on_same;
    if (h->host_of[r] + 1 > hosts)
      hosts = h->host_of[r] + 1;
    if (on_same + 1 > largest)
      largest = on_same + 1;
    if (h->host_of[r] == mine && n > 0 && (size_t)n < sizeof h->host_ranks)
      n += snprintf(h->host_ranks + n, sizeof h->host_ranks - (size_t)n,
                    "%s%zu", on_same == 0 ? " " : ",", r);
  }
  *out_hosts = hosts;
  *out_largest = largest;
}

static bool everyone_joined(void *context) {
  const vcpu_comm_world_t *world = context;
  return atomic_load(&world->header->joined) == world->nranks;
}

/* Waits until every rank of the host world joined it, so a rank that leaves
 * at once cannot end the world before a slower peer found it. */
static bp_status_t wait_for_host(hybrid *h, uint64_t deadline_ns) {
  vcpu_comm_world_t *world = h->host->world;
  vcpu_comm_wait_result_t result =
      vcpu_comm_wait_world(world, deadline_ns, everyone_joined, NULL, world);
  if (result == VCPU_COMM_WAIT_READY)
    return BP_OK;
  size_t missing = 0;
  while (missing + 1 < world->nranks &&
         atomic_load(&world->slots[missing].joined))
    missing++;
  return vcpu_comm_reject(
      BP_ERR_TIMEOUT,
      "xccl_comm_init_rank: rank %zu of %s: host rank %zu never "
      "joined (%s)",
      h->rank, h->host->name, missing, h->host_ranks);
}

/* Joins this rank's host world (when it shares its host) once all its ranks
 * have. */
static bp_status_t join_host(hybrid *h, const vcpu_comm_unique_id_t *id,
                             uint64_t deadline_ns) {
  size_t mine = h->host_of[h->rank], size = 0;
  for (size_t r = 0; r < h->nranks; r++)
    size += h->host_of[r] == mine;
  if (size < 2)
    return BP_OK;
  vcpu_comm_unique_id_t host_id;
  vcpu_comm_hybrid_host_id(id, mine, &host_id);
  bp_status_t status =
      vcpu_comm_create_on_host(size, &host_id, h->local_of[h->rank], &h->host);
  if (status != BP_OK)
    return status;
  snprintf(h->host->name, sizeof h->host->name,
           "host %zu of vcpu-comm:%016" PRIx64, mine, id->world_token);
  return wait_for_host(h, deadline_ns);
}

bp_status_t vcpu_comm_hybrid_setup(vcpu_comm_world_t *world,
                                   const vcpu_comm_unique_id_t *id, size_t rank,
                                   uint64_t deadline_ns) {
  bool enabled = true;
  size_t per_host = 0;
  bp_status_t status = read_settings(&enabled, &per_host);
  if (status != BP_OK || !enabled)
    return status;
  hybrid *h = calloc(1, sizeof *h);
  if (h != NULL) {
    h->host_of = calloc(world->nranks, sizeof *h->host_of);
    h->local_of = calloc(world->nranks, sizeof *h->local_of);
  }
  if (h == NULL || h->host_of == NULL || h->local_of == NULL) {
    if (h != NULL) {
      free(h->host_of);
      free(h->local_of);
    }
    free(h);
    return vcpu_comm_reject(BP_ERR_OUT_OF_MEMORY,
                            "xccl_comm_init_rank: out of memory");
  }
  h->mpi = world->mpi;
  h->everyone = world->mpi_handle;
  h->rank = rank;
  h->nranks = world->nranks;
  char error[512] = "";
  int grouped = h->mpi->hosts(h->everyone, per_host, deadline_ns, h->host_of,
                              &h->rail, error, sizeof error);
  if (grouped != BP_OK) {
    hybrid_free(h, false);
    return vcpu_comm_reject((bp_status_t)grouped, "xccl_comm_init_rank: %s",
                            error);
  }
  size_t hosts = 0, largest = 0;
  describe_hosts(h, &hosts, &largest);
  for (size_t r = 0; r < h->nranks; r++)
    h->per_host += h->host_of[r] == h->host_of[rank];
  h->even = hosts * largest == h->nranks;
  if (hosts < 2 || largest < 2) { /* one host, or one rank per host */
    hybrid_free(h, false);
    return BP_OK;
  }
  status = join_host(h, id, deadline_ns);
  if (status != BP_OK) {
    hybrid_free(h, false);
    return status;
  }
  world->mpi = &hybrid_dispatch;
  world->mpi_handle = h;
  if (h->host != NULL) {
    world->aborted = h->host->world->aborted;
    world->signal = h->host->world->signal;
  }
  return BP_OK;
}
