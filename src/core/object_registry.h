/* Bookkeeping of live objects per device (internal).
 *
 * bp_registry_t: an intrusive doubly-linked list of streams or events, so
 * bp_runtime_destroy can report and release what the caller forgot.
 * bp_allocation_table_t: pointer -> size for host and unified memory, because
 * the plugin ABI needs the size at free time.
 *
 * Neither locks: the owner (the device) holds its mutex around every call. */
#ifndef BACKPLANE_CORE_OBJECT_REGISTRY_H_
#define BACKPLANE_CORE_OBJECT_REGISTRY_H_

#include <stdbool.h>
#include <stddef.h>

#include "backplane/status.h"
#include "base/pointer_map.h"

typedef struct bp_registry_node {
  struct bp_registry_node *prev;
  struct bp_registry_node *next;
} bp_registry_node_t;

typedef struct bp_registry {
  bp_registry_node_t head; /* sentinel */
  size_t count;
} bp_registry_t;

void bp_registry_init(bp_registry_t *registry);
void bp_registry_insert(bp_registry_t *registry, bp_registry_node_t *node);
void bp_registry_remove(bp_registry_t *registry, bp_registry_node_t *node);
/* The first node, or NULL when empty. */
bp_registry_node_t *bp_registry_first(const bp_registry_t *registry);

/* pointer -> size, on the library's one pointer map (base/pointer_map.h). */
typedef struct bp_allocation_table {
  bp_pointer_map_t sizes;
  size_t bytes; /* sum of live sizes */
} bp_allocation_table_t;

void bp_allocation_table_init(bp_allocation_table_t *table);
/* Frees the table's storage (not the allocations it describes). */
void bp_allocation_table_release(bp_allocation_table_t *table);
/* BP_ERR_OUT_OF_MEMORY if the table cannot grow. `ptr` must not be NULL and
 * must not be present. */
bp_status_t bp_allocation_table_insert(bp_allocation_table_t *table, void *ptr,
                                       size_t size);
/* Removes `ptr` and writes its size; false if it was not present. */
bool bp_allocation_table_remove(bp_allocation_table_t *table, const void *ptr,
                                size_t *out_size);
/* Any live entry (for releasing leaks), false when empty. */
bool bp_allocation_table_any(const bp_allocation_table_t *table, void **out_ptr,
                             size_t *out_size);

#endif /* BACKPLANE_CORE_OBJECT_REGISTRY_H_ */
