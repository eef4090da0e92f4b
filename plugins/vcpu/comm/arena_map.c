#include "comm/arena_map.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "comm/host.h"
#include "comm/meet.h"
#include "reduce/reduce.h"

typedef struct vcpu_comm_arena_map {
  int32_t pid, memfd; /* what is mapped; pid 0 when nothing */
  unsigned char *base;
  size_t size;
} vcpu_comm_arena_map_t;

void vcpu_comm_arena_publish(C_CCLComm comm, const vcpu_comm_desc_t *d) {
  vcpu_comm_location_t where = {0};
  int32_t send_fd = -1, recv_fd = -1;
  bool send_ok = d->send == NULL ||
                 vcpu_comm_host_locate(d->send, &send_fd, &where.send_offset);
  bool recv_ok = d->recv == NULL ||
                 vcpu_comm_host_locate(d->recv, &recv_fd, &where.recv_offset);
  where.memfd = send_fd >= 0 ? send_fd : recv_fd;
  where.shareable = send_ok && recv_ok && where.memfd >= 0 &&
                    (send_fd < 0 || recv_fd < 0 || send_fd == recv_fd);
  comm->world->slots[comm->rank].where = where;
}

bool vcpu_comm_arena_everyone_published(const vcpu_comm_world_t *world) {
  for (size_t r = 0; r < world->nranks; r++)
    if (!world->slots[r].where.shareable)
      return false;
  return true;
}

/* Maps rank r's arena if it is not mapped yet. Called under map_lock. */
static bool map_peer(vcpu_comm_world_t *world, size_t r, int32_t pid,
                     int32_t memfd) {
  vcpu_comm_arena_map_t *map = &world->maps[r];
  if (map->pid == pid && map->memfd == memfd)
    return true;
  if (map->pid != 0)
    munmap(map->base, map->size);
  map->pid = 0;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, (int)memfd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st;
  void *base = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size > 0)
    base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
                fd, 0);
  close(fd);
  if (base == MAP_FAILED)
    return false;
  *map = (vcpu_comm_arena_map_t){pid, memfd, base, (size_t)st.st_size};
  return true;
}

/* How many bytes of its send and receive buffers rank r's call spans. */
static void extents(const vcpu_comm_desc_t *d, size_t nranks, size_t *send,
                    size_t *recv) {
  size_t bytes = d->count * vcpu_comm_dtype_size(d->dtype);
  *send = d->kind == VCPU_COMM_REDUCE_SCATTER ? bytes * nranks : bytes;
  *recv = d->kind == VCPU_COMM_ALL_GATHER ? bytes * nranks : bytes;
}

bool vcpu_comm_arena_translate(C_CCLComm comm, uint64_t seq,
                               vcpu_comm_desc_t *peers) {
  vcpu_comm_world_t *world = comm->world;
  int32_t me = (int32_t)getpid();
  bool ok = true;
  pthread_mutex_lock(&world->map_lock);
  if (world->maps == NULL)
    world->maps = calloc(world->nranks, sizeof *world->maps);
  ok = world->maps != NULL;
  for (size_t r = 0; r < world->nranks && ok; r++) {
    const vcpu_comm_rank_slot_t *slot = &world->slots[r];
    peers[r] = *vcpu_comm_published_call(world, r, seq);
    int32_t pid = atomic_load(&slot->pid);
    if (pid == me)
      continue; /* its pointers are valid here */
    ok = map_peer(world, r, pid, slot->where.memfd);
    if (!ok)
      break;
    size_t send_bytes, recv_bytes;
    extents(&peers[r], world->nranks, &send_bytes, &recv_bytes);
    const vcpu_comm_arena_map_t *map = &world->maps[r];
    if (peers[r].send != NULL) {
      ok = slot->where.send_offset + send_bytes <= map->size;
      peers[r].send = map->base + slot->where.send_offset;
    }
    if (peers[r].recv != NULL) {
      ok = ok && slot->where.recv_offset + recv_bytes <= map->size;
      peers[r].recv = map->base + slot->where.recv_offset;
    }
  }
  pthread_mutex_unlock(&world->map_lock);
  return ok;
}

void vcpu_comm_arena_unmap_all(vcpu_comm_world_t *world) {
  for (size_t r = 0; world->maps && r < world->nranks; r++)
    if (world->maps[r].pid != 0)
      munmap(world->maps[r].base, world->maps[r].size);
  free(world->maps);
  world->maps = NULL;
}
