/* Pageable host copies staged through pinned blocks. */
#include "staged_copy.h"

#include <string.h>

#include "staging.h"

static void *allocate_pinned(size_t size) {
  void *memory = NULL;
  if (cudaHostAlloc(&memory, size, cudaHostAllocPortable) == cudaSuccess)
    return memory;
  (void)cudaGetLastError(); /* out of pinned memory: copy directly */
  return NULL;
}

static void free_pinned(void *memory) {
  cudaFreeHost(memory);
}

static cu_staging_pool_t g_pool = CU_STAGING_POOL_INIT(
    CU_STAGING_BLOCK, CU_STAGING_BLOCKS, allocate_pinned, free_pinned);

/* Whether CUDA sees `ptr` as ordinary host memory (not pinned, registered,
 * managed or device memory). */
static bool pageable(const void *ptr) {
  struct cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return true;
  }
  return attributes.type == cudaMemoryTypeUnregistered;
}

bool cu_staged_copy_wanted(cudaStream_t stream, void *dst, const void *src,
                           size_t size, enum cudaMemcpyKind kind) {
  const char *host = kind == cudaMemcpyHostToDevice   ? (const char *)src
                     : kind == cudaMemcpyDeviceToHost ? (const char *)dst
                                                      : NULL;
  if (!host || size == 0 || (!pageable(host) && !pageable(host + size - 1)))
    return false;
  /* Idle: CUDA stages the copy itself without waiting for other work.
   * Failed: cudaMemcpyAsync reports it. */
  return cudaStreamQuery(stream) == cudaErrorNotReady;
}

C_Status cu_staged_copy(cudaStream_t stream, void *dst, const void *src,
                        size_t size, enum cudaMemcpyKind kind) {
  bool to_device = kind == cudaMemcpyHostToDevice;
  cu_staging_block_t *chain = NULL, **tail = &chain;
  cudaError_t error = cudaSuccess;
  const char *what = "cudaMemcpyAsync";
  size_t done = 0;
  cu_staging_block_t *block;
  while (done < size && (block = cu_staging_acquire(&g_pool))) {
    size_t n =
        size - done < g_pool.block_size ? size - done : g_pool.block_size;
    block->size = n;
    if (to_device) {
      memcpy(block->memory, (const char *)src + done, n);
      error =
          cudaMemcpyAsync((char *)dst + done, block->memory, n, kind, stream);
    } else {
      block->dst = (char *)dst + done;
      error = cudaMemcpyAsync(block->memory, (const char *)src + done, n, kind,
                              stream);
    }
    if (error != cudaSuccess) {
      cu_staging_give_back(block); /* never enqueued */
      break;
    }
    *tail = block;
    tail = &block->next;
    done += n;
  }
  /* Behind the transfers: deliver device->host bytes, return the blocks. If
   * this fails the blocks stay out of the pool until it is released. */
  cudaError_t launched =
      chain ? cudaLaunchHostFunc(stream, cu_staging_deliver, chain)
            : cudaSuccess;
  if (error == cudaSuccess && launched != cudaSuccess) {
    error = launched;
    what = "cudaLaunchHostFunc";
  }
  if (error == cudaSuccess && done < size) /* the pool ran out */
    error = cudaMemcpyAsync((char *)dst + done, (const char *)src + done,
                            size - done, kind, stream);
  return error == cudaSuccess ? C_SUCCESS : cu_fail_cuda(error, what);
}

void cu_staged_copy_reserve(void) {
  cu_staging_block_t *chain = NULL;
  for (int i = 0; i < CU_STAGING_RESERVED; ++i) {
    cu_staging_block_t *block = cu_staging_acquire(&g_pool);
    if (!block)
      break;
    block->next = chain;
    chain = block;
  }
  cu_staging_give_back(chain);
}

void cu_staged_copy_release(void) {
  cu_staging_pool_destroy(&g_pool);
}
