#include "core/object_registry.h"

#include <stdint.h>
#include <stdlib.h>

void bp_registry_init(bp_registry_t *registry) {
  registry->head.prev = &registry->head;
  registry->head.next = &registry->head;
  registry->count = 0;
}

void bp_registry_insert(bp_registry_t *registry, bp_registry_node_t *node) {
  node->next = registry->head.next;
  node->prev = &registry->head;
  registry->head.next->prev = node;
  registry->head.next = node;
  registry->count++;
}

void bp_registry_remove(bp_registry_t *registry, bp_registry_node_t *node) {
  node->prev->next = node->next;
  node->next->prev = node->prev;
  node->prev = node->next = NULL;
  registry->count--;
}

bp_registry_node_t *bp_registry_first(const bp_registry_t *registry) {
  return registry->count ? registry->head.next : NULL;
}

void bp_allocation_table_init(bp_allocation_table_t *table) {
  *table = (bp_allocation_table_t){{NULL, 0, 0}, 0};
}

void bp_allocation_table_release(bp_allocation_table_t *table) {
  bp_pointer_map_release(&table->sizes);
  table->bytes = 0;
}

bp_status_t bp_allocation_table_insert(bp_allocation_table_t *table, void *ptr,
                                       size_t size) {
  if (!bp_pointer_map_set(&table->sizes, ptr, size))
    return BP_ERR_OUT_OF_MEMORY;
  table->bytes += size;
  return BP_OK;
}

bool bp_allocation_table_remove(bp_allocation_table_t *table, const void *ptr,
                                size_t *out_size) {
  uint64_t size;
  if (!bp_pointer_map_take(&table->sizes, ptr, &size))
    return false;
  table->bytes -= (size_t)size;
  *out_size = (size_t)size;
  return true;
}

bool bp_allocation_table_any(const bp_allocation_table_t *table, void **out_ptr,
                             size_t *out_size) {
  const void *ptr;
  uint64_t size;
  if (!bp_pointer_map_any(&table->sizes, &ptr, &size))
    return false;
  *out_ptr = (void *)ptr;
  *out_size = (size_t)size;
  return true;
}
