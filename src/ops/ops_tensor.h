/* The diopiTensor, diopiContext and diopiGenerator objects behind the DIOPI
 * handles (internal to src/ops). */
#ifndef BACKPLANE_OPS_OPS_TENSOR_H_
#define BACKPLANE_OPS_OPS_TENSOR_H_

#include <stdbool.h>

#include "backplane/ops.h"

/* How a tensor's memory is released when the tensor is destroyed. */
typedef enum ops_tensor_owner {
  OPS_TENSOR_BORROWED = 0, /* the caller's memory: not freed */
  OPS_TENSOR_HOST_MALLOC,  /* free() */
  OPS_TENSOR_DEVICE_CACHE, /* bp_device_free_async(device, storage, stream) */
} ops_tensor_owner_t;

struct diopiTensor {
  void *storage;          /* the allocation (or the caller's base pointer) */
  int64_t storage_offset; /* in elements, from storage to element 0 */
  size_t storage_nbytes;
  diopiDtype_t dtype;
  int64_t ndim;
  int64_t shape[BP_OPS_MAX_DIMS];
  int64_t strides[BP_OPS_MAX_DIMS];
  bp_device_t *device; /* NULL: host memory */
  bp_stream_t *stream; /* the stream device-cache memory is freed on */
  ops_tensor_owner_t owner;
  struct diopiTensor *next_scratch; /* a context's list of required tensors */
};

struct diopiContext {
  bp_device_t *device;
  bp_stream_t *stream;
  /* What diopiGetStream hands the library: `stream`, or on a DIOPI-IMPL
   * adapter device the library's native stream behind it. */
  diopiStreamHandle_t library_stream;
  struct diopiTensor *scratch; /* RequireTensor/Buffer results, newest first */
  size_t scratch_count;
};

struct diopiGenerator {
  uint64_t seed;
  uint64_t offset;
};

/* Builds a tensor over [storage, storage + nbytes) with the given layout
 * (strides NULL: contiguous). Checks dtype, ndim and shape; writes *out only
 * on success. */
bp_status_t ops_tensor_new(void *storage, size_t nbytes, diopiDtype_t dtype,
                           size_t ndim, const int64_t *shape,
                           const int64_t *strides, bp_device_t *device,
                           struct diopiTensor **out);

/* Bytes a tensor of this shape and these strides spans (0 if empty). */
size_t ops_tensor_span_bytes(diopiDtype_t dtype, size_t ndim,
                             const int64_t *shape, const int64_t *strides);

#endif /* BACKPLANE_OPS_OPS_TENSOR_H_ */
