/* A failure relayed between the ranks of a shared-memory world. */
#include "comm/relay.h"

#include <stdio.h>

#include "comm/liveness.h"
#include "comm/segment.h"

/* relay_state: nothing posted, a post being written, a post readable. */
enum { RELAY_NONE = 0, RELAY_WRITING = 1, RELAY_POSTED = 2 };

void vcpu_comm_relay_away(vcpu_comm_world_t *world, size_t rank, uint64_t seq) {
  atomic_store_explicit(&world->slots[rank].away_seq, seq,
                        memory_order_release);
}

void vcpu_comm_relay_post(vcpu_comm_world_t *world, size_t by,
                          bp_status_t status, const char *message) {
  vcpu_comm_world_header_t *h = world->header;
  uint32_t none = RELAY_NONE;
  if (atomic_compare_exchange_strong(&h->relay_state, &none, RELAY_WRITING)) {
    h->relayed_status = (int32_t)status;
    h->relayed_by = by;
    snprintf(h->relayed_message, sizeof h->relayed_message, "%s", message);
    atomic_store_explicit(&h->relay_state, RELAY_POSTED, memory_order_release);
  }
  atomic_store_explicit(world->aborted, true, memory_order_release);
  vcpu_comm_signal_progress(world->signal);
}

static bool posted(void *context) {
  const vcpu_comm_world_header_t *h = context;
  return atomic_load_explicit(&h->relay_state, memory_order_acquire) ==
         RELAY_POSTED;
}

static bool someone_away_in(const vcpu_comm_world_t *world, uint64_t seq) {
  for (size_t r = 0; r < world->nranks; r++)
    if (atomic_load_explicit(&world->slots[r].away_seq, memory_order_acquire) ==
        seq)
      return true;
  return false;
}

bp_status_t vcpu_comm_relay_take(vcpu_comm_world_t *world, uint64_t seq,
                                 uint64_t deadline_ns, size_t *out_by,
                                 char *message, size_t capacity) {
  vcpu_comm_world_header_t *h = world->header;
  if (!posted(h) && someone_away_in(world, seq))
    vcpu_comm_wait_world(world, deadline_ns, posted, NULL, h);
  if (!posted(h))
    return BP_OK;
  *out_by = (size_t)h->relayed_by;
  snprintf(message, capacity, "%s", h->relayed_message);
  return (bp_status_t)h->relayed_status;
}
