/* The command ring of one stream: a bounded multi-producer single-consumer
 * queue. Producers take tickets with one atomic add and publish a command by
 * storing its ticket + 1 into the cell's sequence; the consumer (the stream's
 * worker) never writes cells, it only counts what it popped in `completed`.
 * Ticket t may reuse its cell once completed >= t - mask; producers keep
 * the bound they last saw in `room_until`, so they read the consumer's
 * counter about once per lap of the ring, not once per command. A full ring
 * blocks producers until the worker frees a cell.
 *
 * The consumer peeks the front command, runs it, then pops it, so a
 * producer's ticket t is done once completed > t. The worker spins briefly on
 * an empty ring, then parks; producers issue a futex wake only when it is
 * parked. A cell is one cache line: a producer filling the next cell never
 * takes away the line the worker is reading.
 *
 * An idle ring can lend its next ticket to a caller that does that ticket's
 * work itself (vcpu_queue_claim_idle): commands pushed meanwhile wait behind
 * it, synchronizing waits for it, and the worker, asleep or not, is not
 * involved unless the caller hands the work back (vcpu_queue_publish_claimed).
 */
#ifndef BACKPLANE_VCPU_QUEUE_H_
#define BACKPLANE_VCPU_QUEUE_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "base/progress.h"
#include "comm/task.h"

typedef enum vcpu_command_kind {
  VCPU_COMMAND_COPY,     /* copy.dst <- copy.src, copy.size bytes */
  VCPU_COMMAND_CALLBACK, /* C_Callback with a status pointer */
  VCPU_COMMAND_COMM,     /* vcpu_comm_run_task(&comm) */
  VCPU_COMMAND_RECORD,   /* complete event.event's generation */
  VCPU_COMMAND_WAIT,     /* wait for event.event's generation */
  VCPU_COMMAND_KERNEL,   /* a kernel launch (kernel/kernels.h) */
  VCPU_COMMAND_STOP,     /* the worker exits after this one */
} vcpu_command_kind;

struct vcpu_copier;

typedef struct vcpu_command {
  uint32_t kind; /* a vcpu_command_kind */
  union {
    struct {
      void *dst;
      const void *src;
      size_t size;
      struct vcpu_copier *copier; /* helper thread of the destination */
    } copy;
    struct {
      C_Callback fn;
      void *user_data;
      C_Device device; /* the caller's handle, handed back to fn */
    } callback;
    vcpu_comm_task_t comm;
    struct {
      struct BP_KernelFunction_st *function; /* holds a module reference */
      const char *name;                      /* the function's */
      uint64_t timeout_ns;
      void *heap_args; /* malloc'ed when larger than the slot, else NULL */
      uint32_t blocks;
      uint32_t args_size; /* bytes in the slot or at heap_args */
    } kernel;
    struct {
      C_Event event; /* holds a reference until the command ran */
      uint64_t generation;
    } event;
  };
} vcpu_command;

typedef struct vcpu_queue_cell {
  _Alignas(64) atomic_uint_least64_t sequence; /* ticket + 1 of its command */
  vcpu_command command;
} vcpu_queue_cell;

_Static_assert(sizeof(vcpu_queue_cell) == 64, "a cell is one cache line");

/* Side bytes of a cell (its "slot"): what a command carries beyond its 56
 * bytes, written by the producer before publishing and valid until pop. */
#define VCPU_QUEUE_SLOT_SIZE 256u
/* A VCPU_COMMAND_KERNEL's slot begins with the launch's label (its op),
 * NUL-terminated within this many bytes (kernel/launch.c fills it). */
#define VCPU_KERNEL_LABEL_SIZE 64u

/* Each group of fields has its own cache line, by who writes it. */
typedef struct vcpu_queue {
  vcpu_queue_cell *cells; /* read-only after init */
  unsigned char *slots;   /* VCPU_QUEUE_SLOT_SIZE per cell, read-only ptr */
  uint64_t mask;          /* capacity - 1 */
  /* Producers. */
  _Alignas(64) atomic_uint_least64_t tail; /* next ticket */
  atomic_uint_least64_t room_until; /* tickets <= this have a free cell */
  atomic_uint parked;               /* futex word: 1 while the worker sleeps */
  /* Consumer (and a caller completing a claimed ticket, which the consumer
   * waits at meanwhile). */
  _Alignas(64) atomic_uint_least64_t head;
  vcpu_progress completed; /* commands popped */
} vcpu_queue;

/* capacity must be a power of two. Returns 0 or ENOMEM. */
int vcpu_queue_init(vcpu_queue *queue, size_t capacity);
void vcpu_queue_destroy(vcpu_queue *queue);

/* Any thread. Copies `command` in and returns its ticket; blocks while full. */
uint64_t vcpu_queue_push(vcpu_queue *queue, const vcpu_command *command);

/* Like vcpu_queue_push, and first calls fill(context, slot) to write the
 * command's slot (VCPU_QUEUE_SLOT_SIZE bytes) once its cell is free. */
uint64_t vcpu_queue_push_filled(vcpu_queue *queue, const vcpu_command *command,
                                void (*fill)(void *context,
                                             unsigned char *slot),
                                void *context);

/* Tickets handed out so far: wait for completed >= this to drain. */
static inline uint64_t vcpu_queue_issued(vcpu_queue *queue) {
  return atomic_load_explicit(&queue->tail, memory_order_acquire);
}

/* Any thread: when every issued command has completed, takes the next ticket
 * without a command and returns true with it in *out_ticket; the consumer
 * waits at that ticket (commands pushed later come after it) until the caller
 * ends the claim with exactly one of the two calls below. False, with nothing
 * taken, when a command is pending or running. */
bool vcpu_queue_claim_idle(vcpu_queue *queue, uint64_t *out_ticket);

/* Ends a claim whose work the caller did itself: the ticket counts as
 * completed (everything the caller wrote before is visible to whoever sees
 * it completed) and the consumer moves on to later commands, if any. */
void vcpu_queue_complete_claimed(vcpu_queue *queue, uint64_t ticket);

/* Ends a claim by handing `command` to the consumer, which runs it at the
 * claimed ticket, as if pushed when it was claimed. */
void vcpu_queue_publish_claimed(vcpu_queue *queue, uint64_t ticket,
                                const vcpu_command *command);

/* Consumer only: waits for the next command and returns it in place; it stays
 * valid (and its cell occupied) until vcpu_queue_pop. */
vcpu_command *vcpu_queue_front(vcpu_queue *queue);

/* Consumer only: the slot of the front command. */
static inline unsigned char *vcpu_queue_front_slot(vcpu_queue *queue) {
  uint64_t head = atomic_load_explicit(&queue->head, memory_order_relaxed);
  return queue->slots + (head & queue->mask) * VCPU_QUEUE_SLOT_SIZE;
}

/* Consumer only: frees the front cell and counts the command completed. */
void vcpu_queue_pop(vcpu_queue *queue);

#endif /* BACKPLANE_VCPU_QUEUE_H_ */
