/* An open-addressing hash map with linear probing; removal shifts the
 * following entries back, so there are no tombstones. */
#include "layers/trace_flows.h"

#include <stdlib.h>

static size_t home_of(uintptr_t event, size_t capacity) {
  uint64_t h = (uint64_t)event * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 32) & (capacity - 1);
}

/* The slot holding `event`, or the empty slot where it would go. */
static size_t find(const bp_trace_flows_t *flows, uintptr_t event) {
  size_t i = home_of(event, flows->capacity);
  while (flows->slots[i].event && flows->slots[i].event != event)
    i = (i + 1) & (flows->capacity - 1);
  return i;
}

static bool grow(bp_trace_flows_t *flows) {
  size_t capacity = flows->capacity ? flows->capacity * 2 : 64;
  bp_trace_flows_t grown = {calloc(capacity, sizeof *grown.slots), capacity,
                            flows->count};
  if (!grown.slots)
    return false;
  for (size_t i = 0; i < flows->capacity; ++i)
    if (flows->slots[i].event)
      grown.slots[find(&grown, flows->slots[i].event)] = flows->slots[i];
  free(flows->slots);
  *flows = grown;
  return true;
}

bool bp_trace_flows_set(bp_trace_flows_t *flows, const void *event,
                        uint64_t serial) {
  if ((flows->count + 1) * 2 > flows->capacity && !grow(flows))
    return false;
  size_t i = find(flows, (uintptr_t)event);
  if (!flows->slots[i].event)
    flows->count++;
  flows->slots[i] = (bp_trace_flow_slot_t){(uintptr_t)event, serial};
  return true;
}

uint64_t bp_trace_flows_get(const bp_trace_flows_t *flows, const void *event) {
  if (!flows->capacity)
    return 0;
  return flows->slots[find(flows, (uintptr_t)event)].serial;
}

void bp_trace_flows_remove(bp_trace_flows_t *flows, const void *event) {
  if (!flows->capacity)
    return;
  size_t mask = flows->capacity - 1;
  size_t hole = find(flows, (uintptr_t)event);
  if (!flows->slots[hole].event)
    return;
  flows->slots[hole] = (bp_trace_flow_slot_t){0, 0};
  flows->count--;
  /* Move back each following entry whose home is not between the hole
   * and its slot (cyclically). */
  for (size_t i = (hole + 1) & mask; flows->slots[i].event;
       i = (i + 1) & mask) {
    size_t home = home_of(flows->slots[i].event, flows->capacity);
    if (((i - home) & mask) >= ((i - hole) & mask)) {
      flows->slots[hole] = flows->slots[i];
      flows->slots[i] = (bp_trace_flow_slot_t){0, 0};
      hole = i;
    }
  }
}

void bp_trace_flows_release(bp_trace_flows_t *flows) {
  free(flows->slots);
  *flows = (bp_trace_flows_t){NULL, 0, 0};
}
