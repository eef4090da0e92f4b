/* Bounded MPSC ring. Cell i holds ticket t when its sequence is t + 1 (and
 * t & mask == i). Publishing a command and parking the worker form a
 * store-load handshake on seq_cst locations (the cell's sequence and
 * `parked`), so a wake-up is never lost.
 *
 * A cell is handed back to producers by the release store of `completed` in
 * vcpu_queue_pop, after the worker is done with its command; a producer
 * acquires it either from `completed` or from `room_until`, which producers
 * only store (release) bounds they acquired from `completed`. */
#include "queue.h"

#include <errno.h>
#include <stdlib.h>

#include "base/park.h"

int vcpu_queue_init(vcpu_queue *queue, size_t capacity) {
  vcpu_queue_cell *cells =
      aligned_alloc(_Alignof(vcpu_queue_cell), capacity * sizeof *cells);
  /* Large enough to be mapped lazily: only slots in use get pages. */
  unsigned char *slots = malloc(capacity * VCPU_QUEUE_SLOT_SIZE);
  if (!cells || !slots) {
    free(cells);
    free(slots);
    return ENOMEM;
  }
  for (size_t i = 0; i < capacity; ++i)
    atomic_init(&cells[i].sequence, 0); /* ticket + 1 is never 0 */
  queue->cells = cells;
  queue->slots = slots;
  queue->mask = capacity - 1;
  atomic_init(&queue->tail, 0);
  atomic_init(&queue->room_until, queue->mask);
  atomic_init(&queue->parked, 0);
  queue->head = 0;
  vcpu_progress_init(&queue->completed);
  return 0;
}

void vcpu_queue_destroy(vcpu_queue *queue) {
  free(queue->cells);
  free(queue->slots);
  queue->cells = NULL;
  queue->slots = NULL;
}

/* Returns once `ticket`'s cell is free. When the ring is full the producer
 * spins until a quarter of the ring is free, so that it then writes a run of
 * cells the worker is not reading instead of trailing it cell by cell; it
 * never blocks for more than its own cell, though: a spin that runs out
 * settles for that. */
static void wait_for_room(vcpu_queue *queue, uint64_t ticket) {
  if (ticket <= atomic_load_explicit(&queue->room_until, memory_order_acquire))
    return;
  uint64_t needed = ticket - queue->mask; /* completed must reach this */
  uint64_t completed = vcpu_progress_get(&queue->completed);
  if (completed < needed) {
    uint64_t plenty = needed + (queue->mask + 1) / 4;
    vcpu_spin spin = vcpu_spin_start();
    while (completed < plenty && vcpu_spin_again(&spin))
      completed = vcpu_progress_get(&queue->completed);
    if (completed < needed) {
      vcpu_progress_wait(&queue->completed, needed);
      completed = vcpu_progress_get(&queue->completed);
    }
  }
  atomic_store_explicit(&queue->room_until, completed + queue->mask,
                        memory_order_release);
}

uint64_t vcpu_queue_push_filled(vcpu_queue *queue, const vcpu_command *command,
                                void (*fill)(void *context,
                                             unsigned char *slot),
                                void *context) {
  uint64_t ticket =
      atomic_fetch_add_explicit(&queue->tail, 1, memory_order_relaxed);
  wait_for_room(queue, ticket);
  if (fill)
    fill(context, queue->slots + (ticket & queue->mask) * VCPU_QUEUE_SLOT_SIZE);
  vcpu_queue_cell *cell = &queue->cells[ticket & queue->mask];
  cell->command = *command;
  atomic_store(&cell->sequence, ticket + 1);
  if (atomic_load(&queue->parked) != 0 &&
      atomic_exchange(&queue->parked, 0) != 0)
    vcpu_futex_wake(&queue->parked, 1);
  return ticket;
}

uint64_t vcpu_queue_push(vcpu_queue *queue, const vcpu_command *command) {
  return vcpu_queue_push_filled(queue, command, NULL, NULL);
}

vcpu_command *vcpu_queue_front(vcpu_queue *queue) {
  vcpu_queue_cell *cell = &queue->cells[queue->head & queue->mask];
  uint64_t ready = queue->head + 1;
  if (atomic_load_explicit(&cell->sequence, memory_order_acquire) == ready)
    return &cell->command;
  vcpu_spin spin = vcpu_spin_start();
  while (vcpu_spin_again(&spin))
    if (atomic_load_explicit(&cell->sequence, memory_order_acquire) == ready)
      return &cell->command;
  for (;;) {
    atomic_store(&queue->parked, 1);
    if (atomic_load(&cell->sequence) == ready) {
      atomic_store_explicit(&queue->parked, 0, memory_order_relaxed);
      return &cell->command;
    }
    vcpu_futex_wait(&queue->parked, 1);
  }
}

void vcpu_queue_pop(vcpu_queue *queue) {
  queue->head++;
  vcpu_progress_advance(&queue->completed, queue->head);
}
