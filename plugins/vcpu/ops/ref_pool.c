/* The worker pool behind ref_parallel_for.
 *
 * One job at a time (the `dispatch` mutex; a caller that cannot take it
 * runs its work inline). The job is one atomic word: its generation, an
 * open flag and the count of workers inside it. The dispatcher writes the
 * job's fields, publishes a new generation (open, nobody inside), claims
 * chunks itself, then closes the job and waits only for the workers inside.
 * A worker joins by a compare-and-swap that succeeds only while that
 * generation is open, so one that wakes late never touches a finished or a
 * newer job, and the caller never waits for it.
 *
 * Each thread has a slot (the dispatcher 0, worker k slot k) whose home is
 * a contiguous run of the chunks, the same run in every job of the same
 * size: a thread claims its own run's chunks first, in order, then those
 * left in the other slots. Like a static schedule, a thread mostly touches
 * the part of the data it touched in the previous op (still in its cache),
 * and unlike one, a late thread's part is taken by the others.
 *
 * Hand-offs spin before they sleep (a futex wake-up costs tens of
 * microseconds, as much as an op on a few megabytes, and ops come back to
 * back): busily for SPIN_BUSY_NS, then yielding the CPU between polls, so
 * that a waiter sharing a CPU with the thread it waits for lets that one run.
 * The busy part is short: 50 us, which kept a worker through the gap
 * between two back-to-back ops on a machine running other processes (a
 * 2x32x130x130 sub beside another process's work: 186 -> 85 us in the
 * median), made the quiet machine's `bench ops` slower (a 2x128x3072 gather
 * 37-44 against 50-61 GB/s, alternating; 164 of 167 rows met natively
 * against 166 with 2 us), the spinning worker holding a CPU the caller and
 * the stream worker wanted (docs/performance.md).
 *
 * Spreading: with more runnable threads than CPUs (a stream worker calling
 * the op, its waiting caller, the pool's workers), the scheduler may leave a
 * worker on the dispatcher's CPU for good, and every job then runs at one
 * thread's speed. A worker that finds itself on a CPU already running the
 * job moves off it (its affinity narrowed to the other CPUs for a moment,
 * then restored); a real-time caller, never time-sliced, yields once after a
 * job nobody joined so that such a worker gets to run and move. */
#include "ref_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* How long a waiter polls before it sleeps, and how much of that busily. */
#define SPIN_NS 100000u
#define SPIN_BUSY_NS 2000u

enum { CHUNKS_PER_THREAD = 4 };

/* The job word: generation << 32 | OPEN | workers inside. */
#define JOB_OPEN ((uint64_t)1 << 31)
#define JOB_INSIDE ((uint64_t)JOB_OPEN - 1)
static uint32_t job_generation(uint64_t word) {
  return (uint32_t)(word >> 32);
}

static struct {
  pthread_once_t once;
  int threads;              /* caller included */
  pthread_mutex_t dispatch; /* held by the one job in flight */
  pthread_mutex_t lock;     /* sleeping and waking only */
  pthread_cond_t wake, done;
  int sleepers; /* under lock */
  _Atomic uint64_t job;
  _Atomic uint64_t cpus; /* CPUs (below 64) running the job */
  /* Slot k's chunks still to claim: [next, end) */
  struct {
    _Alignas(64) atomic_int_fast64_t next;
    int64_t end;
  } slots[REF_POOL_MAX_THREADS];
  /* The job's fields: written by the dispatcher while nobody is inside,
   * read by the workers that joined. */
  ref_range_fn_t fn;
  void *context;
  int64_t n, chunk, chunks;
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
  return job_generation(atomic_load_explicit(
             &pool.job, memory_order_acquire)) != (uint32_t)seen;
}

static bool nobody_inside(uint64_t unused) {
  (void)unused;
  return (atomic_load_explicit(&pool.job, memory_order_acquire) & JOB_INSIDE) ==
         0;
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

/* Claims and runs slot `from`'s chunks, then the other slots' (in turn
 * after it), until none is left. */
static void run_chunks(int from) {
  for (int s = 0; s < pool.threads; s++) {
    int slot = (from + s) % pool.threads;
    for (;;) {
      int64_t k = atomic_fetch_add_explicit(&pool.slots[slot].next, 1,
                                            memory_order_relaxed);
      if (k >= pool.slots[slot].end)
        break;
      int64_t begin = k * pool.chunk;
      int64_t end = begin + pool.chunk < pool.n ? begin + pool.chunk : pool.n;
      pool.fn(pool.context, begin, end);
    }
  }
}

static uint64_t cpu_bit(int cpu) {
  return cpu >= 0 && cpu < 64 ? (uint64_t)1 << cpu : 0;
}

/* Moves the calling worker off the CPUs in `busy` (a CPU bit mask), if its
 * affinity `allowed` leaves it another; its affinity is `allowed` again on
 * return. */
static void move_off(const cpu_set_t *allowed, uint64_t busy) {
  cpu_set_t away = *allowed;
  for (int cpu = 0; cpu < 64; cpu++)
    if (busy & cpu_bit(cpu))
      CPU_CLR(cpu, &away);
  if (CPU_COUNT(&away) == 0 ||
      sched_setaffinity(0, sizeof away, &away) != 0) /* moves it now */
    return;
  sched_setaffinity(0, sizeof *allowed, allowed);
}

/* Joins the job of generation `generation` if it is still open. */
static bool join(uint32_t generation) {
  uint64_t word = atomic_load_explicit(&pool.job, memory_order_relaxed);
  while (job_generation(word) == generation && (word & JOB_OPEN))
    if (atomic_compare_exchange_weak_explicit(&pool.job, &word, word + 1,
                                              memory_order_acquire,
                                              memory_order_relaxed))
      return true;
  return false;
}

static void leave(void) {
  uint64_t word = atomic_fetch_sub_explicit(&pool.job, 1, memory_order_release);
  if ((word & JOB_INSIDE) == 1 && !(word & JOB_OPEN)) { /* the caller waits */
    pthread_mutex_lock(&pool.lock);
    pthread_cond_signal(&pool.done);
    pthread_mutex_unlock(&pool.lock);
  }
}

static void *worker(void *arg) {
  int slot = (int)(intptr_t)arg;
  cpu_set_t allowed;
  bool can_move = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
  uint32_t seen =
      job_generation(atomic_load_explicit(&pool.job, memory_order_acquire));
  for (;;) {
    if (!spin_until(job_published, seen)) {
      pthread_mutex_lock(&pool.lock);
      pool.sleepers++;
      while (!job_published(seen))
        pthread_cond_wait(&pool.wake, &pool.lock);
      pool.sleepers--;
      pthread_mutex_unlock(&pool.lock);
    }
    seen =
        job_generation(atomic_load_explicit(&pool.job, memory_order_acquire));
    bool joined = join(seen);
    uint64_t here = cpu_bit(sched_getcpu());
    uint64_t busy =
        joined
            ? atomic_fetch_or_explicit(&pool.cpus, here, memory_order_relaxed)
            : atomic_load_explicit(&pool.cpus, memory_order_relaxed);
    if (can_move && (busy & here)) {
      move_off(&allowed, busy);
      if (joined)
        atomic_fetch_or_explicit(&pool.cpus, cpu_bit(sched_getcpu()),
                                 memory_order_relaxed);
    }
    if (joined) {
      run_chunks(slot);
      leave();
    }
  }
  return NULL;
}

/* After a job no worker joined: a caller under a real-time policy (a
 * benchmark under `chrt`) is never time-sliced, so a worker the scheduler
 * put on its CPU would wait there for good now that ops run on their
 * caller's thread, which no longer sleeps between them. A yield lets that
 * worker run once; it sees this job's CPU and moves off (move_off). Under
 * the ordinary policies the scheduler's balancing does that, and a yield
 * would only hand the CPU to other processes: none then. */
static void let_a_stuck_worker_move(void) {
  if (atomic_load_explicit(&pool.cpus, memory_order_relaxed) !=
      cpu_bit(sched_getcpu()))
    return; /* a worker joined */
  int policy = sched_getscheduler(0);
  if (policy == SCHED_FIFO || policy == SCHED_RR)
    sched_yield();
}

static int allowed_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return CPU_COUNT(&set);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores < 1                      ? 1
         : cores > REF_POOL_MAX_THREADS ? REF_POOL_MAX_THREADS
                                        : (int)cores;
}

static void start_pool(void) {
  const char *env = getenv("BACKPLANE_OPS_THREADS");
  long threads = env && *env ? atol(env) : allowed_cpus();
  pool.threads = threads < 1                      ? 1
                 : threads > REF_POOL_MAX_THREADS ? REF_POOL_MAX_THREADS
                                                  : (int)threads;
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
  if (n <= 0)
    return;
  int threads = ref_pool_threads();
  grain = grain < 1 ? 1 : grain;
  if (threads == 1 || n <= grain ||
      pthread_mutex_trylock(&pool.dispatch) != 0) {
    fn(context, 0, n);
    return;
  }
  int64_t chunks = n / grain + (n % grain != 0);
  if (chunks > (int64_t)threads * CHUNKS_PER_THREAD)
    chunks = (int64_t)threads * CHUNKS_PER_THREAD;
  pool.fn = fn;
  pool.context = context;
  pool.n = n;
  pool.chunk = n / chunks + (n % chunks != 0);
  pool.chunks = n / pool.chunk + (n % pool.chunk != 0);
  for (int k = 0; k < threads; k++) {
    atomic_store_explicit(&pool.slots[k].next, pool.chunks * k / threads,
                          memory_order_relaxed);
    pool.slots[k].end = pool.chunks * (k + 1) / threads;
  }
  atomic_store_explicit(&pool.cpus, cpu_bit(sched_getcpu()),
                        memory_order_relaxed);
  uint32_t generation =
      job_generation(atomic_load_explicit(&pool.job, memory_order_relaxed)) + 1;
  pthread_mutex_lock(&pool.lock);
  atomic_store_explicit(&pool.job, (uint64_t)generation << 32 | JOB_OPEN,
                        memory_order_release);
  if (pool.sleepers)
    pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  run_chunks(0);
  atomic_fetch_and_explicit(&pool.job, ~JOB_OPEN, memory_order_acq_rel);
  let_a_stuck_worker_move();
  if (!spin_until(nobody_inside, 0)) {
    pthread_mutex_lock(&pool.lock);
    while (!nobody_inside(0))
      pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
  }
  pthread_mutex_unlock(&pool.dispatch);
}
