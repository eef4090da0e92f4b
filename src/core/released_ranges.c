/* Device memory given back to the plugin (core/released_ranges.h). */
#include "core/released_ranges.h"

void bp_device_note_released(bp_device_t *device, const void *ptr,
                             size_t size) {
  if (!ptr || !size)
    return;
  pthread_mutex_lock(&device->released_lock);
  /* Out of memory: the range goes unchecked, as before it was released. */
  bp_host_ranges_remove_overlapping(&device->released, ptr, size);
  (void)bp_host_ranges_insert(&device->released, ptr, size);
  pthread_mutex_unlock(&device->released_lock);
}

void bp_device_note_handed_out(bp_device_t *device, const void *ptr,
                               size_t size) {
  if (!ptr ||
      !atomic_load_explicit(&device->released.count, memory_order_relaxed))
    return;
  pthread_mutex_lock(&device->released_lock);
  bp_host_ranges_remove_overlapping(&device->released, ptr, size ? size : 1);
  pthread_mutex_unlock(&device->released_lock);
}

bool bp_device_range_released_slow(bp_device_t *device, const void *ptr) {
  pthread_mutex_lock(&device->released_lock);
  bool released = bp_host_ranges_contain(&device->released, ptr, 1);
  pthread_mutex_unlock(&device->released_lock);
  return released;
}
