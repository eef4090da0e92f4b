#include "comm_test_streams.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct task {
  struct task *next;
  comm_task comm;
} task;

struct test_stream {
  pthread_t worker;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  task *head, *tail;
  uint64_t enqueued, finished;
  bool stopping;
};

static void *worker_main(void *argument) {
  test_stream *s = argument;
  pthread_mutex_lock(&s->lock);
  for (;;) {
    while (s->head == NULL && !s->stopping)
      pthread_cond_wait(&s->changed, &s->lock);
    if (s->head == NULL)
      break;
    task *t = s->head;
    s->head = t->next;
    if (s->head == NULL)
      s->tail = NULL;
    pthread_mutex_unlock(&s->lock);
    comm_run_task(&t->comm);
    free(t);
    pthread_mutex_lock(&s->lock);
    s->finished++;
    pthread_cond_broadcast(&s->changed);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

test_stream *test_stream_create(void) {
  test_stream *s = calloc(1, sizeof *s);
  if (s == NULL)
    return NULL;
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->changed, NULL);
  if (pthread_create(&s->worker, NULL, worker_main, s) != 0) {
    free(s);
    return NULL;
  }
  return s;
}

void test_stream_synchronize(test_stream *s) {
  pthread_mutex_lock(&s->lock);
  uint64_t target = s->enqueued;
  while (s->finished < target)
    pthread_cond_wait(&s->changed, &s->lock);
  pthread_mutex_unlock(&s->lock);
}

void test_stream_destroy(test_stream *s) {
  if (s == NULL)
    return;
  pthread_mutex_lock(&s->lock);
  s->stopping = true;
  pthread_cond_broadcast(&s->changed);
  pthread_mutex_unlock(&s->lock);
  pthread_join(s->worker, NULL);
  pthread_cond_destroy(&s->changed);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

C_Status test_stream_enqueue(C_Stream stream, const comm_task *comm) {
  test_stream *s = (test_stream *)(void *)stream;
  task *t = malloc(sizeof *t);
  if (t == NULL)
    return C_FAILED;
  *t = (task){NULL, *comm};
  pthread_mutex_lock(&s->lock);
  if (s->tail)
    s->tail->next = t;
  else
    s->head = t;
  s->tail = t;
  s->enqueued++;
  pthread_cond_broadcast(&s->changed);
  pthread_mutex_unlock(&s->lock);
  return C_SUCCESS;
}
