/* Asynchronous copies between a device and pageable host memory that return
 * before the stream reaches them.
 *
 * cudaMemcpyAsync with pageable memory does not: host->device first waits
 * for the stream's earlier work, device->host returns only once the bytes
 * have landed. So when the stream has work pending, the plugin stages such
 * a copy through its own pool of pinned blocks (staging.h; CU_STAGING_BLOCK
 * bytes each, CU_STAGING_BLOCKS at most, allocated outside stream
 * callbacks, freed at the last finalize): host->device copies the source
 * into blocks before returning (the caller may reuse it at once) and
 * transfers them from there; device->host transfers into blocks, and a host
 * function (cudaLaunchHostFunc) behind the transfers copies them into the
 * destination and returns them to the pool. A copy larger than the free
 * blocks stages what they hold and leaves the rest to cudaMemcpyAsync (which
 * may then wait for the stream): memory stays bounded. On an idle stream,
 * and for pinned, registered, managed or device memory
 * (cudaPointerGetAttributes), the copy goes to cudaMemcpyAsync directly.
 * Thread-safe. */
#ifndef BACKPLANE_CUDA_STAGED_COPY_H_
#define BACKPLANE_CUDA_STAGED_COPY_H_

#include <stdbool.h>

#include "cu.h"

enum {
  CU_STAGING_BLOCK = 4 << 20, /* bytes per pinned block */
  CU_STAGING_BLOCKS = 16,     /* at most, for the whole plugin */
  CU_STAGING_RESERVED = 2,    /* allocated at initialize */
};

/* Whether a `kind` copy on `stream` from `src` to `dst` goes through the
 * staging blocks: its host side is pageable and the stream is busy. */
bool cu_staged_copy_wanted(cudaStream_t stream, void *dst, const void *src,
                           size_t size, enum cudaMemcpyKind kind);

/* Enqueues the host->device or device->host copy on `stream` through the
 * staging blocks (the rest directly when they run out). C_SUCCESS, or the
 * failing CUDA call's error (cu_fail_cuda). */
C_Status cu_staged_copy(cudaStream_t stream, void *dst, const void *src,
                        size_t size, enum cudaMemcpyKind kind);

/* Allocates CU_STAGING_RESERVED blocks ahead of any stream work (at
 * initialize): CUDA lists page-locked allocation among the operations that
 * may serialize with device work, so the common copies should not need
 * one. Failure is not an error (blocks come on demand). */
void cu_staged_copy_reserve(void);

/* Frees the staging blocks; every device has been synchronized (the last
 * finalize). */
void cu_staged_copy_release(void);

#endif /* BACKPLANE_CUDA_STAGED_COPY_H_ */
