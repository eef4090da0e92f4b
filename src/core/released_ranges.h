/* Device memory the caching allocator gave back to the plugin (internal).
 *
 * After bp_device_empty_cache (or an out-of-memory retry) releases a chunk,
 * no block covers its addresses, so the allocator's range check calls them
 * "not ours" and would let a copy through a dangling pointer (the plugin
 * still owns the memory, e.g. vcpu's arena). The core remembers each
 * released range until the plugin hands memory there out again, through the
 * allocator or as unified memory, so bp_copy and bp_memset can refuse the
 * rest.
 *
 * Thread-safety: each device's set has its own lock, a leaf taken under no
 * other; the emptiness test is one relaxed load (a hint, as for `pinned`). */
#ifndef BACKPLANE_CORE_RELEASED_RANGES_H_
#define BACKPLANE_CORE_RELEASED_RANGES_H_

#include <stdbool.h>
#include <stddef.h>

#include "core/device_table.h"

/* The allocator's raw_free gave [ptr, ptr + size) back to the plugin. */
void bp_device_note_released(bp_device_t *device, const void *ptr, size_t size);
/* The plugin handed out [ptr, ptr + size): no longer released. */
void bp_device_note_handed_out(bp_device_t *device, const void *ptr,
                               size_t size);
/* Whether `ptr` lies in memory released and not handed out since. */
bool bp_device_range_released_slow(bp_device_t *device, const void *ptr);
static inline bool bp_device_range_released(bp_device_t *device,
                                            const void *ptr) {
  if (__builtin_expect(
          !atomic_load_explicit(&device->released.count, memory_order_relaxed),
          1))
    return false;
  return bp_device_range_released_slow(device, ptr);
}

#endif /* BACKPLANE_CORE_RELEASED_RANGES_H_ */
