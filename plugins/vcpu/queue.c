/* Bounded MPSC ring. Cell i holds ticket t when its sequence is t + 1 (and
 * t & mask == i). Publishing a command and parking the worker form a
 * store-load handshake on seq_cst locations (the cell's sequence and
 * `parked`), so a wake-up is never lost. Completing a claimed ticket moves
 * `head` for the worker, which therefore reads it anew at every look: the
 * same handshake on `head` and `parked` wakes a worker that parked at the
 * claimed ticket while later commands came.
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
  atomic_init(&queue->head, 0);
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

/* Wakes the worker if it is parked. */
static void wake_worker(vcpu_queue *queue) {
  if (atomic_load(&queue->parked) != 0 &&
      atomic_exchange(&queue->parked, 0) != 0)
    vcpu_futex_wake(&queue->parked, 1);
}

static void publish(vcpu_queue *queue, uint64_t ticket,
                    const vcpu_command *command) {
  vcpu_queue_cell *cell = &queue->cells[ticket & queue->mask];
  cell->command = *command;
  atomic_store(&cell->sequence, ticket + 1);
  wake_worker(queue);
}

uint64_t vcpu_queue_push_filled(vcpu_queue *queue, const vcpu_command *command,
                                void (*fill)(void *context,
                                             unsigned char *slot),
                                void *context) {
  /* seq_cst: a caller completing a claimed ticket checks the tail after it
   * moved head (vcpu_queue_complete_claimed). */
  uint64_t ticket = atomic_fetch_add(&queue->tail, 1);
  wait_for_room(queue, ticket);
  if (fill)
    fill(context, queue->slots + (ticket & queue->mask) * VCPU_QUEUE_SLOT_SIZE);
  publish(queue, ticket, command);
  return ticket;
}

uint64_t vcpu_queue_push(vcpu_queue *queue, const vcpu_command *command) {
  return vcpu_queue_push_filled(queue, command, NULL, NULL);
}

bool vcpu_queue_claim_idle(vcpu_queue *queue, uint64_t *out_ticket) {
  uint64_t done = vcpu_progress_get(&queue->completed);
  /* head lags completed while a caller completes its claimed ticket: the
   * next claim waits for it. */
  if (atomic_load(&queue->head) != done)
    return false;
  uint64_t idle = done;
  if (!atomic_compare_exchange_strong(&queue->tail, &idle, done + 1))
    return false;
  *out_ticket = done;
  return true;
}

void vcpu_queue_complete_claimed(vcpu_queue *queue, uint64_t ticket) {
  /* completed first: the worker, once it sees head move, may run and pop
   * the next command, and completed never goes back. */
  vcpu_progress_advance(&queue->completed, ticket + 1);
  atomic_store(&queue->head, ticket + 1);
  if (atomic_load(&queue->tail) > ticket + 1)
    wake_worker(queue);
}

void vcpu_queue_publish_claimed(vcpu_queue *queue, uint64_t ticket,
                                const vcpu_command *command) {
  publish(queue, ticket, command);
}

/* The command at head once it is published, else NULL. */
static vcpu_command *published_front(vcpu_queue *queue) {
  uint64_t head = atomic_load(&queue->head);
  vcpu_queue_cell *cell = &queue->cells[head & queue->mask];
  return atomic_load(&cell->sequence) == head + 1 ? &cell->command : NULL;
}

vcpu_command *vcpu_queue_front(vcpu_queue *queue) {
  vcpu_command *command = published_front(queue);
  if (command)
    return command;
  vcpu_spin spin = vcpu_spin_start();
  while (vcpu_spin_again(&spin))
    if ((command = published_front(queue)) != NULL)
      return command;
  for (;;) {
    atomic_store(&queue->parked, 1);
    if ((command = published_front(queue)) != NULL) {
      atomic_store_explicit(&queue->parked, 0, memory_order_relaxed);
      return command;
    }
    vcpu_futex_wait(&queue->parked, 1);
  }
}

void vcpu_queue_pop(vcpu_queue *queue) {
  uint64_t next = atomic_load_explicit(&queue->head, memory_order_relaxed) + 1;
  atomic_store_explicit(&queue->head, next, memory_order_relaxed);
  vcpu_progress_advance(&queue->completed, next);
}
