/* An open-addressing hash map from an address to a size, used to account for
 * live allocations (device, host and unified) so that a bad free is detected
 * and leaks can be reported. Not thread-safe: the owner locks. Keys are never
 * 0. Grows by doubling; removal uses backward shifting (no tombstones).
 */
#ifndef BACKPLANE_VCPU_PTRMAP_H_
#define BACKPLANE_VCPU_PTRMAP_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct vcpu_ptrmap_entry {
  uintptr_t key; /* 0 = empty slot */
  size_t size;
} vcpu_ptrmap_entry;

typedef struct vcpu_ptrmap {
  vcpu_ptrmap_entry *slots;
  size_t capacity; /* power of two, or 0 before the first insert */
  size_t count;
  size_t total_size; /* sum of the sizes of all entries */
} vcpu_ptrmap;

/* A zeroed vcpu_ptrmap is a valid empty map. */
void vcpu_ptrmap_clear(vcpu_ptrmap *map); /* frees the slots, empties the map */

/* false if out of memory (the map is unchanged). `key` must not be present. */
bool vcpu_ptrmap_insert(vcpu_ptrmap *map, uintptr_t key, size_t size);

/* The entry for `key`, or NULL. The pointer is valid until the next change. */
vcpu_ptrmap_entry *vcpu_ptrmap_find(const vcpu_ptrmap *map, uintptr_t key);

/* Removes an entry returned by vcpu_ptrmap_find. */
void vcpu_ptrmap_remove(vcpu_ptrmap *map, vcpu_ptrmap_entry *entry);

#endif /* BACKPLANE_VCPU_PTRMAP_H_ */
