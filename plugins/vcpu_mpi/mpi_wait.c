#include "mpi_wait.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mpi_roll_call.h"
#include "mpi_watchdog.h"

static atomic_bool given_up;

int mpi_fail(int status, char *error, size_t capacity, const char *format,
             ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error, capacity, format, args);
  va_end(args);
  return status;
}

void mpi_give_up(mpi_world *world) {
  world->abandoned = true;
  atomic_store(&given_up, true);
}

bool mpi_any_request_given_up(void) {
  return atomic_load(&given_up);
}

/* How often a poll reads the clock (a test of a few requests takes tens of
 * nanoseconds, a clock read about as long), and answers roll calls and
 * yields the CPU (mpirun may oversubscribe). */
enum { POLLS_PER_CLOCK_READ = 16, POLLS_PER_YIELD = 64 };

/* What a wait polls: MPI requests, or a word of shared memory. */
typedef struct poll_target {
  MPI_Request *requests;
  int n;
  MPI_Status *statuses;
  const _Atomic uint64_t *word;
  uint64_t value;
} poll_target;

/* Whether the target is done; an MPI error code in *rc. */
static bool poll_done(const poll_target *t, int *rc) {
  if (t->word != NULL)
    return atomic_load_explicit(t->word, memory_order_acquire) == t->value;
  int done = 0;
  *rc = MPI_Testall(t->n, t->requests, &done, t->statuses);
  return done != 0;
}

static int poll_until(mpi_world *world, const poll_target *target,
                      uint64_t deadline_ns, uint64_t until_ns,
                      const atomic_bool *aborted, mpi_wait_name what,
                      char *error, size_t capacity) {
  char name[96];
  for (unsigned round = 1;; round++) {
    int rc = MPI_SUCCESS;
    if (poll_done(target, &rc))
      return BP_OK;
    if (rc != MPI_SUCCESS) {
      char text[MPI_MAX_ERROR_STRING];
      int length = 0;
      MPI_Error_string(rc, text, &length);
      mpi_wait_name_format(what, name, sizeof name);
      return mpi_fail(BP_ERR_PLUGIN, error, capacity, "%s: MPI failed: %s",
                      name, text);
    }
    if (round % POLLS_PER_YIELD == 0) {
      mpi_roll_call_answer(world);
      sched_yield();
    }
    if (round % POLLS_PER_CLOCK_READ != 0)
      continue;
    bool was_aborted = aborted && atomic_load(aborted);
    uint64_t now = mpi_now_ns();
    if (!was_aborted && now > until_ns && now <= deadline_ns)
      return BP_ERR_NOT_READY;
    if (!was_aborted && now <= deadline_ns)
      continue;
    mpi_give_up(world);
    mpi_wait_name_format(what, name, sizeof name);
    if (was_aborted)
      return mpi_fail(BP_ERR_ABORTED, error, capacity, "%s aborted", name);
    return mpi_fail(BP_ERR_TIMEOUT, error, capacity, "%s timed out", name);
  }
}

static int watched_poll(mpi_world *world, const poll_target *target,
                        uint64_t deadline_ns, uint64_t until_ns,
                        const atomic_bool *aborted, mpi_wait_name what,
                        char *error, size_t capacity) {
  mpi_watchdog_enter(what, deadline_ns);
  int status = poll_until(world, target, deadline_ns, until_ns, aborted, what,
                          error, capacity);
  mpi_watchdog_leave();
  return status;
}

int mpi_wait_until(mpi_world *world, MPI_Request *requests, int n,
                   MPI_Status *statuses, uint64_t deadline_ns,
                   uint64_t until_ns, const atomic_bool *aborted,
                   mpi_wait_name what, char *error, size_t capacity) {
  poll_target target = {.requests = requests, .n = n, .statuses = statuses};
  return watched_poll(world, &target, deadline_ns, until_ns, aborted, what,
                      error, capacity);
}

int mpi_wait_for_word(mpi_world *world, const _Atomic uint64_t *word,
                      uint64_t value, uint64_t deadline_ns, uint64_t until_ns,
                      const atomic_bool *aborted, mpi_wait_name what,
                      char *error, size_t capacity) {
  poll_target target = {.word = word, .value = value};
  return watched_poll(world, &target, deadline_ns, until_ns, aborted, what,
                      error, capacity);
}

int mpi_wait_all(mpi_world *world, MPI_Request *requests, int n,
                 MPI_Status *statuses, uint64_t deadline_ns,
                 const atomic_bool *aborted, mpi_wait_name what, char *error,
                 size_t capacity) {
  return mpi_wait_until(world, requests, n, statuses, deadline_ns, UINT64_MAX,
                        aborted, what, error, capacity);
}

int mpi_name_the_missing(mpi_world *world, int status, uint64_t seq,
                         char *error, size_t capacity) {
  if (status != BP_ERR_TIMEOUT)
    return status;
  char names[256];
  mpi_roll_call(world, seq, names, sizeof names);
  size_t used = strlen(error);
  if (used + 2 < capacity)
    snprintf(error + used, capacity - used, ": %s", names);
  return status;
}
