/* The watchdog of waits wedged inside MPI (contract in mpi_watchdog.h). */
#include "mpi_watchdog.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi_world.h"

enum { SLOTS = 64, WHAT_BYTES = 96, LOOK_EVERY_MS = 100 };

/* One waiting thread's wait. `deadline_ns` is 0 while it waits in none;
 * the thread writes what it waits in only while it is 0, so a reader that
 * sees the same nonzero deadline before and after reading it read one
 * wait's. */
typedef struct watch_slot {
  atomic_bool taken;
  _Atomic uint64_t deadline_ns;
  _Atomic(const char *) label;
  _Atomic uint64_t seq;
} watch_slot;

static watch_slot slots[SLOTS];
static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static pthread_key_t slot_key; /* gives a thread's slot back when it ends */
static int world_rank = -1;
static _Thread_local watch_slot *my_slot;

static void give_back(void *slot) {
  watch_slot *s = slot;
  atomic_store(&s->deadline_ns, 0);
  atomic_store(&s->taken, false);
}

static watch_slot *claim_slot(void) {
  for (size_t i = 0; i < SLOTS; i++) {
    bool free_slot = false;
    if (atomic_compare_exchange_strong(&slots[i].taken, &free_slot, true)) {
      pthread_setspecific(slot_key, &slots[i]);
      return &slots[i];
    }
  }
  return NULL;
}

void mpi_watchdog_enter(mpi_wait_name what, uint64_t deadline_ns) {
  if (world_rank < 0) /* not started */
    return;
  if (my_slot == NULL && (my_slot = claim_slot()) == NULL)
    return;
  atomic_store_explicit(&my_slot->deadline_ns, 0, memory_order_relaxed);
  atomic_store_explicit(&my_slot->label, what.label, memory_order_relaxed);
  atomic_store_explicit(&my_slot->seq, what.seq, memory_order_relaxed);
  atomic_store_explicit(&my_slot->deadline_ns, deadline_ns ? deadline_ns : 1,
                        memory_order_release);
}

void mpi_watchdog_leave(void) {
  if (my_slot != NULL)
    atomic_store_explicit(&my_slot->deadline_ns, 0, memory_order_release);
}

/* Ends the process if slot `s` has been wedged in MPI past its grace. */
static void look_at(watch_slot *s, uint64_t now) {
  uint64_t deadline =
      atomic_load_explicit(&s->deadline_ns, memory_order_acquire);
  uint64_t grace = (uint64_t)MPI_WATCHDOG_GRACE_MS * 1000000u;
  if (deadline == 0 || now < deadline + grace)
    return;
  mpi_wait_name name = {atomic_load_explicit(&s->label, memory_order_relaxed),
                        atomic_load_explicit(&s->seq, memory_order_relaxed)};
  atomic_thread_fence(memory_order_acquire);
  if (atomic_load_explicit(&s->deadline_ns, memory_order_relaxed) != deadline)
    return; /* it left, and may wait in another call */
  char what[WHAT_BYTES];
  mpi_wait_name_format(name, what, sizeof what);
  fprintf(stderr,
          "backplane: vcpu MPI: MPI rank %d (pid %ld): %s: Open MPI did not "
          "return %.1f s past the call's deadline (wedged inside MPI, as Open "
          "MPI 4.1's TCP transport does when a peer dies mid-transfer); "
          "ending this process, which can neither finish the call nor report "
          "it\n",
          world_rank, (long)getpid(), what, (double)(now - deadline) * 1e-9);
  fflush(stderr);
  _exit(MPI_WATCHDOG_EXIT_STATUS);
}

static void *watch(void *unused) {
  (void)unused;
  struct timespec pause = {0, LOOK_EVERY_MS * 1000000L};
  for (;;) {
    nanosleep(&pause, NULL);
    uint64_t now = mpi_now_ns();
    for (size_t i = 0; i < SLOTS; i++)
      if (atomic_load_explicit(&slots[i].taken, memory_order_relaxed))
        look_at(&slots[i], now);
  }
  return NULL;
}

static void start(void) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pthread_t thread;
  if (pthread_key_create(&slot_key, give_back) != 0 ||
      pthread_create(&thread, NULL, watch, NULL) != 0)
    return; /* unwatched: waits still end at their deadlines */
  pthread_detach(thread);
  world_rank = rank;
}

void mpi_watchdog_start(void) {
  pthread_once(&start_once, start);
}
