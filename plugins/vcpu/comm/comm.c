#include "comm/comm.h"

#include "base/park.h"
#include "comm/arena_map.h"
#include "comm/hybrid.h"
#include "comm/mpi.h"
#include "comm/segment.h"

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

static comm_world *world_find(uint64_t token) {
  for (comm_world *world = registry_head; world; world = world->next)
    if (world->token == token)
      return world;
  return NULL;
}

static void world_unregister(comm_world *world) {
  for (comm_world **link = &registry_head; *link; link = &(*link)->next) {
    if (*link == world) {
      *link = world->next;
      return;
    }
  }
}

/* Finds this process's view of the world (or maps its segment), then claims
 * `rank` in it. Called with the registry lock held. */
static bp_status_t world_attach(const comm_unique_id *id, size_t nranks,
                                size_t rank, uint64_t deadline_ns,
                                comm_world **out_world) {
  comm_world *world = world_find(id->world_token);
  if (world != NULL && world->secret != id->secret)
    return comm_reject(BP_ERR_INVALID_ARGUMENT,
                       "xccl_comm_init_rank: rank %zu presented a wrong secret "
                       "for world %016" PRIx64 ": refused",
                       rank, id->world_token);
  if (world != NULL && world->nranks != nranks)
    return comm_reject(BP_ERR_INVALID_ARGUMENT,
                       "xccl_comm_init_rank: rank %zu says nranks=%zu but "
                       "world %016" PRIx64 " has %zu ranks",
                       rank, nranks, id->world_token, world->nranks);
  bool mapped_here = world == NULL;
  if (mapped_here) {
    world = calloc(1, sizeof *world);
    if (world == NULL)
      return comm_reject(BP_ERR_OUT_OF_MEMORY,
                         "xccl_comm_init_rank: out of memory");
    bp_status_t status = comm_segment_map(id, nranks, deadline_ns, world);
    if (status != BP_OK) {
      free(world);
      return status;
    }
  }
  int32_t none = 0;
  if (!atomic_compare_exchange_strong(&world->slots[rank].pid, &none,
                                      (int32_t)getpid())) {
    if (mapped_here) {
      comm_segment_unmap(world);
      free(world);
    }
    return comm_reject(BP_ERR_INVALID_ARGUMENT,
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
    comm_segment_unlink(world);
  comm_signal_progress(world->signal);
  *out_world = world;
  return BP_OK;
}

/* A world over MPI: one per communicator, no segment. */
static bp_status_t mpi_world_create(const comm_unique_id *id, size_t nranks,
                                    size_t rank, uint64_t deadline_ns,
                                    comm_world **out_world) {
  const comm_mpi_module *mpi = comm_mpi_module_load();
  if (mpi == NULL)
    return BP_ERR_UNSUPPORTED;
  comm_world *world = calloc(1, sizeof *world);
  if (world == NULL)
    return comm_reject(BP_ERR_OUT_OF_MEMORY,
                       "xccl_comm_init_rank: out of memory");
  char error[512] = "";
  int status = mpi->create(id->secret, nranks, rank, deadline_ns,
                           &world->mpi_handle, error, sizeof error);
  if (status != BP_OK) {
    free(world);
    return comm_reject((bp_status_t)status, "xccl_comm_init_rank: %s", error);
  }
  world->mpi = mpi;
  world->token = id->world_token;
  world->secret = id->secret;
  world->nranks = nranks;
  world->attached = 1;
  world->aborted = &world->local_aborted;
  world->signal = &world->local_signal;
  bp_status_t hybrid = comm_hybrid_setup(world, id, rank, deadline_ns);
  if (hybrid != BP_OK) {
    mpi->destroy(world->mpi_handle);
    free(world);
    return hybrid;
  }
  *out_world = world;
  return BP_OK;
}

bool comm_peer_is_local(const comm_world *world, size_t peer) {
  return atomic_load(&world->slots[peer].pid) == (int32_t)getpid();
}

bool comm_world_is_local(comm_world *world) {
  int locality = atomic_load(&world->locality);
  if (locality == 0) {
    locality = 1;
    for (size_t r = 0; r < world->nranks; r++)
      if (!comm_peer_is_local(world, r))
        locality = 2;
    atomic_store(&world->locality, locality);
  }
  return locality == 1;
}

/* A communicator over MPI (use_mpi) or over this host's shared memory. The
 * arguments are valid. */
static bp_status_t create(size_t nranks, const comm_unique_id *id, size_t rank,
                          bool use_mpi, C_CCLComm *out_comm) {
  C_CCLComm comm = aligned_alloc(_Alignof(struct C_CCLComm_st), sizeof *comm);
  if (comm != NULL)
    memset(comm, 0, sizeof *comm);
  _Atomic uint64_t *sends = calloc(nranks, sizeof *sends);
  _Atomic uint64_t *recvs = calloc(nranks, sizeof *recvs);
  if (comm == NULL || sends == NULL || recvs == NULL) {
    free(comm);
    free(sends);
    free(recvs);
    return comm_reject(BP_ERR_OUT_OF_MEMORY,
                       "xccl_comm_init_rank: out of memory");
  }
  uint64_t timeout_ns = comm_timeout_ms_from_env() * 1000000u;
  uint64_t deadline_ns = vcpu_now_ns() + timeout_ns;
  comm_world *world = NULL;
  bp_status_t status;
  if (use_mpi) {
    status = mpi_world_create(id, nranks, rank, deadline_ns, &world);
  } else {
    pthread_mutex_lock(&registry_lock);
    status = world_attach(id, nranks, rank, deadline_ns, &world);
    pthread_mutex_unlock(&registry_lock);
  }
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
  return create(nranks, &id, rank, comm_mpi_wanted(&id), out_comm);
}

bp_status_t comm_create_on_host(size_t nranks, const comm_unique_id *id,
                                size_t rank, C_CCLComm *out_comm) {
  return create(nranks, id, rank, false, out_comm);
}

/* Drops this communicator's hold on a segment world. */
static void segment_world_detach(comm_world *world) {
  pthread_mutex_lock(&registry_lock);
  /* A world one of whose ranks has left can never complete: a rank that
   * comes later must not find it (it makes a world of its own, waits and
   * fails), so the name goes now if it is still there. */
  comm_segment_unlink(world);
  if (--world->attached == 0) {
    world_unregister(world);
    comm_arena_unmap_all(world);
    pthread_mutex_destroy(&world->map_lock);
    comm_segment_unmap(world);
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

void comm_destroy(C_CCLComm comm) {
  if (comm == NULL)
    return;
  wait_for_tasks(comm);
  comm_world *world = comm->world;
  if (world->mpi != NULL) {
    world->mpi->destroy(world->mpi_handle);
    free(world);
  } else {
    segment_world_detach(world);
  }
  pthread_mutex_destroy(&comm->error_lock);
  free(comm->sends_to);
  free(comm->recvs_from);
  free(comm);
}

void comm_abort(C_CCLComm comm) {
  atomic_store_explicit(comm->world->aborted, true, memory_order_release);
  comm_signal_progress(comm->world->signal);
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
    /* A rank that gives up on its world removes the world's name. */
    if (comm->world->mpi == NULL)
      comm_segment_unlink(comm->world);
  }
  pthread_mutex_unlock(&comm->error_lock);
  return status;
}
