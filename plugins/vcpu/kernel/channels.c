/* Kernel worlds: the published buffers and channel flags of the ranks of one
 * communicator world, in a POSIX shared-memory segment named after the world
 * so ranks in other processes of this host share it, and the names device
 * code acquires communicators by. A rank's buffer must lie in its device's
 * memfd arena; a peer in another process maps that arena through
 * /proc/<pid>/fd/<memfd> (as the collectives' single-copy path does), a peer
 * in this process is used as is. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/park.h"
#include "channels.h"
#include "comm/comm.h"
#include "device.h"
#include "kernels.h"

/* What every rank of the world sees (the segment). */
typedef struct shared_rank {
  _Atomic int32_t pid;    /* 0 until the rank published */
  int32_t memfd;          /* its arena's fd in its process */
  uint64_t arena_size;    /* the arena's capacity */
  uint64_t offset;        /* of the buffer in the arena */
  uint64_t size;          /* of the buffer */
  void *addr;             /* the buffer in its own process */
  _Atomic uint64_t round; /* resources calls so far */
} shared_rank;

typedef struct shared_world {
  vcpu_comm_signal_t signal;
  shared_rank ranks[BP_KERNEL_MAX_PEERS];
  /* raised[to][from]: signals from `from` to `to`; taken[to][from]: the ones
   * `to` consumed. */
  _Atomic uint64_t raised[BP_KERNEL_MAX_PEERS][BP_KERNEL_MAX_PEERS];
  _Atomic uint64_t taken[BP_KERNEL_MAX_PEERS][BP_KERNEL_MAX_PEERS];
} shared_world;

typedef struct kernel_world kernel_world;

typedef struct channel {
  kernel_world *world;
  uint32_t rank, peer;
} channel;

/* This process's view of a world. */
struct kernel_world {
  char name[64]; /* the communicator world's name */
  uint32_t nranks;
  shared_world *shared;
  bp_comm_buffer_t mapped[BP_KERNEL_MAX_PEERS]; /* peers' buffers, here */
  void *arena_maps[BP_KERNEL_MAX_PEERS];        /* mappings we made */
  size_t arena_sizes[BP_KERNEL_MAX_PEERS];
  channel channels[BP_KERNEL_MAX_PEERS][BP_KERNEL_MAX_PEERS];
  kernel_world *next;
};

typedef struct comm_name {
  int device_id;
  char name[BP_KERNEL_COMM_NAME_MAX];
  _Atomic int acquired;
  struct comm_name *next;
} comm_name;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static kernel_world *g_worlds;
static comm_name *g_names;
static const atomic_bool g_never_aborted = false;

/* "/bp-kernels-<name with ':' and '/' as '-'>". */
static void segment_name(const char *world, char *out, size_t capacity) {
  snprintf(out, capacity, "/bp-kernels-%s", world);
  for (char *c = out + 1; *c; ++c)
    if (*c == '/' || *c == ':')
      *c = '-';
}

/* The world of `comm`, mapping its segment on first use; under g_lock. */
static kernel_world *world_for(C_CCLComm comm) {
  kernel_world *world = g_worlds;
  while (world && strcmp(world->name, comm->name) != 0)
    world = world->next;
  if (world || !(world = calloc(1, sizeof *world)))
    return world;
  char name[128];
  segment_name(comm->name, name, sizeof name);
  int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
  if (fd < 0 || ftruncate(fd, sizeof(shared_world)) != 0) {
    vk_fail(C_FAILED, "comm_kernel_resources: shared memory %s: %s", name,
            strerror(errno));
    if (fd >= 0)
      close(fd);
    free(world);
    return NULL;
  }
  void *base = mmap(NULL, sizeof(shared_world), PROT_READ | PROT_WRITE,
                    MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) {
    vk_fail(C_FAILED, "comm_kernel_resources: mapping %s: %s", name,
            strerror(errno));
    free(world);
    return NULL;
  }
  world->shared = base; /* ftruncate zeroed a new segment */
  snprintf(world->name, sizeof world->name, "%s", comm->name);
  world->nranks = (uint32_t)comm->nranks;
  for (uint32_t r = 0; r < world->nranks; ++r)
    for (uint32_t p = 0; p < world->nranks; ++p)
      world->channels[r][p] = (channel){world, r, p};
  world->next = g_worlds;
  g_worlds = world;
  return world;
}

typedef struct round_wait {
  kernel_world *world;
  uint64_t round;
} round_wait;

static bool everyone_published(void *context) {
  round_wait *wait = context;
  for (uint32_t r = 0; r < wait->world->nranks; ++r)
    if (atomic_load(&wait->world->shared->ranks[r].round) < wait->round)
      return false;
  return true;
}

/* Rank r's buffer in this process: its own address when it lives here, else
 * through a mapping of its arena (made once). Under g_lock. */
static bool map_peer(kernel_world *world, uint32_t r) {
  shared_rank *peer = &world->shared->ranks[r];
  int32_t pid = atomic_load(&peer->pid);
  if (pid == getpid()) {
    world->mapped[r] = (bp_comm_buffer_t){peer->addr, peer->size};
    return true;
  }
  if (!world->arena_maps[r]) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, (int)peer->memfd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    void *base = fd >= 0 ? mmap(NULL, peer->arena_size, PROT_READ | PROT_WRITE,
                                MAP_SHARED, fd, 0)
                         : MAP_FAILED;
    if (fd >= 0)
      close(fd);
    if (base == MAP_FAILED) {
      vk_fail(C_FAILED,
              "comm_kernel_resources: cannot map rank %u's device memory "
              "(%s): %s",
              r, path, strerror(errno));
      return false;
    }
    world->arena_maps[r] = base;
    world->arena_sizes[r] = peer->arena_size;
  }
  world->mapped[r] = (bp_comm_buffer_t){
      (char *)world->arena_maps[r] + peer->offset, peer->size};
  return true;
}

static C_Status name_comm(int device_id, const char *name) {
  comm_name *entry = g_names;
  while (entry &&
         !(entry->device_id == device_id && strcmp(entry->name, name) == 0))
    entry = entry->next;
  if (entry)
    return C_SUCCESS;
  if (!(entry = calloc(1, sizeof *entry)))
    return vk_fail(C_FAILED, "comm_kernel_resources: out of memory");
  entry->device_id = device_id;
  snprintf(entry->name, sizeof entry->name, "%s", name);
  entry->next = g_names;
  g_names = entry;
  return C_SUCCESS;
}

/* Publishes this rank's buffer; returns the round to wait for, 0 on error. */
static uint64_t publish(vcpu_device *dev, C_CCLComm comm, const char *name,
                        void *local, size_t size, kernel_world **out_world) {
  pthread_mutex_lock(&g_lock);
  kernel_world *world = world_for(comm);
  uint64_t round = 0;
  if (world && name_comm(dev->id, name) == C_SUCCESS) {
    shared_rank *me = &world->shared->ranks[comm->rank];
    me->memfd = dev->arena.memfd;
    me->arena_size = dev->arena.capacity;
    me->offset = (uint64_t)((char *)local - dev->arena.base);
    me->size = size;
    me->addr = local;
    atomic_store(&me->pid, (int32_t)getpid());
    round = atomic_fetch_add(&me->round, 1) + 1;
  }
  pthread_mutex_unlock(&g_lock);
  if (round)
    vcpu_comm_signal_progress(&world->shared->signal);
  *out_world = world;
  return round;
}

C_Status vk_comm_kernel_resources(const C_Device device, C_CCLComm comm,
                                  const char *name, void *local, size_t size,
                                  bp_kernel_resources_t *out) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev || !comm || !name || !out || !local || !size)
    return vk_fail(C_ERROR, "comm_kernel_resources: bad argument (the local "
                            "buffer must be non-empty)");
  if (comm->world->mpi != NULL)
    return vk_fail(C_ERROR,
                   "comm_kernel_resources: %s runs over MPI, so its ranks may "
                   "be on other hosts, and kernel channels reach a peer's "
                   "device memory through this host's shared memory: use a "
                   "communicator of ranks on one host "
                   "(BACKPLANE_COMM_TRANSPORT=shm or threads)",
                   comm->name);
  if (comm->nranks > BP_KERNEL_MAX_PEERS || comm->rank >= comm->nranks)
    return vk_fail(C_ERROR,
                   "comm_kernel_resources: %s has %zu ranks (at most %d)",
                   comm->name, comm->nranks, BP_KERNEL_MAX_PEERS);
  if (!vcpu_arena_contains(&dev->arena, local, size))
    return vk_fail(C_ERROR,
                   "comm_kernel_resources: the local buffer %p (%zu bytes) is "
                   "not device memory of vcpu:%d",
                   local, size, dev->id);
  kernel_world *world = NULL;
  uint64_t round = publish(dev, comm, name, local, size, &world);
  if (!round)
    return C_FAILED; /* vk_fail said why */
  round_wait wait = {world, round};
  if (vcpu_comm_wait(&world->shared->signal, &g_never_aborted,
                     vcpu_now_ns() + comm->timeout_ns, everyone_published, NULL,
                     &wait) != VCPU_COMM_WAIT_READY)
    return vk_fail(C_FAILED,
                   "comm_kernel_resources: not every rank of %s published its "
                   "buffer within %llu ms",
                   comm->name,
                   (unsigned long long)(comm->timeout_ns / 1000000u));
  char segment[128];
  segment_name(comm->name, segment, sizeof segment);
  shm_unlink(segment); /* every rank has it mapped now */
  memset(out, 0, sizeof *out);
  out->local = (bp_comm_buffer_t){local, size};
  out->rank = (uint32_t)comm->rank;
  out->nranks = world->nranks;
  C_Status status = C_SUCCESS;
  pthread_mutex_lock(&g_lock);
  for (uint32_t r = 0; r < world->nranks && status == C_SUCCESS; ++r) {
    if (!map_peer(world, r))
      status = C_FAILED;
    out->remote[r] = world->mapped[r];
    out->channel[r] =
        r == comm->rank
            ? 0
            : (bp_channel_t)(uintptr_t)&world->channels[comm->rank][r];
  }
  pthread_mutex_unlock(&g_lock);
  return status;
}

static const channel *channel_of(bp_channel_t handle) {
  return (const channel *)(uintptr_t)handle;
}

static int range(const channel *c, uint64_t offset, uint64_t size,
                 void **out_addr) {
  if (!c)
    return BP_ERR_INVALID_ARGUMENT;
  bp_comm_buffer_t remote = c->world->mapped[c->peer];
  if (offset > remote.size || size > remote.size - offset)
    return BP_ERR_INVALID_ARGUMENT;
  *out_addr = (char *)remote.addr + offset;
  return BP_OK;
}

int vk_channel_write(bp_channel_t handle, uint64_t offset, const void *src,
                     uint64_t size) {
  void *addr;
  int status = range(channel_of(handle), offset, size, &addr);
  if (status == BP_OK && size)
    memcpy(addr, src, size);
  return status;
}

int vk_channel_read(bp_channel_t handle, void *dst, uint64_t offset,
                    uint64_t size) {
  void *addr;
  int status = range(channel_of(handle), offset, size, &addr);
  if (status == BP_OK && size)
    memcpy(dst, addr, size);
  return status;
}

int vk_channel_signal(bp_channel_t handle) {
  const channel *c = channel_of(handle);
  if (!c)
    return BP_ERR_INVALID_ARGUMENT;
  shared_world *shared = c->world->shared;
  atomic_fetch_add_explicit(&shared->raised[c->peer][c->rank], 1,
                            memory_order_release);
  vcpu_comm_signal_progress(&shared->signal);
  return BP_OK;
}

static bool raised_beyond_taken(void *context) {
  const channel *c = context;
  shared_world *shared = c->world->shared;
  return atomic_load_explicit(&shared->raised[c->rank][c->peer],
                              memory_order_acquire) >
         atomic_load_explicit(&shared->taken[c->rank][c->peer],
                              memory_order_relaxed);
}

int vk_channel_wait(bp_channel_t handle, uint64_t deadline_ns) {
  const channel *c = channel_of(handle);
  if (!c)
    return BP_ERR_INVALID_ARGUMENT;
  shared_world *shared = c->world->shared;
  if (vcpu_comm_wait(&shared->signal, &g_never_aborted, deadline_ns,
                     raised_beyond_taken, NULL,
                     (void *)c) != VCPU_COMM_WAIT_READY)
    return BP_ERR_TIMEOUT;
  atomic_fetch_add_explicit(&shared->taken[c->rank][c->peer], 1,
                            memory_order_relaxed);
  return BP_OK;
}

int vk_comm_acquire(int device_id, const char *name,
                    bp_device_comm_t *out_comm) {
  if (!name || !out_comm)
    return BP_ERR_INVALID_ARGUMENT;
  pthread_mutex_lock(&g_lock);
  comm_name *entry = g_names;
  while (entry &&
         !(entry->device_id == device_id && strcmp(entry->name, name) == 0))
    entry = entry->next;
  if (entry)
    atomic_fetch_add(&entry->acquired, 1);
  pthread_mutex_unlock(&g_lock);
  if (!entry)
    return BP_ERR_NOT_FOUND;
  *out_comm = (bp_device_comm_t)(uintptr_t)entry;
  return BP_OK;
}

int vk_comm_release(int device_id, const char *name) {
  if (!name)
    return BP_ERR_INVALID_ARGUMENT;
  int status = BP_ERR_NOT_FOUND;
  pthread_mutex_lock(&g_lock);
  for (comm_name *e = g_names; e; e = e->next)
    if (e->device_id == device_id && strcmp(e->name, name) == 0 &&
        atomic_load(&e->acquired) > 0) {
      atomic_fetch_sub(&e->acquired, 1);
      status = BP_OK;
      break;
    }
  pthread_mutex_unlock(&g_lock);
  return status;
}

void vk_comm_shutdown(void) {
  pthread_mutex_lock(&g_lock);
  while (g_names) {
    comm_name *next = g_names->next;
    free(g_names);
    g_names = next;
  }
  while (g_worlds) {
    kernel_world *next = g_worlds->next;
    for (uint32_t r = 0; r < g_worlds->nranks; ++r)
      if (g_worlds->arena_maps[r])
        munmap(g_worlds->arena_maps[r], g_worlds->arena_sizes[r]);
    munmap(g_worlds->shared, sizeof(shared_world));
    free(g_worlds);
    g_worlds = next;
  }
  pthread_mutex_unlock(&g_lock);
}
