#include "comm.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Worlds of this process, found by their token. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static comm_world *registry_head;

static _Thread_local char reject_message[512] = "no error";

const char *comm_last_error(void) {
  return reject_message;
}

bp_status_t comm_reject(bp_status_t status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(reject_message, sizeof reject_message, format, args);
  va_end(args);
  return status;
}

const char *comm_kind_name(comm_kind kind) {
  switch (kind) {
  case COMM_ALL_REDUCE:
    return "all_reduce";
  case COMM_BROADCAST:
    return "broadcast";
  case COMM_REDUCE:
    return "reduce";
  case COMM_ALL_GATHER:
    return "all_gather";
  case COMM_REDUCE_SCATTER:
    return "reduce_scatter";
  case COMM_SEND:
    return "send";
  case COMM_RECV:
    return "recv";
  }
  return "unknown";
}

static comm_world *world_find(uint64_t token) {
  for (comm_world *world = registry_head; world; world = world->next)
    if (world->token == token)
      return world;
  return NULL;
}

static comm_world *world_new(const comm_unique_id *id, size_t nranks) {
  comm_world *world = calloc(1, sizeof *world);
  if (world == NULL)
    return NULL;
  world->token = id->world_token;
  world->secret = id->secret;
  world->nranks = nranks;
  world->slots = aligned_alloc(64, nranks * sizeof *world->slots);
  world->mailboxes =
      aligned_alloc(64, nranks * nranks * sizeof *world->mailboxes);
  if (world->slots == NULL || world->mailboxes == NULL) {
    free(world->slots);
    free(world->mailboxes);
    free(world);
    return NULL;
  }
  memset(world->slots, 0, nranks * sizeof *world->slots);
  memset(world->mailboxes, 0, nranks * nranks * sizeof *world->mailboxes);
  world->next = registry_head;
  registry_head = world;
  return world;
}

static void world_unlink_and_free(comm_world *world) {
  for (comm_world **link = &registry_head; *link; link = &(*link)->next) {
    if (*link == world) {
      *link = world->next;
      break;
    }
  }
  free(world->slots);
  free(world->mailboxes);
  free(world);
}

/* Checks the id against the world (or creates it) and claims `rank`. Called
 * with the registry lock held. */
static bp_status_t world_attach(const comm_unique_id *id, size_t nranks,
                                size_t rank, comm_world **out_world) {
  comm_world *world = world_find(id->world_token);
  if (world == NULL) {
    world = world_new(id, nranks);
    if (world == NULL)
      return comm_reject(BP_ERR_OUT_OF_MEMORY,
                         "xccl_comm_init_rank: out of memory for a world of "
                         "%zu ranks",
                         nranks);
  } else if (world->secret != id->secret) {
    return comm_reject(BP_ERR_INVALID_ARGUMENT,
                       "xccl_comm_init_rank: rank %zu presented a wrong secret "
                       "for world %016" PRIx64 ": refused",
                       rank, id->world_token);
  } else if (world->nranks != nranks) {
    return comm_reject(BP_ERR_INVALID_ARGUMENT,
                       "xccl_comm_init_rank: rank %zu says nranks=%zu but "
                       "world %016" PRIx64 " has %zu ranks",
                       rank, nranks, id->world_token, world->nranks);
  } else if (atomic_load(&world->slots[rank].joined)) {
    return comm_reject(BP_ERR_INVALID_ARGUMENT,
                       "xccl_comm_init_rank: rank %zu of world %016" PRIx64
                       " has already joined",
                       rank, id->world_token);
  }
  world->attached++;
  atomic_store(&world->slots[rank].joined, true);
  *out_world = world;
  return BP_OK;
}

bp_status_t comm_create(size_t nranks, const C_CCLRootId *root, size_t rank,
                        C_CCLComm *out_comm) {
  comm_unique_id id;
  if (out_comm == NULL)
    return comm_reject(BP_ERR_INVALID_ARGUMENT,
                       "xccl_comm_init_rank: comm is NULL");
  if (!comm_unique_id_parse(root, &id))
    return comm_reject(BP_ERR_INVALID_ARGUMENT,
                       "xccl_comm_init_rank: the unique id is not a vcpu id "
                       "(NULL, wrong size or wrong magic)");
  if (nranks == 0 || rank >= nranks)
    return comm_reject(BP_ERR_INVALID_ARGUMENT,
                       "xccl_comm_init_rank: rank %zu out of range for nranks "
                       "%zu",
                       rank, nranks);
  if (nranks > 4096)
    return comm_reject(BP_ERR_INVALID_ARGUMENT,
                       "xccl_comm_init_rank: nranks %zu exceeds 4096", nranks);
  if (id.pid != (int32_t)getpid())
    return comm_reject(BP_ERR_UNSUPPORTED,
                       "xccl_comm_init_rank: the unique id comes from process "
                       "%d; ranks in other processes are not supported by "
                       "this build's thread transport",
                       (int)id.pid);

  C_CCLComm comm = calloc(1, sizeof *comm);
  _Atomic uint64_t *sends = calloc(nranks, sizeof *sends);
  _Atomic uint64_t *recvs = calloc(nranks, sizeof *recvs);
  if (comm == NULL || sends == NULL || recvs == NULL) {
    free(comm);
    free(sends);
    free(recvs);
    return comm_reject(BP_ERR_OUT_OF_MEMORY,
                       "xccl_comm_init_rank: out of memory");
  }
  pthread_mutex_lock(&registry_lock);
  comm_world *world = NULL;
  bp_status_t status = world_attach(&id, nranks, rank, &world);
  pthread_mutex_unlock(&registry_lock);
  if (status != BP_OK) {
    free(comm);
    free(sends);
    free(recvs);
    return status;
  }
  comm->world = world;
  comm->rank = rank;
  comm->nranks = nranks;
  comm->timeout_ns = comm_timeout_ms_from_env() * 1000000u;
  comm->sends_to = sends;
  comm->recvs_from = recvs;
  snprintf(comm->name, sizeof comm->name, "vcpu-comm:%016" PRIx64,
           id.world_token);
  pthread_mutex_init(&comm->error_lock, NULL);
  *out_comm = comm;
  return BP_OK;
}

void comm_destroy(C_CCLComm comm) {
  if (comm == NULL)
    return;
  comm_world *world = comm->world;
  pthread_mutex_lock(&registry_lock);
  if (--world->attached == 0)
    world_unlink_and_free(world);
  pthread_mutex_unlock(&registry_lock);
  pthread_mutex_destroy(&comm->error_lock);
  free(comm->sends_to);
  free(comm->recvs_from);
  free(comm);
}

void comm_abort(C_CCLComm comm) {
  atomic_store_explicit(&comm->world->aborted, true, memory_order_release);
  comm_signal_progress(&comm->world->signal);
}

bp_status_t comm_error(C_CCLComm comm, char *message, size_t capacity) {
  bp_status_t status = (bp_status_t)atomic_load(&comm->error);
  if (status != BP_OK && message != NULL && capacity > 0) {
    pthread_mutex_lock(&comm->error_lock);
    snprintf(message, capacity, "%s", comm->error_message);
    pthread_mutex_unlock(&comm->error_lock);
  }
  return status;
}

bp_status_t comm_fail(C_CCLComm comm, bp_status_t status, const char *format,
                      ...) {
  pthread_mutex_lock(&comm->error_lock);
  if (atomic_load(&comm->error) == BP_OK) {
    va_list args;
    va_start(args, format);
    vsnprintf(comm->error_message, sizeof comm->error_message, format, args);
    va_end(args);
    atomic_store(&comm->error, (int)status);
  }
  pthread_mutex_unlock(&comm->error_lock);
  return status;
}
