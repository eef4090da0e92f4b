/* Bounded MPSC ring. Cell i holds ticket t when its sequence is t + 1; it is
 * free for ticket t when its sequence is t. Publishing a command and parking
 * the worker form a store-load handshake on seq_cst locations (the cell's
 * sequence and `parked`), so a wake-up is never lost. */
#include "queue.h"

#include <errno.h>
#include <stdlib.h>

#include "park.h"

int vcpu_queue_init(vcpu_queue *queue, size_t capacity) {
  vcpu_queue_cell *cells =
      aligned_alloc(_Alignof(vcpu_queue_cell), capacity * sizeof *cells);
  if (!cells)
    return ENOMEM;
  for (size_t i = 0; i < capacity; ++i)
    atomic_init(&cells[i].sequence, i);
  queue->cells = cells;
  queue->mask = capacity - 1;
  atomic_init(&queue->tail, 0);
  atomic_init(&queue->parked, 0);
  queue->head = 0;
  vcpu_progress_init(&queue->completed);
  return 0;
}

void vcpu_queue_destroy(vcpu_queue *queue) {
  free(queue->cells);
  queue->cells = NULL;
}

uint64_t vcpu_queue_push(vcpu_queue *queue, const vcpu_command *command) {
  uint64_t ticket =
      atomic_fetch_add_explicit(&queue->tail, 1, memory_order_relaxed);
  vcpu_queue_cell *cell = &queue->cells[ticket & queue->mask];
  if (atomic_load_explicit(&cell->sequence, memory_order_acquire) != ticket) {
    /* Full: the cell frees once ticket - capacity has been popped. */
    vcpu_progress_wait(&queue->completed, ticket - queue->mask);
  }
  cell->command = *command;
  atomic_store(&cell->sequence, ticket + 1);
  if (atomic_load(&queue->parked) != 0 &&
      atomic_exchange(&queue->parked, 0) != 0)
    vcpu_futex_wake(&queue->parked, 1);
  return ticket;
}

vcpu_command *vcpu_queue_front(vcpu_queue *queue) {
  vcpu_queue_cell *cell = &queue->cells[queue->head & queue->mask];
  uint64_t ready = queue->head + 1;
  if (atomic_load_explicit(&cell->sequence, memory_order_acquire) == ready)
    return &cell->command;
  uint64_t deadline = vcpu_now_ns() + VCPU_SPIN_NS;
  for (unsigned spins = 1;; ++spins) {
    if (atomic_load_explicit(&cell->sequence, memory_order_acquire) == ready)
      return &cell->command;
    vcpu_cpu_relax();
    if ((spins & 63u) == 0 && vcpu_now_ns() >= deadline)
      break;
  }
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
  vcpu_queue_cell *cell = &queue->cells[queue->head & queue->mask];
  queue->head++;
  atomic_store_explicit(&cell->sequence, queue->head + queue->mask,
                        memory_order_release);
  vcpu_progress_advance(&queue->completed, queue->head);
}
