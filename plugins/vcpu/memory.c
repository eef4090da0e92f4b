/* Memory entry points: device memory from the arenas, host and unified memory
 * from page-aligned host allocations tracked in address maps. */
#include "memory.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "device.h"

C_Status vcpu_device_memory_allocate(const C_Device device, void **ptr,
                                     size_t size) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev || !ptr)
    return C_ERROR;
  if (size == 0) {
    *ptr = NULL;
    return C_SUCCESS;
  }
  return vcpu_arena_allocate(&dev->arena, size, ptr);
}

C_Status vcpu_device_memory_deallocate(const C_Device device, void *ptr,
                                       size_t size) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev)
    return C_ERROR;
  if (!ptr)
    return size == 0 ? C_SUCCESS : C_ERROR;
  return vcpu_arena_free(&dev->arena, ptr, size);
}

C_Status vcpu_device_memory_set(const C_Device device, void *ptr,
                                unsigned char value, size_t size) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev)
    return C_ERROR;
  if (size == 0)
    return C_SUCCESS;
  if (!ptr || !vcpu_arena_contains(&dev->arena, ptr, size))
    return C_ERROR;
  memset(ptr, value, size);
  return C_SUCCESS;
}

/* One accounted family of host allocations. */
typedef struct host_family {
  const char *name;
  pthread_mutex_t lock;
  vcpu_ptrmap live; /* address -> requested size */
} host_family;

static host_family g_host = {"host", PTHREAD_MUTEX_INITIALIZER, {0}};
static host_family g_unified = {"unified", PTHREAD_MUTEX_INITIALIZER, {0}};

static C_Status host_allocate(host_family *family, const C_Device device,
                              void **ptr, size_t size) {
  if (!vcpu_device_get(device) || !ptr)
    return C_ERROR;
  if (size == 0) {
    *ptr = NULL;
    return C_SUCCESS;
  }
  void *memory = NULL;
  if (posix_memalign(&memory, VCPU_ARENA_PAGE, size) != 0)
    return C_FAILED;
  pthread_mutex_lock(&family->lock);
  bool recorded = vcpu_ptrmap_insert(&family->live, (uintptr_t)memory, size);
  pthread_mutex_unlock(&family->lock);
  if (!recorded) {
    free(memory);
    return C_FAILED;
  }
  *ptr = memory;
  return C_SUCCESS;
}

static C_Status host_deallocate(host_family *family, const C_Device device,
                                void *ptr, size_t size) {
  if (!vcpu_device_get(device))
    return C_ERROR;
  if (!ptr)
    return size == 0 ? C_SUCCESS : C_ERROR;
  pthread_mutex_lock(&family->lock);
  vcpu_ptrmap_entry *entry = vcpu_ptrmap_find(&family->live, (uintptr_t)ptr);
  bool matches = entry && entry->size == size;
  if (matches)
    vcpu_ptrmap_remove(&family->live, entry);
  pthread_mutex_unlock(&family->lock);
  if (!matches)
    return C_ERROR;
  free(ptr);
  return C_SUCCESS;
}

static void host_release_all(host_family *family) {
  pthread_mutex_lock(&family->lock);
  if (family->live.count != 0) {
    fprintf(stderr,
            "backplane vcpu: finalize found %zu live %s allocation(s) of %zu "
            "bytes; released\n",
            family->live.count, family->name, family->live.total_size);
    for (size_t i = 0; i < family->live.capacity; ++i)
      free((void *)family->live.slots[i].key); /* free(NULL) for empty slots */
  }
  vcpu_ptrmap_clear(&family->live);
  pthread_mutex_unlock(&family->lock);
}

void vcpu_host_memory_release_all(void) {
  host_release_all(&g_host);
  host_release_all(&g_unified);
}

C_Status vcpu_host_memory_allocate(const C_Device device, void **ptr,
                                   size_t size) {
  return host_allocate(&g_host, device, ptr, size);
}

C_Status vcpu_host_memory_deallocate(const C_Device device, void *ptr,
                                     size_t size) {
  return host_deallocate(&g_host, device, ptr, size);
}

C_Status vcpu_unified_memory_allocate(const C_Device device, void **ptr,
                                      size_t size) {
  return host_allocate(&g_unified, device, ptr, size);
}

C_Status vcpu_unified_memory_deallocate(const C_Device device, void *ptr,
                                        size_t size) {
  return host_deallocate(&g_unified, device, ptr, size);
}

C_Status vcpu_device_memory_stats(const C_Device device, size_t *total,
                                  size_t *free_memory) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev || !total || !free_memory)
    return C_ERROR;
  vcpu_arena_usage_info usage = vcpu_arena_usage(&dev->arena);
  *total = dev->arena.capacity;
  *free_memory = dev->arena.capacity - usage.used;
  return C_SUCCESS;
}

/* Writes one size hint computed from the device's capacity. */
static C_Status size_hint(const C_Device device, size_t *size,
                          size_t (*hint)(size_t capacity)) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev || !size)
    return C_ERROR;
  *size = hint(dev->arena.capacity);
  return C_SUCCESS;
}

static size_t min_chunk(size_t capacity) {
  (void)capacity;
  return VCPU_MIN_CHUNK_SIZE;
}

static size_t extra_padding(size_t capacity) {
  (void)capacity;
  return 0;
}

static size_t max_chunk(size_t capacity) {
  const size_t low = (size_t)2 << 20, high = (size_t)256 << 20;
  size_t chunk = capacity / 8;
  chunk = chunk < low ? low : chunk > high ? high : chunk;
  return chunk & ~(size_t)(VCPU_ARENA_PAGE - 1);
}

static size_t max_alloc(size_t capacity) {
  return capacity;
}

static size_t realloc_size(size_t capacity) {
  return max_chunk(capacity) / 2;
}

C_Status vcpu_device_min_chunk_size(const C_Device device, size_t *size) {
  return size_hint(device, size, min_chunk);
}

C_Status vcpu_device_max_chunk_size(const C_Device device, size_t *size) {
  return size_hint(device, size, max_chunk);
}

C_Status vcpu_device_max_alloc_size(const C_Device device, size_t *size) {
  return size_hint(device, size, max_alloc);
}

C_Status vcpu_device_extra_padding_size(const C_Device device, size_t *size) {
  return size_hint(device, size, extra_padding);
}

C_Status vcpu_device_init_alloc_size(const C_Device device, size_t *size) {
  return size_hint(device, size, max_chunk);
}

C_Status vcpu_device_realloc_size(const C_Device device, size_t *size) {
  return size_hint(device, size, realloc_size);
}

bool vcpu_memory_locate(const void *ptr, int *device_id, int *memfd,
                        size_t *offset) {
  int count = vcpu_device_count();
  for (int id = 0; id < count; ++id) {
    vcpu_device *dev = vcpu_device_at(id);
    if (dev && vcpu_arena_contains(&dev->arena, ptr, 1)) {
      *device_id = id;
      *memfd = dev->arena.memfd;
      *offset = (size_t)((const char *)ptr - dev->arena.base);
      return true;
    }
  }
  return false;
}
