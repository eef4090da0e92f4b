#include "comm/segment.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/park.h"

enum {
  PAIR_BYTES = 256 * 1024,
  DEFAULT_SLOT_BYTES = 4 * 1024 * 1024,
  PAGE = 4096,
  /* A creator fills its segment in microseconds: one still blank after this
   * long was abandoned. */
  ABANDONED_BLANK_SECONDS = 60,
};

static const char SEGMENT_PREFIX[] = "bpvcpu-";

static size_t round_up(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/* The tag the secret gives the segment name (a 64-bit mix, so the name
 * reveals nothing usable about the secret). */
static uint64_t secret_tag(uint64_t secret, uint64_t token) {
  uint64_t z = secret ^ (token * 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

typedef struct layout {
  size_t slots, mailboxes, pair_buffers, data_slots, small_inputs, total;
} layout;

static layout layout_of(size_t nranks, size_t pair_bytes, size_t slot_bytes) {
  layout l;
  l.slots = round_up(sizeof(vcpu_comm_world_header_t), 64);
  l.mailboxes = round_up(l.slots + nranks * sizeof(vcpu_comm_rank_slot_t), 64);
  l.pair_buffers = round_up(
      l.mailboxes + nranks * nranks * sizeof(vcpu_comm_mailbox_t), PAGE);
  l.data_slots = round_up(l.pair_buffers + nranks * nranks * pair_bytes, PAGE);
  l.small_inputs = round_up(l.data_slots + nranks * slot_bytes, PAGE);
  l.total = l.small_inputs + nranks * 2 * (size_t)VCPU_COMM_SMALL_BYTES;
  return l;
}

static void set_views(vcpu_comm_world_t *world) {
  vcpu_comm_world_header_t *h = world->header;
  layout l = layout_of(h->nranks, h->pair_bytes, h->slot_bytes);
  char *base = (char *)h;
  world->token = h->token;
  world->secret = h->secret;
  world->nranks = h->nranks;
  world->signal = &h->signal;
  world->aborted = &h->aborted;
  world->slots = (vcpu_comm_rank_slot_t *)(base + l.slots);
  world->mailboxes = (vcpu_comm_mailbox_t *)(base + l.mailboxes);
  world->pair_buffers = (unsigned char *)base + l.pair_buffers;
  world->pair_bytes = h->pair_bytes;
  world->data_slots = (unsigned char *)base + l.data_slots;
  world->slot_bytes = h->slot_bytes;
  world->small_inputs = (unsigned char *)base + l.small_inputs;
}

/* True if /dev/shm holds a segment of this token under another tag. */
static bool other_secret_exists(uint64_t token, const char *own_name) {
  char prefix[40];
  snprintf(prefix, sizeof prefix, "%s%016" PRIx64 "-", SEGMENT_PREFIX, token);
  DIR *dir = opendir("/dev/shm");
  if (dir == NULL)
    return false;
  bool found = false;
  struct dirent *entry;
  while (!found && (entry = readdir(dir)) != NULL)
    found = strncmp(entry->d_name, prefix, strlen(prefix)) == 0 &&
            strcmp(entry->d_name, own_name + 1) != 0;
  closedir(dir);
  return found;
}

static size_t slot_bytes_from_env(void) {
  const char *text = getenv("BACKPLANE_COMM_SHM_SLOT_BYTES");
  if (text == NULL || *text == '\0')
    return DEFAULT_SLOT_BYTES;
  char *end;
  unsigned long long value = strtoull(text, &end, 10);
  if (*end != '\0' || value < PAGE || value > (1ull << 30))
    return DEFAULT_SLOT_BYTES;
  return round_up((size_t)value, PAGE);
}

uint64_t vcpu_comm_own_pid_namespace(void) {
  struct stat st;
  return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static bool process_is_dead(int32_t pid) {
  return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Whether a mapped segment of `size` bytes was left by processes that are
 * all gone (creator and every rank that joined). */
static bool segment_is_orphan(const vcpu_comm_world_header_t *h, size_t size,
                              uint64_t pid_namespace) {
  if (size < sizeof *h ||
      atomic_load_explicit(&h->ready, memory_order_acquire) !=
          VCPU_COMM_SEGMENT_READY ||
      h->total_bytes != size || h->nranks == 0 || h->nranks > 4096)
    return false;
  if (pid_namespace == 0 || h->pid_namespace != pid_namespace ||
      !process_is_dead(h->creator_pid))
    return false;
  layout l = layout_of(h->nranks, h->pair_bytes, h->slot_bytes);
  if (l.total != size)
    return false;
  const vcpu_comm_rank_slot_t *slots =
      (const vcpu_comm_rank_slot_t *)((const char *)h + l.slots);
  for (size_t r = 0; r < h->nranks; r++) {
    int32_t pid = atomic_load(&slots[r].pid);
    if (pid != 0 && !process_is_dead(pid))
      return false;
  }
  return true;
}

/* Whether the segment /dev/shm/<entry> should be removed. */
static bool should_remove(const char *entry, uint64_t pid_namespace) {
  char name[NAME_MAX + 2];
  snprintf(name, sizeof name, "/%s", entry);
  int fd = shm_open(name, O_RDONLY, 0);
  if (fd < 0)
    return false; /* gone already, or not ours */
  struct stat st;
  bool orphan = false;
  if (fstat(fd, &st) == 0 && st.st_uid == geteuid()) {
    bool old = time(NULL) - st.st_mtime > ABANDONED_BLANK_SECONDS;
    if ((size_t)st.st_size < sizeof(vcpu_comm_world_header_t)) {
      orphan = old;
    } else {
      void *base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
      if (base != MAP_FAILED) {
        const vcpu_comm_world_header_t *h = base;
        orphan = segment_is_orphan(h, (size_t)st.st_size, pid_namespace) ||
                 (old && atomic_load(&h->ready) != VCPU_COMM_SEGMENT_READY);
        munmap(base, (size_t)st.st_size);
      }
    }
  }
  close(fd);
  return orphan;
}

size_t vcpu_comm_segment_remove_orphans(void) {
  DIR *dir = opendir("/dev/shm");
  if (dir == NULL)
    return 0;
  uint64_t pid_namespace = vcpu_comm_own_pid_namespace();
  size_t removed = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (strncmp(entry->d_name, SEGMENT_PREFIX, strlen(SEGMENT_PREFIX)) != 0 ||
        !should_remove(entry->d_name, pid_namespace))
      continue;
    char name[NAME_MAX + 2];
    snprintf(name, sizeof name, "/%s", entry->d_name);
    if (shm_unlink(name) == 0)
      removed++;
  }
  closedir(dir);
  return removed;
}

static bp_status_t create(const char *name, int fd,
                          const vcpu_comm_unique_id_t *id, size_t nranks,
                          vcpu_comm_world_t *world) {
  size_t slot_bytes = slot_bytes_from_env();
  layout l = layout_of(nranks, PAIR_BYTES, slot_bytes);
  if (ftruncate(fd, (off_t)l.total) != 0) {
    int error = errno;
    shm_unlink(name);
    return vcpu_comm_reject(
        BP_ERR_PLUGIN,
        "xccl_comm_init_rank: cannot size shared memory %s to "
        "%zu bytes: %s",
        name, l.total, strerror(error));
  }
  void *base = mmap(NULL, l.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    int error = errno;
    shm_unlink(name);
    return vcpu_comm_reject(BP_ERR_PLUGIN,
                            "xccl_comm_init_rank: cannot map %s: %s", name,
                            strerror(error));
  }
  vcpu_comm_world_header_t *h = base; /* ftruncate zeroed everything */
  h->token = id->world_token;
  h->secret = id->secret;
  h->nranks = nranks;
  h->pair_bytes = PAIR_BYTES;
  h->slot_bytes = slot_bytes;
  h->total_bytes = l.total;
  h->creator_pid = (int32_t)getpid();
  h->pid_namespace = vcpu_comm_own_pid_namespace();
  atomic_store_explicit(&h->ready, VCPU_COMM_SEGMENT_READY,
                        memory_order_release);
  world->header = h;
  world->mapped_bytes = l.total;
  set_views(world);
  return BP_OK;
}

static bp_status_t open_existing(const char *name, int fd, size_t nranks,
                                 uint64_t deadline_ns,
                                 vcpu_comm_world_t *world) {
  struct stat st;
  for (;;) { /* the creator may not have sized it yet */
    if (fstat(fd, &st) != 0)
      return vcpu_comm_reject(BP_ERR_PLUGIN,
                              "xccl_comm_init_rank: fstat %s: %s", name,
                              strerror(errno));
    if (st.st_size > 0)
      break;
    if (vcpu_now_ns() > deadline_ns)
      return vcpu_comm_reject(
          BP_ERR_TIMEOUT,
          "xccl_comm_init_rank: %s was never initialized by "
          "its creator",
          name);
    sched_yield();
  }
  void *base =
      mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED)
    return vcpu_comm_reject(BP_ERR_PLUGIN,
                            "xccl_comm_init_rank: cannot map %s: %s", name,
                            strerror(errno));
  vcpu_comm_world_header_t *h = base;
  while (atomic_load_explicit(&h->ready, memory_order_acquire) !=
         VCPU_COMM_SEGMENT_READY) {
    if (vcpu_now_ns() > deadline_ns) {
      munmap(base, (size_t)st.st_size);
      return vcpu_comm_reject(
          BP_ERR_TIMEOUT,
          "xccl_comm_init_rank: %s was never initialized by "
          "its creator",
          name);
    }
    sched_yield();
  }
  if (h->nranks != nranks || h->total_bytes != (uint64_t)st.st_size) {
    uint64_t theirs = h->nranks;
    munmap(base, (size_t)st.st_size);
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "xccl_comm_init_rank: says nranks=%zu but world %s "
                            "has %" PRIu64 " ranks",
                            nranks, name, theirs);
  }
  world->header = h;
  world->mapped_bytes = (size_t)st.st_size;
  set_views(world);
  return BP_OK;
}

bp_status_t vcpu_comm_segment_map(const vcpu_comm_unique_id_t *id,
                                  size_t nranks, uint64_t deadline_ns,
                                  vcpu_comm_world_t *world) {
  snprintf(world->segment_name, sizeof world->segment_name,
           "/%s%016" PRIx64 "-%016" PRIx64, SEGMENT_PREFIX, id->world_token,
           secret_tag(id->secret, id->world_token));
  const char *name = world->segment_name;
  vcpu_comm_segment_remove_orphans();
  if (other_secret_exists(id->world_token, name))
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "xccl_comm_init_rank: presented a wrong secret for "
                            "world %016" PRIx64 ": refused",
                            id->world_token);
  int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
  bp_status_t status;
  if (fd >= 0) {
    status = create(name, fd, id, nranks, world);
  } else if (errno == EEXIST && (fd = shm_open(name, O_RDWR, 0600)) >= 0) {
    status = open_existing(name, fd, nranks, deadline_ns, world);
  } else {
    return vcpu_comm_reject(
        BP_ERR_PLUGIN,
        "xccl_comm_init_rank: cannot open shared memory %s: "
        "%s",
        name, strerror(errno));
  }
  close(fd);
  return status;
}

void vcpu_comm_segment_unlink(vcpu_comm_world_t *world) {
  if (!atomic_exchange(&world->header->unlinked, true))
    shm_unlink(world->segment_name);
}

void vcpu_comm_segment_unmap(vcpu_comm_world_t *world) {
  munmap(world->header, world->mapped_bytes);
}
