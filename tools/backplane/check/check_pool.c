/* Resources of a check, released together. */
#include "check_pool.h"

#include <stdio.h>
#include <stdlib.h>

typedef enum pool_kind {
  POOL_STREAM,
  POOL_EVENT,
  POOL_DEVICE_MEMORY,
  POOL_PINNED_MEMORY,
  POOL_HOST_MEMORY,
  POOL_KIND_COUNT
} pool_kind_t;

struct check_pool_entry {
  pool_kind_t kind;
  bp_device_t *device;
  void *object;
};

static bp_status_t remember(check_pool_t *pool, pool_kind_t kind,
                            bp_device_t *device, void *object) {
  if (pool->count == pool->capacity) {
    size_t capacity = pool->capacity ? pool->capacity * 2 : 16;
    check_pool_entry_t *entries =
        realloc(pool->entries, capacity * sizeof(*entries));
    if (!entries)
      return BP_ERR_OUT_OF_MEMORY;
    pool->entries = entries;
    pool->capacity = capacity;
  }
  pool->entries[pool->count++] =
      (check_pool_entry_t){.kind = kind, .device = device, .object = object};
  return BP_OK;
}

bp_status_t check_pool_stream(check_pool_t *pool, bp_device_t *device,
                              bp_stream_t **out_stream) {
  bp_stream_t *stream;
  bp_status_t status = bp_stream_create(device, &stream);
  if (status != BP_OK)
    return status;
  if (remember(pool, POOL_STREAM, device, stream) != BP_OK) {
    bp_stream_destroy(stream);
    return BP_ERR_OUT_OF_MEMORY;
  }
  *out_stream = stream;
  return BP_OK;
}

bp_status_t check_pool_event(check_pool_t *pool, bp_device_t *device,
                             bp_event_t **out_event) {
  bp_event_t *event;
  bp_status_t status = bp_event_create(device, &event);
  if (status != BP_OK)
    return status;
  if (remember(pool, POOL_EVENT, device, event) != BP_OK) {
    bp_event_destroy(event);
    return BP_ERR_OUT_OF_MEMORY;
  }
  *out_event = event;
  return BP_OK;
}

bp_status_t check_pool_device_memory(check_pool_t *pool, bp_device_t *device,
                                     size_t size, void **out_ptr) {
  void *ptr;
  bp_status_t status = bp_device_malloc(device, size, &ptr);
  if (status != BP_OK)
    return status;
  if (remember(pool, POOL_DEVICE_MEMORY, device, ptr) != BP_OK) {
    bp_device_free(device, ptr);
    return BP_ERR_OUT_OF_MEMORY;
  }
  *out_ptr = ptr;
  return BP_OK;
}

bp_status_t check_pool_pinned_memory(check_pool_t *pool, bp_device_t *device,
                                     size_t size, void **out_ptr) {
  void *ptr;
  bp_status_t status = bp_host_malloc(device, size, &ptr);
  if (status != BP_OK)
    return status;
  if (remember(pool, POOL_PINNED_MEMORY, device, ptr) != BP_OK) {
    bp_host_free(device, ptr);
    return BP_ERR_OUT_OF_MEMORY;
  }
  *out_ptr = ptr;
  return BP_OK;
}

void *check_pool_host_memory(check_pool_t *pool, size_t size) {
  void *ptr = malloc(size ? size : 1);
  if (ptr && remember(pool, POOL_HOST_MEMORY, NULL, ptr) != BP_OK) {
    free(ptr);
    return NULL;
  }
  return ptr;
}

enum { DESTROY_TRIES = 16 };

bp_status_t check_stream_destroy(bp_stream_t *stream) {
  bp_status_t status = bp_stream_destroy(stream);
  for (int tries = 1; status != BP_OK && tries < DESTROY_TRIES; tries++)
    status = bp_stream_destroy(stream);
  return status;
}

/* Releases one entry; returns 0 if it is a stream that outlives it. While
 * one does (`streams_gone` 0), the rest is left as it is. */
static int release_entry(check_pool_entry_t *entry, int streams_gone) {
  bp_status_t status = BP_OK;
  if (!streams_gone && entry->kind != POOL_STREAM)
    return 1;
  switch (entry->kind) {
  case POOL_STREAM:
    status = check_stream_destroy(entry->object);
    break;
  case POOL_EVENT:
    status = bp_event_destroy(entry->object);
    break;
  case POOL_DEVICE_MEMORY:
    status = bp_device_free(entry->device, entry->object);
    break;
  case POOL_PINNED_MEMORY:
    status = bp_host_free(entry->device, entry->object);
    break;
  default:
    free(entry->object);
    break;
  }
  if (status != BP_OK)
    fprintf(stderr, "backplane check: releasing a resource: %s: %s\n",
            bp_status_name(status), bp_last_error());
  return entry->kind != POOL_STREAM || status == BP_OK;
}

void check_pool_release(check_pool_t *pool) {
  int streams_gone = 1;
  for (int kind = 0; kind < POOL_KIND_COUNT; kind++)
    for (size_t i = pool->count; i-- > 0;)
      if (pool->entries[i].kind == (pool_kind_t)kind)
        streams_gone &= release_entry(&pool->entries[i], streams_gone);
  free(pool->entries);
  *pool = (check_pool_t){0};
}
