/* A gate: a host callback that blocks its stream until the checker opens it,
 * so that work enqueued behind it is known to be pending. It never blocks
 * the thread that created it (a plugin that runs callbacks inline on the
 * caller is detected, not hung) and opens by itself after a deadline, so a
 * plugin that waits for the callback cannot hang the checker either.
 *
 * A marker is a callback that records that it ran and whether the gate was
 * still closed at that moment: work that overtook the gate.
 *
 * Gates and markers must outlive the streams they were enqueued on (open the
 * gate, then drain or destroy the stream, then destroy the gate). All
 * functions are thread-safe. */
#ifndef BACKPLANE_CLI_CHECK_GATE_H_
#define BACKPLANE_CLI_CHECK_GATE_H_

#include <pthread.h>
#include <stdatomic.h>

#include "backplane/backplane.h"

typedef struct check_gate {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  pthread_t owner;      /* the thread that created the gate */
  unsigned deadline_ms; /* how long the callback waits at most */
  int entered;          /* the callback started */
  int finished;         /* the callback returned */
  int opened;           /* check_gate_open was called */
  int ran_inline;       /* the callback ran on the owner thread */
  int timed_out;        /* the callback gave up waiting */
  int finished_first;   /* it had returned before add_callback did */
} check_gate_t;

/* `deadline_ms`, or less when BACKPLANE_CHECK_GATE_MS is set lower: a fault
 * sweep sets it so that a call that waits for a held stream costs little. */
void check_gate_init(check_gate_t *gate, unsigned deadline_ms);
void check_gate_destroy(check_gate_t *gate);

/* Enqueues the gate's callback on `stream` (bp_stream_add_callback) and notes
 * whether the callback had already returned when the call did. */
bp_status_t check_gate_enqueue(check_gate_t *gate, bp_stream_t *stream);

/* Lets the callback return. */
void check_gate_open(check_gate_t *gate);

/* A snapshot of the gate's state, taken under its lock. */
typedef struct check_gate_state {
  int entered, finished, opened, ran_inline, timed_out, finished_first;
} check_gate_state_t;
check_gate_state_t check_gate_state(check_gate_t *gate);

/* 1 while the gate still holds its stream back: enqueued work behind it that
 * has been observed running (read before calling this) ran early. 0 once it
 * was opened or gave up, or if it ran inline. */
int check_gate_holding(check_gate_t *gate);

typedef struct check_marker {
  check_gate_t *gate; /* may be NULL: then only `runs` counts */
  atomic_int runs;
  atomic_int overtook; /* ran while the gate was closed and waiting */
} check_marker_t;

void check_marker_init(check_marker_t *marker, check_gate_t *gate);
/* Enqueues the marker's callback on `stream`. */
bp_status_t check_marker_enqueue(check_marker_t *marker, bp_stream_t *stream);

#endif /* BACKPLANE_CLI_CHECK_GATE_H_ */
