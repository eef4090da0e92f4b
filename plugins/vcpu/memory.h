/* Device, host and unified memory of the plugin table, and the size hints.
 *
 * Device memory comes from the device's arena (arena.h): page-granular and
 * 4 KiB aligned; beyond the capacity an allocation is C_FAILED (a real
 * out-of-memory). Host and unified memory are page-aligned host memory
 * (unified memory is plain host memory every virtual device can reach); both
 * are accounted so that a bad free is C_ERROR and leaks are reported at the
 * last finalize.
 *
 * Size 0: allocate returns C_SUCCESS with *ptr = NULL, and deallocating
 * (NULL, 0) is a no-op. Deallocating anything not allocated by the same
 * family, or with a size other than the allocation's, is C_ERROR and changes
 * nothing. device_memory_set is synchronous.
 *
 * Size hints (per device, `capacity` = BACKPLANE_VCPU_MEMORY):
 *   min_chunk      512 bytes
 *   extra_padding  0
 *   max_chunk      capacity / 8 clamped to [2 MiB, 256 MiB] (page multiple):
 *                  the largest block a caching allocator should carve from
 *   max_alloc      capacity (one allocation may take the whole device)
 *   init_alloc     max_chunk (the first pool)
 *   realloc        max_chunk / 2 (each later pool growth)
 * All functions are thread-safe.
 */
#ifndef BACKPLANE_VCPU_MEMORY_H_
#define BACKPLANE_VCPU_MEMORY_H_

#include <stdbool.h>
#include <stddef.h>

#include "backplane/device_ext.h"

#define VCPU_MIN_CHUNK_SIZE 512u

C_Status vcpu_device_memory_allocate(const C_Device device, void **ptr,
                                     size_t size);
C_Status vcpu_device_memory_deallocate(const C_Device device, void *ptr,
                                       size_t size);
C_Status vcpu_device_memory_set(const C_Device device, void *ptr,
                                unsigned char value, size_t size);
C_Status vcpu_host_memory_allocate(const C_Device device, void **ptr,
                                   size_t size);
C_Status vcpu_host_memory_deallocate(const C_Device device, void *ptr,
                                     size_t size);
C_Status vcpu_unified_memory_allocate(const C_Device device, void **ptr,
                                      size_t size);
C_Status vcpu_unified_memory_deallocate(const C_Device device, void *ptr,
                                        size_t size);

C_Status vcpu_device_memory_stats(const C_Device device, size_t *total,
                                  size_t *free_memory);
C_Status vcpu_device_min_chunk_size(const C_Device device, size_t *size);
C_Status vcpu_device_max_chunk_size(const C_Device device, size_t *size);
C_Status vcpu_device_max_alloc_size(const C_Device device, size_t *size);
C_Status vcpu_device_extra_padding_size(const C_Device device, size_t *size);
C_Status vcpu_device_init_alloc_size(const C_Device device, size_t *size);
C_Status vcpu_device_realloc_size(const C_Device device, size_t *size);

/* For in-plugin components that share device memory between processes:
 * if `ptr` lies in the memory of a virtual device, stores that device's id,
 * the memfd of its arena (owned by the plugin: dup it to keep it) and the
 * offset of `ptr` in it, and returns true. Lock-free. */
bool vcpu_memory_locate(const void *ptr, int *device_id, int *memfd,
                        size_t *offset);

/* Reports (stderr) and frees every live host and unified allocation. Called
 * by the last finalize. */
void vcpu_host_memory_release_all(void);

#endif /* BACKPLANE_VCPU_MEMORY_H_ */
