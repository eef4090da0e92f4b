/* The worker pool behind ref_parallel_for. One job at a time: the dispatcher
 * publishes it under `lock`, bumps `generation`, and runs chunk 0 itself;
 * worker k runs chunk k and counts down `pending`. */
#include "ref_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

enum { MAX_THREADS = 8 };

static struct {
  pthread_once_t once;
  int threads;              /* caller included */
  pthread_mutex_t dispatch; /* held by the one job in flight */
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  uint64_t generation;
  int pending;
  ref_range_fn_t fn;
  void *context;
  int64_t n, chunk;
} pool = {.once = PTHREAD_ONCE_INIT,
          .dispatch = PTHREAD_MUTEX_INITIALIZER,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

static void run_chunk(int k, ref_range_fn_t fn, void *context, int64_t n,
                      int64_t chunk) {
  int64_t begin = (int64_t)k * chunk;
  int64_t end = begin + chunk < n ? begin + chunk : n;
  if (begin < end)
    fn(context, begin, end);
}

static void *worker(void *arg) {
  int k = (int)(intptr_t)arg;
  uint64_t seen = 0;
  pthread_mutex_lock(&pool.lock);
  for (;;) {
    while (pool.generation == seen)
      pthread_cond_wait(&pool.wake, &pool.lock);
    seen = pool.generation;
    ref_range_fn_t fn = pool.fn;
    void *context = pool.context;
    int64_t n = pool.n, chunk = pool.chunk;
    pthread_mutex_unlock(&pool.lock);
    run_chunk(k, fn, context, n, chunk);
    pthread_mutex_lock(&pool.lock);
    if (--pool.pending == 0)
      pthread_cond_signal(&pool.done);
  }
  return NULL;
}

static void start_pool(void) {
  const char *env = getenv("BACKPLANE_OPS_THREADS");
  long cores = env ? atol(env) : sysconf(_SC_NPROCESSORS_ONLN);
  pool.threads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
  for (int k = 1; k < pool.threads; k++) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker, (void *)(intptr_t)k) != 0) {
      pool.threads = k;
      break;
    }
    pthread_detach(thread);
  }
}

int ref_pool_threads(void) {
  pthread_once(&pool.once, start_pool);
  return pool.threads;
}

void ref_parallel_for(int64_t n, int64_t grain, ref_range_fn_t fn,
                      void *context) {
  int threads = ref_pool_threads();
  if (n <= 0)
    return;
  if (threads == 1 || n < 2 * grain ||
      pthread_mutex_trylock(&pool.dispatch) != 0) {
    fn(context, 0, n);
    return;
  }
  int64_t chunk = (n + threads - 1) / threads;
  pthread_mutex_lock(&pool.lock);
  pool.fn = fn;
  pool.context = context;
  pool.n = n;
  pool.chunk = chunk;
  pool.pending = threads - 1;
  pool.generation++;
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  run_chunk(0, fn, context, n, chunk);
  pthread_mutex_lock(&pool.lock);
  while (pool.pending > 0)
    pthread_cond_wait(&pool.done, &pool.lock);
  pthread_mutex_unlock(&pool.lock);
  pthread_mutex_unlock(&pool.dispatch);
}
