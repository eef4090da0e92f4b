/* Scratch memory for a task, taken on the caller's thread so that running
 * out of memory is the op's error, never the worker's: it comes from the
 * context (diopiRequireBuffer, the device's caching allocator) and lives
 * until the context is cleared, which happens in stream order after the
 * task. vcpu device memory is host-addressable, so tasks use it directly. */
#ifndef BACKPLANE_REF_OPS_SCRATCH_H_
#define BACKPLANE_REF_OPS_SCRATCH_H_

#include <stddef.h>

#include <diopi/diopirt.h>

/* `bytes` (0 allowed) of scratch into *out, or diopiErrorOccurred with a
 * message naming `op` and the size. */
diopiError_t ref_scratch(diopiContextHandle_t ctx, const char *op, size_t bytes,
                         void **out);

#endif /* BACKPLANE_REF_OPS_SCRATCH_H_ */
