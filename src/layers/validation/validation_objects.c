#include "layers/validation/validation_objects.h"

#include <stdlib.h>
#include <string.h>

const char *const bp_object_kind_names[BP_OBJECT_KIND_COUNT] = {
    "stream", "event", "device memory", "host memory", "unified memory"};

/* Index of the first object with address >= `address`. */
static size_t lower_bound(const bp_object_set_t *set, uintptr_t address) {
  size_t lo = 0, hi = set->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (set->objects[mid].address < address)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

bool bp_object_set_put(bp_object_set_t *set, const bp_object_t *object) {
  size_t at = lower_bound(set, object->address);
  if (at < set->count && set->objects[at].address == object->address) {
    set->objects[at] = *object;
    return true;
  }
  if (set->count == set->capacity) {
    size_t capacity = set->capacity ? set->capacity * 2 : 64;
    bp_object_t *grown = realloc(set->objects, capacity * sizeof *grown);
    if (!grown)
      return false;
    set->objects = grown;
    set->capacity = capacity;
  }
  memmove(&set->objects[at + 1], &set->objects[at],
          (set->count - at) * sizeof *set->objects);
  set->objects[at] = *object;
  set->count++;
  return true;
}

bool bp_object_set_take(bp_object_set_t *set, uintptr_t address,
                        bp_object_t *out) {
  size_t at = lower_bound(set, address);
  if (at == set->count || set->objects[at].address != address)
    return false;
  if (out)
    *out = set->objects[at];
  memmove(&set->objects[at], &set->objects[at + 1],
          (set->count - at - 1) * sizeof *set->objects);
  set->count--;
  return true;
}

const bp_object_t *bp_object_set_find(const bp_object_set_t *set,
                                      uintptr_t address) {
  size_t at = lower_bound(set, address);
  return at < set->count && set->objects[at].address == address
             ? &set->objects[at]
             : NULL;
}

const bp_object_t *bp_object_set_containing(const bp_object_set_t *set,
                                            uintptr_t address) {
  size_t at = lower_bound(set, address);
  if (at < set->count && set->objects[at].address == address)
    return &set->objects[at];
  if (at == 0)
    return NULL;
  const bp_object_t *before = &set->objects[at - 1];
  size_t extent = before->size ? before->size : 1;
  return address - before->address < extent ? before : NULL;
}

void bp_object_set_release(bp_object_set_t *set) {
  free(set->objects);
  *set = (bp_object_set_t){0};
}
