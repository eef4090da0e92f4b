/* Recycled closures of host callbacks (internal).
 *
 * A closure is taken by the thread that enqueues a callback and given back
 * by the thread that runs it (the stream's worker): with malloc and free
 * that costs glibc its arena lock on both sides every time. Given-back
 * closures go on one lock-free stack (a push is one compare-and-swap;
 * nothing pops single records, so there is no ABA); a thread whose own list
 * is empty takes the whole stack at once. A thread's own list goes back to
 * the stack when the thread exits. Closures are kept for reuse, at most
 * 16384 of them (past that, given-back ones are freed). Thread-safe. */
#ifndef BACKPLANE_CORE_CALLBACK_CLOSURES_H_
#define BACKPLANE_CORE_CALLBACK_CLOSURES_H_

#include <stddef.h>

/* The first member of every closure. */
typedef struct bp_closure_link {
  struct bp_closure_link *next;
} bp_closure_link_t;

/* A closure of `size` bytes (the same size on every call), uninitialized;
 * NULL when out of memory. */
void *bp_callback_closure_take(size_t size);
/* Gives back a closure from bp_callback_closure_take; any thread. */
void bp_callback_closure_give(void *closure);

/* Closures in existence (made and not freed). */
size_t bp_callback_closures_made(void);

#endif /* BACKPLANE_CORE_CALLBACK_CLOSURES_H_ */
