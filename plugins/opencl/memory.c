/* Device, pinned host and unified memory; the size hints. */
#include "memory.h"

#include <stdint.h>
#include <stdio.h>

/* The reserved range of the buffer path: twice the capacity, so that
 * fragmentation never runs out of addresses before the capacity runs out. */
static size_t range_size(const ocl_device_t *dev) {
  size_t page = 1u << 21;
  size_t size = dev->capacity <= SIZE_MAX / 2 ? dev->capacity * 2 : SIZE_MAX;
  return (size + page - 1) / page * page;
}

bool ocl_memory_set_up(ocl_device_t *dev) {
  if (dev->svm)
    return true;
  if (!ocl_allocations_reserve(&dev->allocations, range_size(dev))) {
    ocl_fail(C_FAILED, "cannot reserve %zu bytes of address space for %s",
             range_size(dev), dev->name);
    return false;
  }
  return true;
}

static void free_entry(ocl_device_t *dev, const ocl_allocation_t *entry,
                       bool fine_grained) {
  if (entry->buffer)
    clReleaseMemObject(entry->buffer);
  else if (fine_grained || dev->svm)
    clSVMFree(dev->context, entry->origin);
}

static void leak_report(ocl_device_t *dev, ocl_allocations_t *map,
                        const char *what, bool fine_grained) {
  if (map->count)
    fprintf(stderr,
            "opencl: %s: %zu %s allocation(s) of %zu bytes still live at "
            "finalize; freed\n",
            dev->name, map->count, what, map->bytes);
  for (size_t i = 0; i < map->count; ++i) {
    if (map == &dev->host)
      clEnqueueUnmapMemObject(dev->sync_queue, map->entries[i].buffer,
                              (void *)map->entries[i].base, 0, NULL, NULL);
    free_entry(dev, &map->entries[i], fine_grained);
  }
  clFinish(dev->sync_queue);
  ocl_allocations_destroy(map);
}

void ocl_memory_tear_down(ocl_device_t *dev) {
  leak_report(dev, &dev->allocations, "device", false);
  leak_report(dev, &dev->host, "host", false);
  leak_report(dev, &dev->unified, "unified", true);
}

C_Status ocl_memory_resolve(ocl_device_t *dev, const void *ptr, size_t size,
                            ocl_region_t *out) {
  pthread_mutex_lock(&dev->memory_lock);
  const ocl_allocation_t *entry =
      ocl_allocations_find(&dev->allocations, (uintptr_t)ptr, size);
  if (entry) {
    *out = (ocl_region_t){.offset = (uintptr_t)ptr - entry->base};
    if (entry->buffer) {
      out->buffer = entry->buffer;
      clRetainMemObject(entry->buffer);
    } else {
      out->svm = (void *)ptr;
    }
  }
  pthread_mutex_unlock(&dev->memory_lock);
  if (!entry)
    return ocl_fail(C_ERROR,
                    "[%p, +%zu) is not inside one allocation of opencl "
                    "device %d",
                    ptr, size, dev->id);
  return C_SUCCESS;
}

void ocl_region_release(ocl_region_t *region) {
  if (region->buffer)
    clReleaseMemObject(region->buffer);
  region->buffer = NULL;
}

/* The start of every allocate: the device, or *out_dev NULL when there is
 * nothing to allocate (size 0: *ptr is NULL). */
static C_Status allocate_start(const C_Device device, void **ptr, size_t size,
                               ocl_device_t **out_dev) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev || !ptr)
    return C_ERROR;
  *out_dev = size ? dev : NULL;
  if (!size)
    *ptr = NULL;
  return C_SUCCESS;
}

/* Records `entry` in `map` (the caller undoes the allocation on failure). */
static C_Status keep(ocl_device_t *dev, ocl_allocations_t *map,
                     ocl_allocation_t entry) {
  pthread_mutex_lock(&dev->memory_lock);
  bool ok = ocl_allocations_insert(map, entry);
  pthread_mutex_unlock(&dev->memory_lock);
  return ok ? C_SUCCESS : ocl_fail(C_FAILED, "out of host memory");
}

C_Status ocl_device_memory_allocate(const C_Device device, void **ptr,
                                    size_t size) {
  ocl_device_t *dev = NULL;
  C_Status started = allocate_start(device, ptr, size, &dev);
  if (started != C_SUCCESS || !dev)
    return started;
  if (size > dev->max_alloc)
    return ocl_fail(C_FAILED,
                    "%zu bytes is more than %s allocates at once (%zu)", size,
                    dev->name, dev->max_alloc);
  pthread_mutex_lock(&dev->memory_lock);
  C_Status status = C_SUCCESS;
  ocl_allocation_t entry = {.size = size};
  if (size > dev->capacity - dev->allocations.bytes) {
    status = ocl_fail(C_FAILED, "%s is full: %zu of %zu bytes in use",
                      dev->name, dev->allocations.bytes, dev->capacity);
  } else if (dev->svm) {
    /* clSVMAlloc aligns to at most the largest OpenCL C type (128 bytes on
     * POCL): ask for more and align the start up to base_align. */
    if (size <= SIZE_MAX - dev->base_align)
      entry.origin = clSVMAlloc(dev->context, CL_MEM_READ_WRITE,
                                size + dev->base_align, 0);
    entry.base = ((uintptr_t)entry.origin + dev->base_align - 1) &
                 ~(uintptr_t)(dev->base_align - 1);
    if (!entry.origin)
      status = ocl_fail(C_FAILED, "clSVMAlloc of %zu bytes on %s failed", size,
                        dev->name);
  } else if (!ocl_allocations_place(&dev->allocations, size, dev->base_align,
                                    &entry.base)) {
    status = ocl_fail(C_FAILED, "%s has no address range left for %zu bytes",
                      dev->name, size);
  } else {
    cl_int error = CL_SUCCESS;
    entry.buffer =
        clCreateBuffer(dev->context, CL_MEM_READ_WRITE, size, NULL, &error);
    if (!entry.buffer)
      status =
          ocl_fail(ocl_status_of(error) == C_INTERNAL_ERROR ? C_INTERNAL_ERROR
                                                            : C_FAILED,
                   "clCreateBuffer of %zu bytes on %s: %s", size, dev->name,
                   ocl_error_name(error));
  }
  if (status == C_SUCCESS &&
      !ocl_allocations_insert(&dev->allocations, entry)) {
    free_entry(dev, &entry, false);
    status = ocl_fail(C_FAILED, "out of host memory");
  }
  pthread_mutex_unlock(&dev->memory_lock);
  if (status == C_SUCCESS)
    *ptr = (void *)entry.base;
  return status;
}

/* The allocation maps of a device, as deallocate names them. */
typedef enum memory_kind {
  DEVICE_MEMORY,
  HOST_MEMORY,
  UNIFIED_MEMORY
} memory_kind_t;

/* The start of every deallocate: takes the entry of the `kind` map starting
 * at `ptr` with `size` out of the map; *out_dev NULL when there is nothing
 * to free (NULL with size 0). */
static C_Status take(const C_Device device, memory_kind_t kind, void *ptr,
                     size_t size, ocl_device_t **out_dev,
                     ocl_allocation_t *out_entry) {
  static const char *const what_of[] = {"device", "host", "unified"};
  ocl_device_t *dev = ocl_device_get(device);
  *out_dev = NULL;
  if (!dev)
    return C_ERROR;
  if (!ptr && size == 0)
    return C_SUCCESS;
  ocl_allocations_t *map = kind == DEVICE_MEMORY ? &dev->allocations
                           : kind == HOST_MEMORY ? &dev->host
                                                 : &dev->unified;
  const char *what = what_of[kind];
  pthread_mutex_lock(&dev->memory_lock);
  ocl_allocation_t *entry = ocl_allocations_at(map, (uintptr_t)ptr);
  C_Status status = C_SUCCESS;
  if (!entry)
    status = ocl_fail(C_ERROR, "%p is not a live %s allocation of %s", ptr,
                      what, dev->name);
  else if (entry->size != size)
    status = ocl_fail(C_ERROR,
                      "%p was allocated with %zu bytes, not %zu (%s memory "
                      "of %s)",
                      ptr, entry->size, size, what, dev->name);
  if (status == C_SUCCESS) {
    *out_entry = *entry;
    ocl_allocations_remove(map, entry);
    *out_dev = dev;
  }
  pthread_mutex_unlock(&dev->memory_lock);
  return status;
}

C_Status ocl_device_memory_deallocate(const C_Device device, void *ptr,
                                      size_t size) {
  ocl_device_t *dev = NULL;
  ocl_allocation_t entry;
  C_Status status = take(device, DEVICE_MEMORY, ptr, size, &dev, &entry);
  if (status != C_SUCCESS || !dev)
    return status;
  /* A buffer lives on in OpenCL until its last command ran; SVM does not. */
  if (!entry.buffer)
    ocl_device_finish(dev);
  free_entry(dev, &entry, false);
  return C_SUCCESS;
}

/* Unmaps pinned host memory and releases its buffer. */
static void release_pinned(ocl_device_t *dev, cl_mem buffer, void *host) {
  clEnqueueUnmapMemObject(dev->sync_queue, buffer, host, 0, NULL, NULL);
  clFinish(dev->sync_queue);
  clReleaseMemObject(buffer);
}

C_Status ocl_host_memory_allocate(const C_Device device, void **ptr,
                                  size_t size) {
  ocl_device_t *dev = NULL;
  C_Status started = allocate_start(device, ptr, size, &dev);
  if (started != C_SUCCESS || !dev)
    return started;
  cl_int error = CL_SUCCESS;
  cl_mem buffer =
      clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                     size, NULL, &error);
  if (!buffer)
    return ocl_fail(C_FAILED,
                    "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR) of %zu "
                    "bytes on %s: %s",
                    size, dev->name, ocl_error_name(error));
  void *host = clEnqueueMapBuffer(dev->sync_queue, buffer, CL_TRUE,
                                  CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL,
                                  NULL, &error);
  if (!host) {
    clReleaseMemObject(buffer);
    return ocl_fail(C_FAILED, "clEnqueueMapBuffer of %zu bytes on %s: %s", size,
                    dev->name, ocl_error_name(error));
  }
  if (keep(dev, &dev->host,
           (ocl_allocation_t){(uintptr_t)host, size, buffer, NULL}) !=
      C_SUCCESS) {
    release_pinned(dev, buffer, host);
    return C_FAILED;
  }
  *ptr = host;
  return C_SUCCESS;
}

C_Status ocl_host_memory_deallocate(const C_Device device, void *ptr,
                                    size_t size) {
  ocl_device_t *dev = NULL;
  ocl_allocation_t entry;
  C_Status status = take(device, HOST_MEMORY, ptr, size, &dev, &entry);
  if (status != C_SUCCESS || !dev)
    return status;
  release_pinned(dev, entry.buffer, ptr);
  return C_SUCCESS;
}

C_Status ocl_unified_memory_allocate(const C_Device device, void **ptr,
                                     size_t size) {
  ocl_device_t *dev = ocl_device_get(device);
  if (dev && !dev->fine_grained_svm)
    return ocl_fail(C_ERROR, "%s has no fine-grained SVM for unified memory",
                    dev->name);
  C_Status started = allocate_start(device, ptr, size, &dev);
  if (started != C_SUCCESS || !dev)
    return started;
  void *svm = clSVMAlloc(
      dev->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, size, 0);
  if (!svm)
    return ocl_fail(C_FAILED,
                    "clSVMAlloc(fine-grained) of %zu bytes on %s "
                    "failed",
                    size, dev->name);
  if (keep(dev, &dev->unified,
           (ocl_allocation_t){(uintptr_t)svm, size, NULL, svm}) != C_SUCCESS) {
    clSVMFree(dev->context, svm);
    return C_FAILED;
  }
  *ptr = svm;
  return C_SUCCESS;
}

C_Status ocl_unified_memory_deallocate(const C_Device device, void *ptr,
                                       size_t size) {
  ocl_device_t *dev = NULL;
  ocl_allocation_t entry;
  C_Status status = take(device, UNIFIED_MEMORY, ptr, size, &dev, &entry);
  if (status != C_SUCCESS || !dev)
    return status;
  ocl_device_finish(dev);
  clSVMFree(dev->context, ptr);
  return C_SUCCESS;
}

C_Status ocl_device_memory_stats(const C_Device device, size_t *total,
                                 size_t *free_memory) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev || !total || !free_memory)
    return C_ERROR;
  pthread_mutex_lock(&dev->memory_lock);
  *total = dev->capacity;
  *free_memory = dev->capacity - dev->allocations.bytes;
  pthread_mutex_unlock(&dev->memory_lock);
  return C_SUCCESS;
}

C_Status ocl_device_min_chunk_size(const C_Device device, size_t *size) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev || !size)
    return C_ERROR;
  *size = dev->base_align;
  return C_SUCCESS;
}

C_Status ocl_device_max_chunk_size(const C_Device device, size_t *size) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev || !size)
    return C_ERROR;
  size_t chunk = dev->capacity / 4;
  if (chunk > dev->max_alloc)
    chunk = dev->max_alloc;
  if (chunk < ((size_t)2 << 20))
    chunk = (size_t)2 << 20;
  *size = chunk;
  return C_SUCCESS;
}

C_Status ocl_device_max_alloc_size(const C_Device device, size_t *size) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev || !size)
    return C_ERROR;
  *size = dev->capacity;
  return C_SUCCESS;
}
