/* A gate that holds a stream back: a host callback that blocks its stream
 * until the test opens the gate, so the test can check what a call did
 * before the stream reached it. */
#ifndef BACKPLANE_TESTS_SUPPORT_STREAM_GATE_H_
#define BACKPLANE_TESTS_SUPPORT_STREAM_GATE_H_

#include <pthread.h>

#include "backplane/backplane.h"

typedef struct stream_gate {
  pthread_mutex_t lock;
  pthread_cond_t opened;
  int open;
  int ran;
  pthread_t thread; /* the callback's */
} stream_gate_t;

static inline void stream_gate_init(stream_gate_t *gate) {
  pthread_mutex_init(&gate->lock, NULL);
  pthread_cond_init(&gate->opened, NULL);
  gate->open = gate->ran = 0;
}

static inline void stream_gate_open(stream_gate_t *gate) {
  pthread_mutex_lock(&gate->lock);
  gate->open = 1;
  pthread_cond_broadcast(&gate->opened);
  pthread_mutex_unlock(&gate->lock);
}

static inline void stream_gate_destroy(stream_gate_t *gate) {
  pthread_mutex_destroy(&gate->lock);
  pthread_cond_destroy(&gate->opened);
}

/* The callback: blocks its stream until the gate opens. */
static inline void stream_gate_wait(void *user_data) {
  stream_gate_t *gate = (stream_gate_t *)user_data;
  pthread_mutex_lock(&gate->lock);
  gate->ran++;
  gate->thread = pthread_self();
  while (!gate->open)
    pthread_cond_wait(&gate->opened, &gate->lock);
  pthread_mutex_unlock(&gate->lock);
}

/* Holds `stream` back until stream_gate_open. */
static inline bp_status_t stream_gate_hold(stream_gate_t *gate,
                                           bp_stream_t *stream) {
  return bp_stream_add_callback(stream, stream_gate_wait, gate);
}

#endif /* BACKPLANE_TESTS_SUPPORT_STREAM_GATE_H_ */
