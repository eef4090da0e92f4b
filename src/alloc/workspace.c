/* Workspaces: per-stream LIFO scratch bump-allocated from slabs of the
 * stream's data space. A frame costs a lock and a bump; slabs come and go
 * only when the stack outgrows them, and merge into one when it empties. */
#include <stdlib.h>

#include "alloc/alloc_internal.h"
#include "alloc/alloc_sizing.h"
#include "base/status.h"

void bp_workspace_init(bp_workspace_t *ws) {
  pthread_mutex_init(&ws->mu, NULL);
  ws->next_slab_size = BP_WORKSPACE_MIN_SLAB;
}

void bp_workspace_destroy(bp_workspace_t *ws) {
  free(ws->slabs);
  free(ws->frames);
  pthread_mutex_destroy(&ws->mu);
}

static bool reserve(void **array, size_t *capacity, size_t count,
                    size_t item_size) {
  if (count < *capacity)
    return true;
  size_t grown = *capacity ? *capacity * 2 : 16;
  void *bigger = realloc(*array, grown * item_size);
  if (!bigger)
    return false;
  *array = bigger;
  *capacity = grown;
  return true;
}

/* Frees every slab (ws->mu held; no live frame uses them); the next slab
 * holds the stack's peak since the last time. */
static void free_slabs(bp_caching_allocator_t *a, bp_workspace_t *ws) {
  for (size_t i = 0; i < ws->slab_count; i++)
    bp_alloc_free_slab(a, (void *)ws->slabs[i].base);
  ws->slab_count = 0;
  if (ws->peak)
    ws->next_slab_size =
        ws->peak > BP_WORKSPACE_MIN_SLAB ? ws->peak : BP_WORKSPACE_MIN_SLAB;
  ws->peak = ws->live;
}

void bp_workspace_release(bp_caching_allocator_t *a, bp_alloc_pool_t *pool) {
  bp_workspace_t *ws = &pool->workspace;
  pthread_mutex_lock(&ws->mu);
  free_slabs(a, ws);
  ws->frame_count = 0;
  ws->live = ws->peak = 0;
  pthread_mutex_unlock(&ws->mu);
}

void bp_workspace_trim(bp_caching_allocator_t *a, bp_alloc_pool_t *pool) {
  bp_workspace_t *ws = &pool->workspace;
  pthread_mutex_lock(&ws->mu);
  if (ws->frame_count == 0)
    free_slabs(a, ws);
  pthread_mutex_unlock(&ws->mu);
}

/* A slab with room for `aligned` bytes at or above the top frame's slab
 * (slabs above it are empty), allocating one if needed: of the stack's size
 * once the frame is on it (so slabs grow geometrically while the stack
 * grows), at least next_slab_size. */
static bp_status_t slab_for(bp_caching_allocator_t *a, bp_alloc_pool_t *pool,
                            size_t aligned, uint32_t *out_index) {
  bp_workspace_t *ws = &pool->workspace;
  size_t i = ws->frame_count ? ws->frames[ws->frame_count - 1].slab : 0;
  for (; i < ws->slab_count; i++)
    if (ws->slabs[i].size - ws->slabs[i].used >= aligned) {
      *out_index = (uint32_t)i;
      return BP_OK;
    }
  if (!reserve((void **)&ws->slabs, &ws->slab_capacity, ws->slab_count,
               sizeof *ws->slabs))
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: no host memory for a workspace",
                    a->backend.name);
  size_t size = ws->live + aligned; /* cannot overflow: both are memory */
  if (size < ws->next_slab_size)
    size = ws->next_slab_size;
  void *base;
  bp_status_t status = bp_alloc_allocate(a, pool, size, true, &base);
  if (status != BP_OK)
    return status;
  ws->slabs[ws->slab_count] =
      (bp_workspace_slab_t){.base = (uintptr_t)base, .size = size};
  *out_index = (uint32_t)ws->slab_count++;
  return BP_OK;
}

bp_status_t bp_caching_allocator_workspace_alloc(bp_caching_allocator_t *a,
                                                 size_t size, void *stream,
                                                 void **out_ptr) {
  if (!a || !out_ptr)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "workspace_alloc: allocator or out_ptr is NULL");
  size_t aligned;
  if (!bp_alloc_align_up(size ? size : 1, BP_WORKSPACE_ALIGN, &aligned))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: workspace of %zu bytes overflows once aligned",
                    a->backend.name, size);
  bp_alloc_pool_t *pool = bp_alloc_pool_for(a, stream);
  if (!pool)
    return BP_ERR_OUT_OF_MEMORY;
  bp_workspace_t *ws = &pool->workspace;
  pthread_mutex_lock(&ws->mu);
  uint32_t index = 0;
  bp_status_t status = BP_OK;
  if (!reserve((void **)&ws->frames, &ws->frame_capacity, ws->frame_count,
               sizeof *ws->frames))
    status = bp_error(BP_ERR_OUT_OF_MEMORY,
                      "%s: no host memory for a workspace", a->backend.name);
  if (status == BP_OK)
    status = slab_for(a, pool, aligned, &index);
  if (status == BP_OK) {
    bp_workspace_slab_t *slab = &ws->slabs[index];
    uintptr_t addr = slab->base + slab->used;
    slab->used += aligned;
    ws->live += aligned;
    if (ws->live > ws->peak)
      ws->peak = ws->live;
    ws->frames[ws->frame_count++] =
        (bp_workspace_frame_t){.addr = addr, .slab = index};
    *out_ptr = (void *)addr;
  }
  pthread_mutex_unlock(&ws->mu);
  return status;
}

bp_status_t bp_caching_allocator_workspace_free(bp_caching_allocator_t *a,
                                                void *stream, void *ptr) {
  if (!a)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "workspace_free: allocator is NULL");
  bp_alloc_pool_t *pool = bp_alloc_pool_for(a, stream);
  if (!pool)
    return BP_ERR_OUT_OF_MEMORY;
  bp_workspace_t *ws = &pool->workspace;
  pthread_mutex_lock(&ws->mu);
  size_t i = ws->frame_count;
  while (i &&
         (ws->frames[i - 1].addr != (uintptr_t)ptr || ws->frames[i - 1].freed))
    i--;
  if (!i) {
    pthread_mutex_unlock(&ws->mu);
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: workspace free of %p: not a live workspace of stream "
                    "%p",
                    a->backend.name, ptr, stream);
  }
  ws->frames[i - 1].freed = true;
  while (ws->frame_count && ws->frames[ws->frame_count - 1].freed) {
    bp_workspace_frame_t *top = &ws->frames[--ws->frame_count];
    bp_workspace_slab_t *slab = &ws->slabs[top->slab];
    size_t used = top->addr - slab->base;
    ws->live -= slab->used - used;
    slab->used = used;
  }
  if (!ws->frame_count && ws->slab_count > 1)
    free_slabs(a, ws); /* the next frame takes one slab for the peak */
  pthread_mutex_unlock(&ws->mu);
  return BP_OK;
}
