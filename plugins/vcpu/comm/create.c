/* Communicators: making one on a world, this host's shared-memory worlds, and
 * destroying one (whatever its world). */
#include "comm/create.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/park.h"
#include "comm/arena_map.h"
#include "comm/liveness.h"
#include "comm/mpi.h"
#include "comm/segment.h"

/* Worlds of this process, found by their token. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static vcpu_comm_world_t *registry_head;

static vcpu_comm_world_t *world_find(uint64_t token) {
  for (vcpu_comm_world_t *world = registry_head; world; world = world->next)
    if (world->token == token)
      return world;
  return NULL;
}

static void world_unregister(vcpu_comm_world_t *world) {
  for (vcpu_comm_world_t **link = &registry_head; *link;
       link = &(*link)->next) {
    if (*link == world) {
      *link = world->next;
      return;
    }
  }
}

/* Finds this process's view of the world (or maps its segment), then claims
 * `rank` in it. Called with the registry lock held. */
static bp_status_t world_attach(const vcpu_comm_unique_id_t *id, size_t nranks,
                                size_t rank, uint64_t deadline_ns,
                                vcpu_comm_world_t **out_world) {
  vcpu_comm_world_t *world = world_find(id->world_token);
  if (world != NULL && world->secret != id->secret)
    return vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT,
        "xccl_comm_init_rank: rank %zu presented a wrong secret "
        "for world %016" PRIx64 ": refused",
        rank, id->world_token);
  if (world != NULL && world->nranks != nranks)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "xccl_comm_init_rank: rank %zu says nranks=%zu but "
                            "world %016" PRIx64 " has %zu ranks",
                            rank, nranks, id->world_token, world->nranks);
  bool mapped_here = world == NULL;
  if (mapped_here) {
    world = calloc(1, sizeof *world);
    if (world == NULL)
      return vcpu_comm_reject(BP_ERR_OUT_OF_MEMORY,
                              "xccl_comm_init_rank: out of memory");
    bp_status_t status = vcpu_comm_segment_map(id, nranks, deadline_ns, world);
    if (status != BP_OK) {
      free(world);
      return status;
    }
    if (!vcpu_comm_liveness_open(world)) {
      vcpu_comm_segment_unmap(world);
      free(world);
      return vcpu_comm_reject(BP_ERR_OUT_OF_MEMORY,
                              "xccl_comm_init_rank: out of memory");
    }
  }
  int32_t none = 0;
  if (!atomic_compare_exchange_strong(&world->slots[rank].pid, &none,
                                      (int32_t)getpid())) {
    if (mapped_here) {
      vcpu_comm_liveness_close(world);
      vcpu_comm_segment_unmap(world);
      free(world);
    }
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "xccl_comm_init_rank: rank %zu of world %016" PRIx64
                            " has already joined",
                            rank, id->world_token);
  }
  if (mapped_here) {
    pthread_mutex_init(&world->map_lock, NULL);
    world->next = registry_head;
    registry_head = world;
  }
  world->attached++;
  atomic_store(&world->slots[rank].joined, true);
  /* Everyone has mapped the segment: its name can go. */
  if (atomic_fetch_add(&world->header->joined, 1) + 1 == nranks)
    vcpu_comm_segment_unlink(world);
  vcpu_comm_signal_progress(world->signal);
  *out_world = world;
  return BP_OK;
}

static bp_status_t host_world_attach(const vcpu_comm_unique_id_t *id,
                                     size_t nranks, size_t rank,
                                     uint64_t deadline_ns,
                                     vcpu_comm_world_t **out_world) {
  pthread_mutex_lock(&registry_lock);
  bp_status_t status = world_attach(id, nranks, rank, deadline_ns, out_world);
  pthread_mutex_unlock(&registry_lock);
  return status;
}

bp_status_t vcpu_comm_create_in(size_t nranks, const vcpu_comm_unique_id_t *id,
                                size_t rank, vcpu_comm_world_maker_t make_world,
                                C_CCLComm *out_comm) {
  C_CCLComm comm = aligned_alloc(_Alignof(struct C_CCLComm_st), sizeof *comm);
  if (comm != NULL)
    memset(comm, 0, sizeof *comm);
  _Atomic uint64_t *sends = calloc(nranks, sizeof *sends);
  _Atomic uint64_t *recvs = calloc(nranks, sizeof *recvs);
  if (comm == NULL || sends == NULL || recvs == NULL) {
    free(comm);
    free(sends);
    free(recvs);
    return vcpu_comm_reject(BP_ERR_OUT_OF_MEMORY,
                            "xccl_comm_init_rank: out of memory");
  }
  uint64_t timeout_ns = vcpu_comm_timeout_ms_from_env() * 1000000u;
  uint64_t deadline_ns = vcpu_now_ns() + timeout_ns;
  vcpu_comm_world_t *world = NULL;
  bp_status_t status;
  status = make_world(id, nranks, rank, deadline_ns, &world);
  if (status != BP_OK) {
    free(comm);
    free(sends);
    free(recvs);
    return status;
  }
  comm->world = world;
  comm->rank = rank;
  comm->nranks = nranks;
  comm->timeout_ns = timeout_ns;
  comm->sends_to = sends;
  comm->recvs_from = recvs;
  snprintf(comm->name, sizeof comm->name, "vcpu-comm:%016" PRIx64,
           id->world_token);
  pthread_mutex_init(&comm->error_lock, NULL);
  *out_comm = comm;
  return BP_OK;
}

bp_status_t vcpu_comm_create_on_host(size_t nranks,
                                     const vcpu_comm_unique_id_t *id,
                                     size_t rank, C_CCLComm *out_comm) {
  return vcpu_comm_create_in(nranks, id, rank, host_world_attach, out_comm);
}

/* Drops this communicator's hold on a segment world. */
static void segment_world_detach(vcpu_comm_world_t *world) {
  pthread_mutex_lock(&registry_lock);
  /* A world one of whose ranks has left can never complete: a rank that
   * comes later must not find it (it makes a world of its own, waits and
   * fails), so the name goes now if it is still there. */
  vcpu_comm_segment_unlink(world);
  if (--world->attached == 0) {
    world_unregister(world);
    vcpu_comm_arena_unmap_all(world);
    pthread_mutex_destroy(&world->map_lock);
    vcpu_comm_liveness_close(world);
    vcpu_comm_segment_unmap(world);
    free(world);
  }
  pthread_mutex_unlock(&registry_lock);
}

/* Returns once every task handed to a stream has run (each ends within the
 * communicator's deadline). */
static void wait_for_tasks(C_CCLComm comm) {
  uint64_t submitted = atomic_load(&comm->tasks_submitted);
  vcpu_spin spin = vcpu_spin_start();
  while (atomic_load_explicit(&comm->tasks_done, memory_order_acquire) <
         submitted) {
    if (!vcpu_spin_again(&spin)) {
      struct timespec pause = {0, 100000}; /* 100 µs */
      nanosleep(&pause, NULL);
    }
  }
}

void vcpu_comm_destroy(C_CCLComm comm) {
  if (comm == NULL)
    return;
  wait_for_tasks(comm);
  vcpu_comm_world_t *world = comm->world;
  if (world->mpi != NULL) {
    world->mpi->destroy(world->mpi_handle);
    free(world);
  } else {
    vcpu_comm_liveness_leave(world, comm->rank);
    segment_world_detach(world);
  }
  pthread_mutex_destroy(&comm->error_lock);
  free(comm->sends_to);
  free(comm->recvs_from);
  free(comm);
}
