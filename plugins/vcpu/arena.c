/* memfd arena and its range allocator. */
#include "arena.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t round_to_page(size_t size) {
  return (size + VCPU_ARENA_PAGE - 1) & ~(size_t)(VCPU_ARENA_PAGE - 1);
}

int vcpu_arena_create(vcpu_arena *arena, size_t capacity, const char *name) {
  *arena = (vcpu_arena){.memfd = -1};
  capacity = round_to_page(capacity);
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0)
    return errno;
  if (ftruncate(fd, (off_t)capacity) != 0) {
    int error = errno;
    close(fd);
    return error;
  }
  void *base = mmap(NULL, capacity, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_NORESERVE, fd, 0);
  if (base == MAP_FAILED) {
    int error = errno;
    close(fd);
    return error;
  }
  vcpu_range *ranges = malloc(4 * sizeof *ranges);
  if (!ranges) {
    munmap(base, capacity);
    close(fd);
    return ENOMEM;
  }
  ranges[0] = (vcpu_range){0, capacity};
  arena->memfd = fd;
  arena->base = base;
  arena->capacity = capacity;
  arena->free_ranges = ranges;
  arena->free_count = 1;
  arena->free_capacity = 4;
  pthread_mutex_init(&arena->lock, NULL);
  return 0;
}

void vcpu_arena_destroy(vcpu_arena *arena) {
  if (!arena->base)
    return;
  munmap(arena->base, arena->capacity);
  close(arena->memfd);
  free(arena->free_ranges);
  vcpu_ptrmap_clear(&arena->live);
  pthread_mutex_destroy(&arena->lock);
  *arena = (vcpu_arena){.memfd = -1};
}

static void punch(vcpu_arena *arena, size_t offset, size_t length) {
  /* Best effort: without hole punching the pages merely stay resident. */
  (void)fallocate(arena->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  (off_t)offset, (off_t)length);
}

/* free_count <= live_count + 1 always holds (an allocation never adds a free
 * range, a free adds at most one), so reserving live + 2 slots at allocation
 * time means a free never has to grow the array. */
static bool reserve_ranges(vcpu_arena *arena) {
  size_t need = arena->live.count + 2;
  if (need <= arena->free_capacity)
    return true;
  size_t capacity = arena->free_capacity * 2;
  if (capacity < need)
    capacity = need;
  vcpu_range *ranges =
      realloc(arena->free_ranges, capacity * sizeof *arena->free_ranges);
  if (!ranges)
    return false;
  arena->free_ranges = ranges;
  arena->free_capacity = capacity;
  return true;
}

static void remove_range(vcpu_arena *arena, size_t index) {
  memmove(&arena->free_ranges[index], &arena->free_ranges[index + 1],
          (arena->free_count - index - 1) * sizeof *arena->free_ranges);
  arena->free_count--;
}

C_Status vcpu_arena_allocate(vcpu_arena *arena, size_t size, void **out) {
  if (size > arena->capacity)
    return C_FAILED;
  size_t length = round_to_page(size);
  C_Status status = C_FAILED;
  pthread_mutex_lock(&arena->lock);
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < arena->free_count; ++i) {
    size_t candidate = arena->free_ranges[i].length;
    if (candidate >= length &&
        (best == SIZE_MAX || candidate < arena->free_ranges[best].length))
      best = i;
  }
  if (best != SIZE_MAX && reserve_ranges(arena)) {
    vcpu_range *range = &arena->free_ranges[best];
    size_t offset = range->offset;
    if (vcpu_ptrmap_insert(&arena->live, (uintptr_t)(arena->base + offset),
                           size)) {
      range->offset += length;
      range->length -= length;
      if (range->length == 0)
        remove_range(arena, best);
      arena->used += length;
      *out = arena->base + offset;
      status = C_SUCCESS;
    }
  }
  pthread_mutex_unlock(&arena->lock);
  return status;
}

/* Inserts [offset, offset + length) and merges it with its neighbours. */
static void insert_range(vcpu_arena *arena, size_t offset, size_t length) {
  size_t lo = 0, hi = arena->free_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (arena->free_ranges[mid].offset < offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  vcpu_range *ranges = arena->free_ranges;
  bool joins_prev =
      lo > 0 && ranges[lo - 1].offset + ranges[lo - 1].length == offset;
  bool joins_next =
      lo < arena->free_count && offset + length == ranges[lo].offset;
  if (joins_prev && joins_next) {
    ranges[lo - 1].length += length + ranges[lo].length;
    remove_range(arena, lo);
  } else if (joins_prev) {
    ranges[lo - 1].length += length;
  } else if (joins_next) {
    ranges[lo].offset = offset;
    ranges[lo].length += length;
  } else {
    memmove(&ranges[lo + 1], &ranges[lo],
            (arena->free_count - lo) * sizeof *ranges);
    ranges[lo] = (vcpu_range){offset, length};
    arena->free_count++;
  }
}

C_Status vcpu_arena_free(vcpu_arena *arena, void *ptr, size_t size) {
  pthread_mutex_lock(&arena->lock);
  vcpu_ptrmap_entry *entry = vcpu_ptrmap_find(&arena->live, (uintptr_t)ptr);
  if (!entry || entry->size != size) {
    pthread_mutex_unlock(&arena->lock);
    return C_ERROR;
  }
  vcpu_ptrmap_remove(&arena->live, entry);
  size_t offset = (size_t)((char *)ptr - arena->base);
  size_t length = round_to_page(size);
  if (length >= VCPU_ARENA_PUNCH_MIN)
    punch(arena, offset, length);
  insert_range(arena, offset, length);
  arena->used -= length;
  pthread_mutex_unlock(&arena->lock);
  return C_SUCCESS;
}

void vcpu_arena_reset(vcpu_arena *arena) {
  pthread_mutex_lock(&arena->lock);
  vcpu_ptrmap_clear(&arena->live);
  arena->free_ranges[0] = (vcpu_range){0, arena->capacity};
  arena->free_count = 1;
  arena->used = 0;
  punch(arena, 0, arena->capacity);
  pthread_mutex_unlock(&arena->lock);
}

vcpu_arena_usage_info vcpu_arena_usage(vcpu_arena *arena) {
  pthread_mutex_lock(&arena->lock);
  vcpu_arena_usage_info usage = {arena->used, arena->live.count,
                                 arena->live.total_size};
  pthread_mutex_unlock(&arena->lock);
  return usage;
}
