/* The validation layer's bookkeeping (internal): a set of tracked objects
 * (streams, events, allocations) kept sorted by address, so an exact handle
 * and the allocation containing an address are both found by binary search.
 * Not synchronized: the validation layer holds its lock around every call. */
#ifndef BACKPLANE_LAYERS_VALIDATION_VALIDATION_OBJECTS_H_
#define BACKPLANE_LAYERS_VALIDATION_VALIDATION_OBJECTS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"

typedef enum bp_object_kind {
  BP_OBJECT_STREAM,
  BP_OBJECT_EVENT,
  BP_OBJECT_DEVICE_MEMORY,
  BP_OBJECT_HOST_MEMORY,
  BP_OBJECT_UNIFIED_MEMORY,
  BP_OBJECT_KIND_COUNT
} bp_object_kind_t;

/* "stream", "event", "device memory", ... */
extern const char *const bp_object_kind_names[BP_OBJECT_KIND_COUNT];

typedef struct bp_object {
  uintptr_t address;
  size_t size;     /* bytes for memory; 0 for handles */
  uint64_t seq;    /* creation sequence number within its kind, from 1 */
  C_Device device; /* the core device it was created on */
  bp_object_kind_t kind;
} bp_object_t;

typedef struct bp_object_set {
  bp_object_t *objects; /* sorted by address, addresses unique */
  size_t count;
  size_t capacity;
} bp_object_set_t;

/* Adds or replaces the object at object->address; false when out of
 * memory. */
bool bp_object_set_put(bp_object_set_t *set, const bp_object_t *object);
/* Removes the object at `address` into *out (may be NULL); false if absent. */
bool bp_object_set_take(bp_object_set_t *set, uintptr_t address,
                        bp_object_t *out);
/* The object starting exactly at `address`, or NULL. */
const bp_object_t *bp_object_set_find(const bp_object_set_t *set,
                                      uintptr_t address);
/* The object with the greatest address <= `address` whose range (at least
 * one byte) contains it, or NULL. */
const bp_object_t *bp_object_set_containing(const bp_object_set_t *set,
                                            uintptr_t address);
void bp_object_set_release(bp_object_set_t *set);

#endif /* BACKPLANE_LAYERS_VALIDATION_VALIDATION_OBJECTS_H_ */
