/* Recycled closures (contract in callback_closures.h). */
#include "core/callback_closures.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

static _Atomic(bp_closure_link_t *) given; /* the shared stack */

/* Closures in existence. Threads that take from the stack at once can each
 * find it empty and make new ones; past this many, given-back closures are
 * freed instead, so the cache stays bounded (48 bytes each). */
enum { POPULATION_MAX = 16384 };
static atomic_size_t population;

/* The calling thread's own closures; the key's destructor gives them back
 * at thread exit (the key is set once the thread has any). initial-exec:
 * no __tls_get_addr call on each take (9 bytes of static TLS). */
static _Thread_local __attribute__((tls_model("initial-exec")))
bp_closure_link_t *own;
static _Thread_local
    __attribute__((tls_model("initial-exec"))) bool exit_key_set;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static bool exit_key_ok;

static void push_list(bp_closure_link_t *first) {
  bp_closure_link_t *last = first;
  while (last->next)
    last = last->next;
  bp_closure_link_t *head = atomic_load_explicit(&given, memory_order_relaxed);
  do
    last->next = head;
  while (!atomic_compare_exchange_weak_explicit(
      &given, &head, first, memory_order_release, memory_order_relaxed));
}

static void give_back_at_exit(void *unused) {
  (void)unused;
  if (own)
    push_list(own);
  own = NULL;
}

static void make_exit_key(void) {
  exit_key_ok = pthread_key_create(&exit_key, give_back_at_exit) == 0;
}

/* The slow path: the shared stack, or a new closure. */
static void *refill(size_t size) {
  if (!exit_key_set) {
    pthread_once(&exit_key_once, make_exit_key);
    exit_key_set = exit_key_ok && pthread_setspecific(exit_key, &given) == 0;
  }
  bp_closure_link_t *taken =
      atomic_exchange_explicit(&given, NULL, memory_order_acquire);
  if (!taken) {
    void *closure = malloc(size);
    if (closure)
      atomic_fetch_add_explicit(&population, 1, memory_order_relaxed);
    return closure;
  }
  own = taken->next;
  return taken;
}

void *bp_callback_closure_take(size_t size) {
  bp_closure_link_t *closure = own;
  if (!closure)
    return refill(size);
  own = closure->next;
  return closure;
}

void bp_callback_closure_give(void *closure) {
  if (atomic_load_explicit(&population, memory_order_relaxed) >
      POPULATION_MAX) {
    atomic_fetch_sub_explicit(&population, 1, memory_order_relaxed);
    free(closure);
    return;
  }
  bp_closure_link_t *link = closure;
  link->next = NULL;
  push_list(link);
}

size_t bp_callback_closures_made(void) {
  return atomic_load_explicit(&population, memory_order_relaxed);
}
