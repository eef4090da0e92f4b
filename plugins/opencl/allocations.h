/* A device's live allocations, sorted by address: what lets a pointer that a
 * framework offset ("base + 4096") be traced back to its allocation, and
 * with it to the OpenCL object behind it.
 *
 * Each entry is a range [base, base + size) and, for the buffer path, the
 * cl_mem it stands for (NULL for SVM, whose pointers OpenCL takes as they
 * are). For the buffer path the map also hands out the addresses: a
 * device's buffers live at made-up addresses inside a range of address space
 * reserved (PROT_NONE, never backed) when the device is set up, so they
 * never collide with host memory and a host dereference faults.
 *
 * Not thread-safe by itself: the owner (memory.c) holds the device's memory
 * lock around every call.
 */
#ifndef BACKPLANE_OPENCL_ALLOCATIONS_H_
#define BACKPLANE_OPENCL_ALLOCATIONS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ocl.h"

typedef struct ocl_allocation {
  uintptr_t base;
  size_t size;
  cl_mem buffer; /* NULL for SVM */
  void *origin;  /* SVM: what clSVMAlloc returned (base is aligned up) */
} ocl_allocation_t;

typedef struct ocl_allocations {
  ocl_allocation_t *entries; /* sorted by base, non-overlapping */
  size_t count, capacity;
  size_t bytes;         /* sum of the sizes */
  uintptr_t range_base; /* the reserved range (buffer path), or 0 */
  size_t range_size;
} ocl_allocations_t;

/* Reserves `size` bytes of address space for placed allocations. false if
 * the reservation fails. */
bool ocl_allocations_reserve(ocl_allocations_t *map, size_t size);

/* Releases the reservation and the table (not the OpenCL objects). */
void ocl_allocations_destroy(ocl_allocations_t *map);

/* Finds a free `size`-byte gap in the reserved range, `align`-aligned (a
 * power of two). false when none is left. */
bool ocl_allocations_place(const ocl_allocations_t *map, size_t size,
                           size_t align, uintptr_t *out_base);

/* Adds an entry (its range must be free). false when out of host memory. */
bool ocl_allocations_insert(ocl_allocations_t *map, ocl_allocation_t entry);

/* The entry that starts at `base` exactly, or NULL. */
ocl_allocation_t *ocl_allocations_at(ocl_allocations_t *map, uintptr_t base);

/* The entry holding all of [ptr, ptr + size) (size 0 counts as 1 byte), or
 * NULL when the range is not inside one allocation. */
const ocl_allocation_t *ocl_allocations_find(const ocl_allocations_t *map,
                                             uintptr_t ptr, size_t size);

/* Removes `entry` (a pointer into the map). */
void ocl_allocations_remove(ocl_allocations_t *map, ocl_allocation_t *entry);

#endif /* BACKPLANE_OPENCL_ALLOCATIONS_H_ */
