/* Stress: several threads at once, each with its own stream, allocating,
 * copying (on the stream or synchronously), recording and waiting on events,
 * verifying every byte and freeing, on all of the plugin's devices. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "check_pattern.h"
#include "check_pool.h"
#include "check_report.h"

enum { THREADS = 4, MAX_SIZE = 256 << 10 };

typedef struct stress_worker {
  pthread_t thread;
  size_t id;
  bp_device_t *device;
  int iterations;
  unsigned char *in, *out;
  char why[256]; /* empty unless the worker failed */
} stress_worker_t;

static void fail_worker(stress_worker_t *w, int iteration, const char *what,
                        bp_status_t status) {
  snprintf(w->why, sizeof(w->why), "thread %zu, iteration %d: %s: %s: %s",
           w->id, iteration, what, bp_status_name(status), bp_last_error());
}

/* One iteration: malloc, h2d, d2d, d2h, event, verify, free. */
static int stress_once(stress_worker_t *w, bp_stream_t *stream,
                       bp_event_t *event, int iteration) {
  uint64_t seed = check_pattern_seed(w->id, (uint64_t)iteration, 31);
  size_t size = 1 + (size_t)(seed % MAX_SIZE);
  bp_stream_t *s = iteration % 4 == 3 ? NULL : stream;
  void *a = NULL, *b = NULL;
  check_pattern_fill(w->in, size, seed);
  memset(w->out, 0, size);
  const char *what = "bp_device_malloc";
  bp_status_t status = bp_device_malloc(w->device, size, &a);
  if (status == BP_OK)
    status = bp_device_malloc(w->device, size, &b);
  if (status == BP_OK) {
    what = "h2d";
    status = bp_copy(w->device, a, NULL, w->in, size, s);
  }
  if (status == BP_OK) {
    what = "d2d";
    status = bp_copy(w->device, b, w->device, a, size, s);
  }
  if (status == BP_OK) {
    what = "d2h";
    status = bp_copy(NULL, w->out, w->device, b, size, s);
  }
  if (status == BP_OK) {
    what = "bp_event_record";
    status = bp_event_record(event, stream);
  }
  if (status == BP_OK) {
    what = "bp_event_synchronize";
    status = bp_event_synchronize(event);
  }
  if (status != BP_OK) {
    fail_worker(w, iteration, what, status);
  } else {
    size_t at = check_pattern_mismatch(w->out, w->in, size);
    if (at != SIZE_MAX)
      snprintf(w->why, sizeof(w->why),
               "thread %zu, iteration %d: %zu-byte round trip wrong at byte "
               "%zu",
               w->id, iteration, size, at);
  }
  bp_status_t free_a = bp_device_free(w->device, a);
  bp_status_t free_b = bp_device_free(w->device, b);
  if (!w->why[0] && (free_a != BP_OK || free_b != BP_OK))
    fail_worker(w, iteration, "bp_device_free",
                free_a != BP_OK ? free_a : free_b);
  return w->why[0] ? -1 : 0;
}

static void *stress_thread(void *arg) {
  stress_worker_t *w = arg;
  bp_stream_t *stream = NULL;
  bp_event_t *event = NULL;
  bp_status_t status = bp_stream_create(w->device, &stream);
  if (status != BP_OK)
    fail_worker(w, -1, "bp_stream_create", status);
  else if ((status = bp_event_create(w->device, &event)) != BP_OK)
    fail_worker(w, -1, "bp_event_create", status);
  for (int i = 0; i < w->iterations && !w->why[0]; i++)
    stress_once(w, stream, event, i);
  bp_event_destroy(event);
  check_stream_destroy(stream);
  return NULL;
}

void check_stress(check_ctx_t *ctx) {
  const char *name = "stress.threads";
  static unsigned char buffers[THREADS][2][MAX_SIZE];
  stress_worker_t workers[THREADS];
  size_t started = 0;
  for (size_t i = 0; i < THREADS; i++) {
    workers[i] = (stress_worker_t){
        .id = i,
        .device = ctx->devices[i % ctx->device_count],
        .iterations = ctx->quick ? 25 : 200,
        .in = buffers[i][0],
        .out = buffers[i][1],
    };
    if (pthread_create(&workers[i].thread, NULL, stress_thread, &workers[i]))
      break;
    started++;
  }
  for (size_t i = 0; i < started; i++)
    pthread_join(workers[i].thread, NULL);
  if (started < THREADS) {
    check_fail(ctx, name, "could not start %d threads", THREADS);
    return;
  }
  for (size_t i = 0; i < THREADS; i++) {
    if (workers[i].why[0]) {
      check_fail(ctx, name, "%s", workers[i].why);
      return;
    }
  }
  check_pass(ctx, name,
             "%d threads x %d iterations of malloc, h2d, d2d, d2h, event, "
             "free; all bytes right",
             THREADS, workers[0].iterations);
}
