/* Watching a world's peer processes through pidfds (comm/liveness.h). */
#include "comm/liveness.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "comm/segment.h"

/* What a process knows about one peer rank's process. */
enum {
  PEER_UNOPENED = -1,  /* not joined yet, or its pidfd not opened yet */
  PEER_UNWATCHED = -2, /* in this process: nothing to watch */
  PEER_BY_KILL = -3,   /* no pidfd here: checked with kill(pid, 0) */
};

struct vcpu_comm_liveness {
  pthread_mutex_t lock;  /* one checker at a time; others skip */
  bool watched;          /* the world's pids are of our pid namespace */
  int32_t self;          /* getpid() */
  int *fds;              /* nranks: a pidfd or a PEER_* state */
  struct pollfd *polled; /* nranks: scratch for poll() */
  size_t *polled_rank;   /* nranks: the rank of each polled entry */
};

bool vcpu_comm_liveness_open(vcpu_comm_world_t *world) {
  struct vcpu_comm_liveness *l = calloc(1, sizeof *l);
  size_t n = world->nranks;
  if (l != NULL) {
    l->fds = malloc(n * sizeof *l->fds);
    l->polled = malloc(n * sizeof *l->polled);
    l->polled_rank = malloc(n * sizeof *l->polled_rank);
  }
  if (l == NULL || !l->fds || !l->polled || !l->polled_rank) {
    if (l != NULL) {
      free(l->fds);
      free(l->polled);
      free(l->polled_rank);
    }
    free(l);
    return false;
  }
  pthread_mutex_init(&l->lock, NULL);
  uint64_t ns = vcpu_comm_own_pid_namespace();
  l->watched = ns != 0 && ns == world->header->pid_namespace;
  l->self = (int32_t)getpid();
  for (size_t r = 0; r < n; r++)
    l->fds[r] = PEER_UNOPENED;
  world->liveness = l;
  return true;
}

void vcpu_comm_liveness_close(vcpu_comm_world_t *world) {
  struct vcpu_comm_liveness *l = world->liveness;
  if (l == NULL)
    return;
  for (size_t r = 0; r < world->nranks; r++)
    if (l->fds[r] >= 0)
      close(l->fds[r]);
  pthread_mutex_destroy(&l->lock);
  free(l->fds);
  free(l->polled);
  free(l->polled_rank);
  free(l);
  world->liveness = NULL;
}

void vcpu_comm_liveness_leave(vcpu_comm_world_t *world, size_t rank) {
  if (world->header != NULL)
    atomic_store_explicit(&world->slots[rank].left, true, memory_order_release);
}

bool vcpu_comm_liveness_lost(const vcpu_comm_world_t *world, size_t *out_rank,
                             int32_t *out_pid) {
  if (world->header == NULL)
    return false;
  uint64_t lost =
      atomic_load_explicit(&world->header->lost, memory_order_acquire);
  if (lost == 0)
    return false;
  *out_rank = (size_t)(lost - 1);
  *out_pid = atomic_load(&world->slots[lost - 1].pid);
  return true;
}

/* Rank r's process ended: records it as lost (unless another was recorded
 * first), or, if it left the world before, stops watching it. */
static void peer_ended(struct vcpu_comm_liveness *l, vcpu_comm_world_t *world,
                       size_t r) {
  if (atomic_load_explicit(&world->slots[r].left, memory_order_acquire)) {
    if (l->fds[r] >= 0)
      close(l->fds[r]);
    l->fds[r] = PEER_UNWATCHED; /* destroyed its communicator first */
    return;
  }
  uint64_t none = 0;
  atomic_compare_exchange_strong(&world->header->lost, &none, (uint64_t)r + 1);
  atomic_store_explicit(world->aborted, true, memory_order_release);
  vcpu_comm_signal_progress(world->signal);
}

static bool process_gone(int32_t pid) {
  return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Opens the pidfd of rank r's process once its pid is known. Returns false
 * when that process is already gone. */
static bool open_peer(struct vcpu_comm_liveness *l, vcpu_comm_world_t *world,
                      size_t r) {
  int32_t pid = atomic_load(&world->slots[r].pid);
  if (pid == 0)
    return true; /* not joined yet */
  if (pid == l->self) {
    l->fds[r] = PEER_UNWATCHED;
    return true;
  }
  long fd = syscall(SYS_pidfd_open, (pid_t)pid, 0u);
  if (fd >= 0) {
    l->fds[r] = (int)fd;
    return true;
  }
  if (errno == ESRCH)
    return false;
  l->fds[r] = PEER_BY_KILL; /* ENOSYS, EMFILE, ...: the slower way */
  return !process_gone(pid);
}

void vcpu_comm_liveness_check(vcpu_comm_world_t *world) {
  struct vcpu_comm_liveness *l = world->liveness;
  if (l == NULL || !l->watched || pthread_mutex_trylock(&l->lock) != 0)
    return;
  nfds_t count = 0;
  for (size_t r = 0; r < world->nranks; r++) {
    if (l->fds[r] == PEER_UNOPENED && !open_peer(l, world, r)) {
      peer_ended(l, world, r);
      continue;
    }
    if (l->fds[r] == PEER_BY_KILL &&
        process_gone(atomic_load(&world->slots[r].pid)))
      peer_ended(l, world, r);
    if (l->fds[r] >= 0) {
      l->polled[count] = (struct pollfd){.fd = l->fds[r], .events = POLLIN};
      l->polled_rank[count++] = r;
    }
  }
  if (count > 0 && poll(l->polled, count, 0) > 0)
    for (nfds_t i = 0; i < count; i++)
      if (l->polled[i].revents & (POLLIN | POLLHUP | POLLERR))
        peer_ended(l, world, l->polled_rank[i]);
  pthread_mutex_unlock(&l->lock);
}

static void check_peers(void *world) {
  vcpu_comm_liveness_check(world);
}

vcpu_comm_wait_result_t
vcpu_comm_wait_world(vcpu_comm_world_t *world, uint64_t deadline_ns,
                     bool (*ready)(void *context),
                     bool (*should_yield)(void *context), void *context) {
  return vcpu_comm_wait_watching(world->signal, world->aborted, deadline_ns,
                                 ready, should_yield, context, check_peers,
                                 world);
}
