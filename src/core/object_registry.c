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
  table->entries = NULL;
  table->capacity = table->count = table->used = table->bytes = 0;
}

void bp_allocation_table_release(bp_allocation_table_t *table) {
  free(table->entries);
  bp_allocation_table_init(table);
}

static size_t slot_of(const void *ptr, size_t capacity) {
  uint64_t h = (uint64_t)(uintptr_t)ptr;
  h ^= h >> 33;
  h *= UINT64_C(0xff51afd7ed558ccd);
  h ^= h >> 33;
  return (size_t)h & (capacity - 1);
}

static bp_status_t grow(bp_allocation_table_t *table) {
  size_t capacity = table->capacity ? table->capacity * 2 : 64;
  if (table->count * 4 < table->capacity)
    capacity = table->capacity; /* mostly tombstones: rehash in place */
  bp_allocation_entry_t *entries = calloc(capacity, sizeof *entries);
  if (!entries)
    return BP_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < table->capacity; ++i) {
    bp_allocation_entry_t *old = &table->entries[i];
    if (!old->ptr || old->tombstone)
      continue;
    size_t slot = slot_of(old->ptr, capacity);
    while (entries[slot].ptr)
      slot = (slot + 1) & (capacity - 1);
    entries[slot] = *old;
  }
  free(table->entries);
  table->entries = entries;
  table->capacity = capacity;
  table->used = table->count;
  return BP_OK;
}

bp_status_t bp_allocation_table_insert(bp_allocation_table_t *table, void *ptr,
                                       size_t size) {
  if ((table->used + 1) * 4 > table->capacity * 3) {
    bp_status_t status = grow(table);
    if (status != BP_OK)
      return status;
  }
  size_t slot = slot_of(ptr, table->capacity);
  while (table->entries[slot].ptr && !table->entries[slot].tombstone)
    slot = (slot + 1) & (table->capacity - 1);
  if (!table->entries[slot].ptr)
    table->used++;
  table->entries[slot] =
      (bp_allocation_entry_t){.ptr = ptr, .size = size, .tombstone = false};
  table->count++;
  table->bytes += size;
  return BP_OK;
}

bool bp_allocation_table_remove(bp_allocation_table_t *table, const void *ptr,
                                size_t *out_size) {
  if (!table->capacity)
    return false;
  size_t slot = slot_of(ptr, table->capacity);
  while (table->entries[slot].ptr) {
    bp_allocation_entry_t *entry = &table->entries[slot];
    if (!entry->tombstone && entry->ptr == ptr) {
      *out_size = entry->size;
      entry->tombstone = true;
      table->count--;
      table->bytes -= entry->size;
      return true;
    }
    slot = (slot + 1) & (table->capacity - 1);
  }
  return false;
}

bool bp_allocation_table_any(const bp_allocation_table_t *table, void **out_ptr,
                             size_t *out_size) {
  for (size_t i = 0; i < table->capacity; ++i) {
    const bp_allocation_entry_t *entry = &table->entries[i];
    if (entry->ptr && !entry->tombstone) {
      *out_ptr = entry->ptr;
      *out_size = entry->size;
      return true;
    }
  }
  return false;
}
