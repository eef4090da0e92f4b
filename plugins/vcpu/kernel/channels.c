/* Kernel worlds: the published buffers and channel flags of the ranks of one
 * communicator world, and the names device code acquires communicators by. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channels.h"
#include "comm/comm.h"
#include "device.h"
#include "kernels.h"
#include "base/park.h"

typedef struct kernel_world kernel_world;

typedef struct channel {
  kernel_world *world;
  uint32_t rank, peer;
} channel;

struct kernel_world {
  char name[64]; /* the communicator world's name */
  uint32_t nranks;
  struct {
    bp_comm_buffer_t buffer;
    _Atomic uint64_t round; /* resources calls so far */
  } ranks[BP_KERNEL_MAX_PEERS];
  /* raised[to][from]: signals from `from` to `to`; taken[to][from]: the ones
   * `to` consumed. */
  _Atomic uint64_t raised[BP_KERNEL_MAX_PEERS][BP_KERNEL_MAX_PEERS];
  _Atomic uint64_t taken[BP_KERNEL_MAX_PEERS][BP_KERNEL_MAX_PEERS];
  channel channels[BP_KERNEL_MAX_PEERS][BP_KERNEL_MAX_PEERS];
  comm_signal signal;
  kernel_world *next;
};

typedef struct comm_name {
  int device_id;
  char name[BP_KERNEL_COMM_NAME_MAX];
  kernel_world *world;
  uint32_t rank;
  _Atomic int acquired;
  struct comm_name *next;
} comm_name;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static kernel_world *g_worlds;
static comm_name *g_names;
static const atomic_bool g_never_aborted = false;

static kernel_world *world_for(C_CCLComm comm) {
  kernel_world *world = g_worlds;
  while (world && strcmp(world->name, comm->name) != 0)
    world = world->next;
  if (world || !(world = calloc(1, sizeof *world)))
    return world;
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
    if (atomic_load(&wait->world->ranks[r].round) < wait->round)
      return false;
  return true;
}

static C_Status name_comm(int device_id, const char *name, kernel_world *world,
                          uint32_t rank) {
  comm_name *entry = g_names;
  while (entry &&
         !(entry->device_id == device_id && strcmp(entry->name, name) == 0))
    entry = entry->next;
  if (!entry) {
    if (!(entry = calloc(1, sizeof *entry)))
      return vk_fail(C_FAILED, "comm_kernel_resources: out of memory");
    entry->device_id = device_id;
    snprintf(entry->name, sizeof entry->name, "%s", name);
    entry->next = g_names;
    g_names = entry;
  }
  entry->world = world;
  entry->rank = rank;
  return C_SUCCESS;
}

C_Status vk_comm_kernel_resources(const C_Device device, C_CCLComm comm,
                                  const char *name, void *local, size_t size,
                                  bp_kernel_resources_t *out) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev || !comm || !name || !out || (size && !local))
    return vk_fail(C_ERROR, "comm_kernel_resources: bad argument");
  if (!comm->world || comm->nranks > BP_KERNEL_MAX_PEERS)
    return vk_fail(C_ERROR,
                   "comm_kernel_resources: %s has %zu ranks (at most %d, "
                   "over shared memory)",
                   comm->name, comm->nranks, BP_KERNEL_MAX_PEERS);
  uint64_t deadline = vcpu_now_ns() + comm->timeout_ns;
  for (size_t peer = 0; peer < comm->nranks; ++peer) {
    while (!comm_peer_is_local(comm->world, peer) && vcpu_now_ns() < deadline)
      sched_yield(); /* not joined yet, or in another process */
    if (!comm_peer_is_local(comm->world, peer))
      return vk_fail(C_FAILED,
                     "comm_kernel_resources: rank %zu of %s has not joined or "
                     "lives in another process (device-side channels work "
                     "between ranks of one process)",
                     peer, comm->name);
  }
  pthread_mutex_lock(&g_lock);
  kernel_world *world = world_for(comm);
  C_Status status = world
                        ? name_comm(dev->id, name, world, (uint32_t)comm->rank)
                        : vk_fail(C_FAILED, "out of memory");
  uint64_t round = 0;
  if (status == C_SUCCESS) {
    world->ranks[comm->rank].buffer = (bp_comm_buffer_t){local, size};
    round = atomic_fetch_add(&world->ranks[comm->rank].round, 1) + 1;
  }
  pthread_mutex_unlock(&g_lock);
  if (status != C_SUCCESS)
    return status;
  comm_signal_progress(&world->signal);
  round_wait wait = {world, round};
  if (comm_wait(&world->signal, &g_never_aborted, deadline, everyone_published,
                NULL, &wait) != COMM_WAIT_READY)
    return vk_fail(C_FAILED,
                   "comm_kernel_resources: not every rank of %s published its "
                   "buffer within %llu ms",
                   comm->name,
                   (unsigned long long)(comm->timeout_ns / 1000000u));
  memset(out, 0, sizeof *out);
  out->local = (bp_comm_buffer_t){local, size};
  out->rank = (uint32_t)comm->rank;
  out->nranks = world->nranks;
  pthread_mutex_lock(&g_lock);
  for (uint32_t r = 0; r < world->nranks; ++r) {
    out->remote[r] = world->ranks[r].buffer;
    out->channel[r] =
        r == comm->rank
            ? 0
            : (bp_channel_t)(uintptr_t)&world->channels[comm->rank][r];
  }
  pthread_mutex_unlock(&g_lock);
  return C_SUCCESS;
}

static const channel *channel_of(bp_channel_t handle) {
  return (const channel *)(uintptr_t)handle;
}

static int range(const channel *c, uint64_t offset, uint64_t size,
                 void **out_addr) {
  if (!c)
    return BP_ERR_INVALID_ARGUMENT;
  bp_comm_buffer_t remote = c->world->ranks[c->peer].buffer;
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
  atomic_fetch_add_explicit(&c->world->raised[c->peer][c->rank], 1,
                            memory_order_release);
  comm_signal_progress(&c->world->signal);
  return BP_OK;
}

static bool raised_beyond_taken(void *context) {
  const channel *c = context;
  return atomic_load_explicit(&c->world->raised[c->rank][c->peer],
                              memory_order_acquire) >
         atomic_load_explicit(&c->world->taken[c->rank][c->peer],
                              memory_order_relaxed);
}

int vk_channel_wait(bp_channel_t handle, uint64_t deadline_ns) {
  const channel *c = channel_of(handle);
  if (!c)
    return BP_ERR_INVALID_ARGUMENT;
  if (comm_wait(&c->world->signal, &g_never_aborted, deadline_ns,
                raised_beyond_taken, NULL, (void *)c) != COMM_WAIT_READY)
    return BP_ERR_TIMEOUT;
  atomic_fetch_add_explicit(&c->world->taken[c->rank][c->peer], 1,
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
    free(g_worlds);
    g_worlds = next;
  }
  pthread_mutex_unlock(&g_lock);
}
