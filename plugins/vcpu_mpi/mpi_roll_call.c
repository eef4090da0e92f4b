/* Roll calls after a timeout (contract in mpi_roll_call.h). */
#include "mpi_roll_call.h"

#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_watchdog.h"

enum { QUESTION_TAG = 1, ANSWER_TAG = 2 };

/* How long the live ranks have to answer: they answer from inside their own
 * waits, so a fraction of a second is plenty even when oversubscribed. */
#define GRACE_NS 300000000ull

bool mpi_roll_call_open(mpi_world *world) {
  world->roll_answers = calloc(world->nranks, sizeof *world->roll_answers);
  if (world->roll_answers == NULL ||
      MPI_Comm_dup(world->comm, &world->roll) != MPI_SUCCESS) {
    free(world->roll_answers);
    world->roll_answers = NULL;
    world->roll = MPI_COMM_NULL;
    return false;
  }
  MPI_Comm_set_errhandler(world->roll, MPI_ERRORS_RETURN);
  return true;
}

void mpi_roll_call_close(mpi_world *world) {
  /* The roll communicator stays: a question from a rank that timed out may
   * reach this one after it left, and a freed communicator's context id,
   * reused by a new one, would deliver that stale question there. */
  world->roll = MPI_COMM_NULL;
  if (!world->abandoned)
    free(world->roll_answers);
}

void mpi_roll_call_answer(mpi_world *world) {
  if (world->roll == MPI_COMM_NULL)
    return;
  for (;;) {
    int pending = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, QUESTION_TAG, world->roll, &pending,
                   &status) != MPI_SUCCESS ||
        !pending)
      return;
    uint64_t question = 0;
    MPI_Recv(&question, 1, MPI_UINT64_T, status.MPI_SOURCE, QUESTION_TAG,
             world->roll, MPI_STATUS_IGNORE);
    /* 8 bytes go eagerly: the send does not wait for the asker. */
    MPI_Send(&world->at_seq, 1, MPI_UINT64_T, status.MPI_SOURCE, ANSWER_TAG,
             world->roll);
  }
}

/* Appends "<separator>rank R" lists to `out`. */
static void append(char *out, size_t capacity, size_t *used, const char *format,
                   ...) __attribute__((format(printf, 4, 5)));
static void append(char *out, size_t capacity, size_t *used, const char *format,
                   ...) {
  if (*used >= capacity)
    return;
  va_list args;
  va_start(args, format);
  int n = vsnprintf(out + *used, capacity - *used, format, args);
  va_end(args);
  if (n > 0)
    *used += (size_t)n;
}

/* Appends "<separator>host H (world ranks a,b)": host H of a world of host
 * leaders and the ranks on it. */
static void append_host(const mpi_world *world, size_t host,
                        const char *separator, char *out, size_t capacity,
                        size_t *used) {
  append(out, capacity, used, "%shost %zu (world ranks", separator, host);
  const char *between = " ";
  for (size_t r = 0; r < world->world_nranks; r++)
    if (world->host_of[r] == host) {
      append(out, capacity, used, "%s%zu", between, r);
      between = ",";
    }
  append(out, capacity, used, ")");
}

/* Posts the question to every other rank and a receive for each answer. */
static void ask(mpi_world *world, uint64_t seq, MPI_Request *questions,
                MPI_Request *answers) {
  world->roll_question = seq;
  for (size_t p = 0; p < world->nranks; p++) {
    questions[p] = answers[p] = MPI_REQUEST_NULL;
    if (p == world->rank)
      continue;
    MPI_Isend(&world->roll_question, 1, MPI_UINT64_T, (int)p, QUESTION_TAG,
              world->roll, &questions[p]);
    MPI_Irecv(&world->roll_answers[p], 1, MPI_UINT64_T, (int)p, ANSWER_TAG,
              world->roll, &answers[p]);
  }
}

/* Collects answers for the grace period; everybody who timed out asks at
 * about the same time, so it answers them meanwhile. */
static void collect(mpi_world *world, MPI_Request *answers, bool *answered) {
  uint64_t deadline = mpi_now_ns() + GRACE_NS;
  for (size_t waiting = world->nranks; waiting && mpi_now_ns() < deadline;) {
    mpi_roll_call_answer(world);
    waiting = 0;
    for (size_t p = 0; p < world->nranks; p++) {
      if (p == world->rank || answered[p])
        continue;
      int done = 0;
      MPI_Test(&answers[p], &done, MPI_STATUS_IGNORE);
      answered[p] = done;
      waiting += !done;
    }
    if (waiting)
      sched_yield();
  }
}

void mpi_roll_call(mpi_world *world, uint64_t seq, char *out, size_t capacity) {
  size_t n = world->nranks, used = 0;
  out[0] = '\0';
  MPI_Request *requests =
      world->roll == MPI_COMM_NULL ? NULL : malloc(2 * n * sizeof *requests);
  bool *answered = requests ? calloc(n, sizeof *answered) : NULL;
  if (answered == NULL) {
    free(requests);
    append(out, capacity, &used, "some %s never took part", world->member);
    return;
  }
  MPI_Request *questions = requests, *answers = requests + n;
  /* Its MPI calls poll: watched like a wait (mpi_watchdog.h). */
  mpi_watchdog_enter((mpi_wait_name){"a roll call", 0},
                     mpi_now_ns() + GRACE_NS);
  ask(world, seq, questions, answers);
  collect(world, answers, answered);
  size_t missing = 0;
  for (size_t p = 0; p < n; p++) {
    if (p == world->rank || answered[p])
      continue;
    MPI_Cancel(&answers[p]); /* a receive cancels at once */
    MPI_Wait(&answers[p], MPI_STATUS_IGNORE);
    if (world->host_of != NULL)
      append_host(world, p, missing++ ? ", " : "", out, capacity, &used);
    else if (missing++)
      append(out, capacity, &used, ", %zu", p);
    else
      append(out, capacity, &used, "%s %zu", world->member, p);
  }
  if (missing)
    append(out, capacity, &used,
           " did not answer a roll call within %llu ms (dead, or not calling "
           "into this communicator)",
           (unsigned long long)(GRACE_NS / 1000000));
  for (size_t p = 0; p < n; p++)
    if (answered[p] && world->roll_answers[p] != seq)
      append(out, capacity, &used, "%s%s %zu is at sequence %" PRIu64,
             used ? "; " : "", world->member, p, world->roll_answers[p]);
  if (!used)
    append(out, capacity, &used,
           "every %s answered a roll call from this call: it is too slow, "
           "not hung",
           world->member);
  /* A question to a dead rank may never go: its buffer lives in the world,
   * which must then outlive destroy(). */
  for (size_t p = 0; p < n; p++) {
    int sent = 1;
    if (questions[p] != MPI_REQUEST_NULL)
      MPI_Test(&questions[p], &sent, MPI_STATUS_IGNORE);
    if (!sent) {
      MPI_Request_free(&questions[p]);
      world->abandoned = true;
    }
  }
  mpi_watchdog_leave();
  free(requests);
  free(answered);
}
