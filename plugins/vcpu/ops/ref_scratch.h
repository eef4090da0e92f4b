/* Scratch memory for a task, taken on the caller's thread so that running
 * out of memory is the op's error, never the worker's: it comes from the
 * context (diopiRequireBuffer, the device's caching allocator) and lives
 * until the context is cleared, which happens in stream order after the
 * task. vcpu device memory is host-addressable, so tasks use it directly.
 * Only the op's tasks may write it, never the op at enqueue time: a
 * framework that clears its context when the op returns (the Paddle bridge)
 * frees the scratch in stream order, and the next op's scratch may be the
 * same memory while this op's task has yet to run. */
#ifndef BACKPLANE_REF_OPS_SCRATCH_H_
#define BACKPLANE_REF_OPS_SCRATCH_H_

#include <stddef.h>

#include <diopi/diopirt.h>

/* `bytes` (0 allowed) of scratch into *out, or diopiErrorOccurred with a
 * message naming `op` and the size. */
diopiError_t ref_scratch(diopiContextHandle_t ctx, const char *op, size_t bytes,
                         void **out);

#endif /* BACKPLANE_REF_OPS_SCRATCH_H_ */
