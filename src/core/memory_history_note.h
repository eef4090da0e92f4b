/* Recording the allocator history (internal; backplane/memory_history.h).
 * The device-memory entry points check BP_MEMORY_WATCHED (one more load
 * beside the observer's, one predictable branch) and take their slow path
 * when the device is observed or its runtime records; that path calls the
 * body and notes the outcome here. */
#ifndef BACKPLANE_CORE_MEMORY_HISTORY_NOTE_H_
#define BACKPLANE_CORE_MEMORY_HISTORY_NOTE_H_

#include <stdatomic.h>
#include <stdint.h>

#include "core/device_table.h"

/* Whether `device`'s memory entry points take their slow path. */
#define BP_MEMORY_WATCHED(device)                                              \
  __builtin_expect(((uintptr_t)(device)->observer |                            \
                    (uintptr_t)atomic_load_explicit(&(device)->memory_history, \
                                                    memory_order_relaxed)) !=  \
                       0,                                                      \
                   0)

/* Notes an allocation of `size` bytes on `stream` (NULL: none) that
 * returned `status` (an alloc when BP_OK, an oom for
 * BP_ERR_OUT_OF_MEMORY, nothing otherwise). `caller`: the entry point's
 * return address. No-op when the runtime does not record. */
void bp_memory_history_note_malloc(bp_device_t *device, bp_status_t status,
                                   size_t size, const void *ptr,
                                   const void *stream, const void *caller);
/* The requested size of the live block at `ptr`, for a free about to be
 * noted (0 when not recording or unknown); leaves bp_last_error() alone. */
size_t bp_memory_history_size_of(bp_device_t *device, const void *ptr);
/* Notes a free that returned `status` (nothing unless BP_OK). */
void bp_memory_history_note_free(bp_device_t *device, bp_status_t status,
                                 const void *ptr, size_t size,
                                 const void *stream, const void *caller);
/* Notes a chunk the allocator took from (`taken`) or gave back to the
 * plugin. */
void bp_memory_history_note_segment(bp_device_t *device, bool taken,
                                    const void *ptr, size_t size);

/* At bp_runtime_create / _destroy: starts recording when
 * BACKPLANE_MEMORY_HISTORY names a file (unless the environment is
 * ignored), and dumps to that file. */
bp_status_t bp_memory_history_open(bp_runtime_t *runtime,
                                   bool read_environment);
void bp_memory_history_close(bp_runtime_t *runtime);

#endif /* BACKPLANE_CORE_MEMORY_HISTORY_NOTE_H_ */
