/* The worker pool behind ref_parallel_for. One job at a time: the dispatcher
 * publishes it under `lock`, bumps `generation`, and runs chunk 0 itself;
 * worker k runs chunk k and counts down `pending`. Both hand-offs spin
 * before they sleep (workers for the next job, the dispatcher for the last
 * chunk): a futex wake-up costs tens of microseconds, as much as a whole
 * op on a few megabytes, and ops come back to back. The spin polls busily
 * for SPIN_BUSY_NS, then yields the CPU between polls, so that a thread
 * sharing its core with the one it waits for lets that one run. */
#include "ref_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { MAX_THREADS = 8 };

/* How long a waiter polls before it sleeps, and how much of that busily. */
#define SPIN_NS 100000u
#define SPIN_BUSY_NS 2000u

static struct {
  pthread_once_t once;
  int threads;              /* caller included */
  pthread_mutex_t dispatch; /* held by the one job in flight */
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  atomic_uint_fast64_t generation; /* stored (release) after the job */
  atomic_int pending;
  ref_range_fn_t fn;
  void *context;
  int64_t n, chunk;
} pool = {.once = PTHREAD_ONCE_INIT,
          .dispatch = PTHREAD_MUTEX_INITIALIZER,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static bool job_published(uint64_t seen) {
  return atomic_load_explicit(&pool.generation, memory_order_acquire) != seen;
}

static bool chunks_done(uint64_t unused) {
  (void)unused;
  return atomic_load_explicit(&pool.pending, memory_order_acquire) == 0;
}

/* Polls ready(arg) until it holds (true) or the spin budget runs out
 * (false). */
static bool spin_until(bool (*ready)(uint64_t), uint64_t arg) {
  uint64_t start = now_ns();
  for (unsigned polls = 1;; polls++) {
    if (ready(arg))
      return true;
    if ((polls & 63) == 0) {
      uint64_t spun = now_ns() - start;
      if (spun >= SPIN_NS)
        return false;
      if (spun >= SPIN_BUSY_NS)
        sched_yield();
    }
    cpu_relax();
  }
}

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
  for (;;) {
    if (!spin_until(job_published, seen)) {
      pthread_mutex_lock(&pool.lock);
      while (!job_published(seen))
        pthread_cond_wait(&pool.wake, &pool.lock);
      pthread_mutex_unlock(&pool.lock);
    }
    /* The job's fields stay as published until every worker counts down. */
    seen = atomic_load_explicit(&pool.generation, memory_order_acquire);
    run_chunk(k, pool.fn, pool.context, pool.n, pool.chunk);
    if (atomic_fetch_sub_explicit(&pool.pending, 1, memory_order_acq_rel) ==
        1) {
      pthread_mutex_lock(&pool.lock);
      pthread_cond_signal(&pool.done);
      pthread_mutex_unlock(&pool.lock);
    }
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
  atomic_store_explicit(&pool.pending, threads - 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  run_chunk(0, fn, context, n, chunk);
  if (!spin_until(chunks_done, 0)) {
    pthread_mutex_lock(&pool.lock);
    while (!chunks_done(0))
      pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
  }
  pthread_mutex_unlock(&pool.dispatch);
}
