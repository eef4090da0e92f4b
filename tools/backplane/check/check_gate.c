/* Gates that hold a stream back, and markers that see whether work overtook
 * them. */
#include "check_gate.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

static unsigned capped_deadline_ms(unsigned deadline_ms) {
  const char *text = getenv("BACKPLANE_CHECK_GATE_MS");
  char *end;
  unsigned long cap = text && *text ? strtoul(text, &end, 10) : 0;
  return cap > 0 && !*end && cap < deadline_ms ? (unsigned)cap : deadline_ms;
}

void check_gate_init(check_gate_t *gate, unsigned deadline_ms) {
  *gate = (check_gate_t){.owner = pthread_self(),
                         .deadline_ms = capped_deadline_ms(deadline_ms)};
  pthread_mutex_init(&gate->mutex, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&gate->cond, &attr);
  pthread_condattr_destroy(&attr);
}

void check_gate_destroy(check_gate_t *gate) {
  pthread_cond_destroy(&gate->cond);
  pthread_mutex_destroy(&gate->mutex);
}

static void gate_callback(void *user_data) {
  check_gate_t *gate = user_data;
  pthread_mutex_lock(&gate->mutex);
  gate->entered = 1;
  if (pthread_equal(pthread_self(), gate->owner)) {
    gate->ran_inline = 1;
  } else {
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += gate->deadline_ms / 1000;
    deadline.tv_nsec += (long)(gate->deadline_ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000;
    }
    while (!gate->opened && !gate->timed_out)
      if (pthread_cond_timedwait(&gate->cond, &gate->mutex, &deadline) ==
          ETIMEDOUT)
        gate->timed_out = !gate->opened;
  }
  gate->finished = 1;
  pthread_mutex_unlock(&gate->mutex);
}

bp_status_t check_gate_enqueue(check_gate_t *gate, bp_stream_t *stream) {
  bp_status_t status = bp_stream_add_callback(stream, gate_callback, gate);
  pthread_mutex_lock(&gate->mutex);
  gate->finished_first = gate->finished;
  pthread_mutex_unlock(&gate->mutex);
  return status;
}

void check_gate_open(check_gate_t *gate) {
  pthread_mutex_lock(&gate->mutex);
  gate->opened = 1;
  pthread_cond_broadcast(&gate->cond);
  pthread_mutex_unlock(&gate->mutex);
}

check_gate_state_t check_gate_state(check_gate_t *gate) {
  pthread_mutex_lock(&gate->mutex);
  check_gate_state_t state = {gate->entered,   gate->finished,
                              gate->opened,    gate->ran_inline,
                              gate->timed_out, gate->finished_first};
  pthread_mutex_unlock(&gate->mutex);
  return state;
}

int check_gate_holding(check_gate_t *gate) {
  check_gate_state_t state = check_gate_state(gate);
  return !state.opened && !state.timed_out && !state.ran_inline;
}

void check_marker_init(check_marker_t *marker, check_gate_t *gate) {
  marker->gate = gate;
  atomic_init(&marker->runs, 0);
  atomic_init(&marker->overtook, 0);
}

static void marker_callback(void *user_data) {
  check_marker_t *marker = user_data;
  if (marker->gate && check_gate_holding(marker->gate))
    atomic_fetch_add(&marker->overtook, 1);
  atomic_fetch_add(&marker->runs, 1);
}

bp_status_t check_marker_enqueue(check_marker_t *marker, bp_stream_t *stream) {
  return bp_stream_add_callback(stream, marker_callback, marker);
}
