/* alloc: the caching allocator's cached alloc+free (a hit: the same size
 * freed and allocated again) at 512 B .. 64 MiB, with 1, 2 and 4 threads,
 * against glibc malloc, mimalloc (dlopen, mi_ prefixed API), jemalloc and the
 * plugin's raw allocate/deallocate, in the same run (budget: <= 50 ns and
 * <= 2x jemalloc, 1 thread, and 2 and 4 threads up to 64 KiB, where each
 * thread's rate is also >= 0.8x the 1-thread rate); then a training-iteration
 * trace replayed through the allocator: iterations/s against glibc, and peak
 * reserved over peak allocated.
 *
 * What is timed: T threads start at a barrier and run alloc+free pairs, in
 * batches, until the first thread has run for a fixed window (WINDOW_MS)
 * and raises a stop flag that the others read between batches; nothing
 * shared is written in the loop (each thread has its own sink and its own
 * result slot). The figure is the window times the cores the threads can
 * use (min(T, CPUs in the affinity mask)) divided by the pairs all threads
 * completed: one thread's time per pair for T = 1, each thread's time per
 * pair for T <= CPUs, and what one core spends per pair while more threads
 * than cores time-share ("per core" rows), so a perfectly scaling allocator
 * shows its 1-thread figure on any core count. Every thread is runnable for
 * the whole window, so a thread that the scheduler starts late or leaves
 * for last does not stretch the time. The "CPU per thread" rows give each
 * thread's CPU time per pair (CLOCK_THREAD_CPUTIME_ID), which other
 * processes' load does not inflate.
 *
 * jemalloc cannot be dlopen'ed (its TLS model needs the static TLS block),
 * and linking it would replace malloc process-wide; so the bench re-runs
 * itself with LD_PRELOAD=libjemalloc.so.2 and BACKPLANE_BENCH_ALLOC_CHILD=fd,
 * where it times plain malloc/free (then jemalloc's) interleaved with the
 * caching allocator, and writes both to the pipe `fd`: the budget compares
 * the two as timed side by side. Every subject's repetitions are interleaved
 * likewise. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alloc_trace.h"
#include "bench.h"
#include "cli/cli_format.h"
#include "cli/cli_timing.h"

#define CHILD_ENV "BACKPLANE_BENCH_ALLOC_CHILD"

/* Thread counts 1, 2, 4 (doubling up to MAX_THREADS: THREAD_STEPS of them). */
enum {
  FULL_REPS = 7,
  SIZE_COUNT = 4,
  MAX_THREADS = 4,
  THREAD_STEPS = 3,
  REPLAY_ITERATIONS = 20
};
/* Busy time before the first timed run, in the bench and in the jemalloc
 * child alike. */
enum { WARM_UP_MS = 300 };
/* The timed window of one measurement, and of one in quick mode. */
enum { WINDOW_MS = 20, QUICK_WINDOW_MS = 2 };

static const size_t sizes[SIZE_COUNT] = {512, (size_t)64 << 10, (size_t)1 << 20,
                                         (size_t)64 << 20};

typedef enum subject {
  BACKPLANE,        /* bp_device_malloc/free (no stream) */
  BACKPLANE_STREAM, /* bp_device_malloc_async/free_async, a stream per thread */
  GLIBC,
  MIMALLOC,
  RAW, /* the plugin's device_memory_allocate/deallocate */
  SUBJECT_COUNT
} subject_t;

static const char *const subject_names[SUBJECT_COUNT] = {
    "backplane", "backplane stream", "glibc malloc", "mimalloc", "plugin raw"};

typedef struct alloc_bench {
  bench_ctx_t *ctx;
  C_Device c_device;
  bp_stream_t *streams[MAX_THREADS];
  void *(*mi_malloc)(size_t);
  void (*mi_free)(void *);
} alloc_bench_t;

/* One thread's run; each on its own cache lines, written by its thread only
 * after the timed loop. Thread 0 keeps the time and raises `stop`. */
typedef struct timed_run {
  alloc_bench_t *bench;
  subject_t subject;
  size_t size, batch;
  uint64_t window_ns;
  int thread;
  pthread_barrier_t *start;
  atomic_bool *stop;
  bool ok;         /* out */
  uint64_t window; /* out (thread 0): the time until it raised `stop` */
  uint64_t pairs;  /* out: pairs completed */
  uint64_t cpu_ns; /* out: the thread's CPU time in them */
} __attribute__((aligned(64))) timed_run_t;

/* ns per alloc+free pair: wall time per core in use, and CPU time per
 * thread (see the top of the file). */
typedef struct pair_time {
  double wall, cpu;
} pair_time_t;

/* The pointer escapes here, so the compiler cannot drop a malloc/free pair;
 * one per thread, so that no cache line is shared in the timed loop. */
static _Thread_local void *volatile sink;

static int one_pair(alloc_bench_t *b, subject_t subject, size_t size,
                    int thread) {
  void *p = NULL;
  switch (subject) {
  case BACKPLANE:
    if (bp_device_malloc(b->ctx->device, size, &p) != BP_OK)
      return -1;
    sink = p;
    return bp_device_free(b->ctx->device, p) == BP_OK ? 0 : -1;
  case BACKPLANE_STREAM:
    if (bp_device_malloc_async(b->ctx->device, size, b->streams[thread], &p) !=
        BP_OK)
      return -1;
    sink = p;
    return bp_device_free_async(b->ctx->device, p, b->streams[thread]) == BP_OK
               ? 0
               : -1;
  case GLIBC:
    sink = p = malloc(size);
    free(p);
    return p ? 0 : -1;
  case MIMALLOC:
    sink = p = b->mi_malloc(size);
    b->mi_free(p);
    return p ? 0 : -1;
  case RAW:
    if (b->ctx->dispatch->device_memory_allocate(b->c_device, &p, size) !=
        C_SUCCESS)
      return -1;
    sink = p;
    return b->ctx->dispatch->device_memory_deallocate(b->c_device, p, size) ==
                   C_SUCCESS
               ? 0
               : -1;
  case SUBJECT_COUNT:
    break;
  }
  return -1;
}

static uint64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *timed_pairs(void *arg) {
  timed_run_t *run = arg;
  run->ok = false;
  bool warm = one_pair(run->bench, run->subject, run->size, run->thread) == 0;
  if (run->start) /* even after a failure: the others wait for it */
    pthread_barrier_wait(run->start);
  if (!warm)
    return NULL;
  uint64_t cpu = thread_cpu_ns(), begin = cli_now_ns(), pairs = 0;
  for (bool done = false; !done;) {
    for (size_t i = 0; i < run->batch; i++)
      if (one_pair(run->bench, run->subject, run->size, run->thread))
        return NULL;
    pairs += run->batch;
    if (run->thread == 0) {
      run->window = cli_now_ns() - begin;
      done = run->window >= run->window_ns;
      if (done)
        atomic_store_explicit(run->stop, true, memory_order_relaxed);
    } else {
      done = atomic_load_explicit(run->stop, memory_order_relaxed);
    }
  }
  run->cpu_ns = thread_cpu_ns() - cpu;
  run->pairs = pairs;
  run->ok = true;
  return NULL;
}

/* Pairs between two looks at the clock or the stop flag: a small part of
 * the window, and of the time a late thread may add after the stop. */
static size_t batch_for(size_t size) {
  return size >= ((size_t)16 << 20) ? 2 : 256;
}

/* The CPUs this process may run on. */
static int usable_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? (int)online : 1;
}

/* `threads` threads running pairs at once; false on failure. */
static bool measure(alloc_bench_t *b, subject_t subject, size_t size,
                    int threads, pair_time_t *out) {
  timed_run_t runs[MAX_THREADS];
  pthread_t ids[MAX_THREADS];
  bool started[MAX_THREADS] = {false};
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  atomic_bool stop = false;
  uint64_t window_ms = b->ctx->quick ? QUICK_WINDOW_MS : WINDOW_MS;
  for (int t = 0; t < threads; t++) {
    runs[t] = (timed_run_t){.bench = b,
                            .subject = subject,
                            .size = size,
                            .batch = batch_for(size),
                            .window_ns = window_ms * 1000000u,
                            .thread = t,
                            .start = threads > 1 ? &start : NULL,
                            .stop = &stop};
    if (t > 0)
      started[t] = pthread_create(&ids[t], NULL, timed_pairs, &runs[t]) == 0;
  }
  timed_pairs(&runs[0]);
  /* Thread 0 failed before raising it: the others stop too. */
  atomic_store_explicit(&stop, true, memory_order_relaxed);
  bool ok = runs[0].ok;
  uint64_t pairs = runs[0].pairs, cpu = runs[0].cpu_ns;
  for (int t = 1; t < threads; t++) {
    if (started[t])
      pthread_join(ids[t], NULL);
    ok = ok && started[t] && runs[t].ok;
    pairs += runs[t].pairs;
    cpu += runs[t].cpu_ns;
  }
  pthread_barrier_destroy(&start);
  if (!ok || !pairs)
    return false;
  int cpus = usable_cpus(), cores = threads < cpus ? threads : cpus;
  out->wall = (double)runs[0].window * cores / (double)pairs;
  out->cpu = (double)cpu / (double)pairs;
  return true;
}

/* Medians of `subjects` (those with available[subject]) at one size and
 * thread count, their repetitions interleaved so that a machine that speeds
 * up or slows down during the run treats them alike; false on a failure. */
static bool interleaved_medians(alloc_bench_t *b, const bool *available,
                                size_t size, int threads,
                                pair_time_t medians[SUBJECT_COUNT]) {
  size_t reps = bench_reps(b->ctx, FULL_REPS);
  double wall[SUBJECT_COUNT][FULL_REPS], cpu[SUBJECT_COUNT][FULL_REPS];
  for (size_t r = 0; r < reps; r++)
    for (subject_t subject = 0; subject < SUBJECT_COUNT; subject++) {
      pair_time_t sample;
      if (!available[subject])
        continue;
      if (!measure(b, subject, size, threads, &sample))
        return false;
      wall[subject][r] = sample.wall;
      cpu[subject][r] = sample.cpu;
    }
  for (subject_t subject = 0; subject < SUBJECT_COUNT; subject++)
    medians[subject] = available[subject]
                           ? (pair_time_t){cli_median(wall[subject], reps),
                                           cli_median(cpu[subject], reps)}
                           : (pair_time_t){0, 0};
  return true;
}

/* ---- jemalloc, in a child process --------------------------------------- */

/* Child side: times glibc-named malloc/free (jemalloc's, under LD_PRELOAD)
 * and the caching allocator, interleaved, and writes "size threads
 * jemalloc_wall backplane_wall jemalloc_cpu backplane_cpu" lines (ns per
 * pair) to `fd`. */
static bp_status_t run_as_child(bench_ctx_t *ctx, int fd) {
  FILE *out = fdopen(fd, "w");
  if (!out)
    return BP_ERR_INTERNAL;
  if (!dlsym(RTLD_DEFAULT, "mallocx")) {
    fputs("no-jemalloc\n", out); /* LD_PRELOAD did not take */
    fclose(out);
    return BP_OK;
  }
  alloc_bench_t b = {.ctx = ctx};
  cli_warm_up_cpu(WARM_UP_MS);
  const bool timed[SUBJECT_COUNT] = {[BACKPLANE] = true, [GLIBC] = true};
  for (size_t s = 0; s < SIZE_COUNT; s++)
    for (int threads = 1; threads <= MAX_THREADS; threads *= 2) {
      pair_time_t medians[SUBJECT_COUNT];
      if (interleaved_medians(&b, timed, sizes[s], threads, medians))
        fprintf(out, "%zu %d %.6f %.6f %.6f %.6f\n", sizes[s], threads,
                medians[GLIBC].wall, medians[BACKPLANE].wall,
                medians[GLIBC].cpu, medians[BACKPLANE].cpu);
    }
  fclose(out);
  return BP_OK;
}

/* jemalloc and the caching allocator timed side by side in the child. */
typedef struct jemalloc_pair {
  pair_time_t jemalloc, backplane; /* 0 when not measured */
} jemalloc_pair_t;

/* Parent side: fills pairs[s][threads - 1]; false if unavailable. */
static bool measure_jemalloc(bench_ctx_t *ctx,
                             jemalloc_pair_t pairs[SIZE_COUNT][MAX_THREADS]) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0)
    return false;
  char fd_setting[64], preload[] = "LD_PRELOAD=libjemalloc.so.2";
  snprintf(fd_setting, sizeof fd_setting, CHILD_ENV "=%d", pipe_fds[1]);
  extern char **environ;
  size_t env_count = 0;
  while (environ[env_count])
    env_count++;
  char **env = calloc(env_count + 3, sizeof *env);
  if (!env) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return false;
  }
  size_t e = 0;
  for (size_t i = 0; i < env_count; i++)
    if (strncmp(environ[i], "LD_PRELOAD=", 11) &&
        strncmp(environ[i], CHILD_ENV "=", sizeof CHILD_ENV))
      env[e++] = environ[i];
  env[e++] = preload;
  env[e++] = fd_setting;
  char *argv[] = {"backplane",
                  "bench",
                  "alloc",
                  "--plugin",
                  (char *)ctx->plugin_name,
                  ctx->quick ? "--quick" : NULL,
                  NULL};
  pid_t pid = fork();
  if (pid == 0) {
    close(pipe_fds[0]);
    int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0)
      dup2(null_fd, STDOUT_FILENO);
    execve("/proc/self/exe", argv, env);
    _exit(127);
  }
  free(env);
  close(pipe_fds[1]);
  bool ok = pid > 0;
  FILE *in = ok ? fdopen(pipe_fds[0], "r") : NULL;
  size_t found = 0;
  if (in) {
    size_t size;
    int threads;
    jemalloc_pair_t pair;
    while (fscanf(in, "%zu %d %lf %lf %lf %lf", &size, &threads,
                  &pair.jemalloc.wall, &pair.backplane.wall, &pair.jemalloc.cpu,
                  &pair.backplane.cpu) == 6)
      for (size_t s = 0; s < SIZE_COUNT; s++)
        if (sizes[s] == size && threads >= 1 && threads <= MAX_THREADS &&
            pair.jemalloc.wall > 0 && pair.backplane.wall > 0) {
          pairs[s][threads - 1] = pair;
          found++;
        }
    fclose(in);
  } else {
    close(pipe_fds[0]);
  }
  int wait_status = 0;
  if (pid > 0)
    waitpid(pid, &wait_status, 0);
  return found == SIZE_COUNT * THREAD_STEPS;
}

/* ---- records ------------------------------------------------------------ */

static void record(bench_ctx_t *ctx, const char *bench_case, double value,
                   const char *baseline, double baseline_value,
                   bench_budget_kind_t budget, double limit,
                   const char *budget_text) {
  bench_record(ctx, &(bench_result_t){
                        .bench_case = bench_case,
                        .value = value,
                        .unit = "ns",
                        .baseline = baseline,
                        .baseline_value = baseline_value,
                        .budget = budget,
                        .limit = limit,
                        .budget_text = budget_text,
                    });
}

/* Sizes up to this go through the per-thread caches with no stream
 * (src/alloc/thread_cache.h): their 2- and 4-thread rows are judged too. */
#define THREAD_CACHED_SIZE ((size_t)64 << 10)

/* The rows of one size and thread count. The jemalloc rows compare the two
 * as timed together in the child, and so does the scaling row (this thread
 * count's time per pair against the 1-thread one, both timed in the child);
 * the others, as timed here. With several threads, the judged rows are wall
 * time per core in use ("per core"), and CPU-time rows ("CPU per thread")
 * follow for information (see the top of the file). */
static void record_latency(alloc_bench_t *b, size_t s, int threads,
                           pair_time_t medians[SUBJECT_COUNT],
                           jemalloc_pair_t jemalloc, jemalloc_pair_t single) {
  char size_text[32], bench_case[96];
  cli_format_bytes(sizes[s], size_text, sizeof size_text);
  for (subject_t subject = BACKPLANE; subject <= BACKPLANE_STREAM; subject++) {
    if (medians[subject].wall == 0)
      continue;
    if (threads == 1)
      snprintf(bench_case, sizeof bench_case, "%s hit %s, 1 thread",
               subject_names[subject], size_text);
    else
      snprintf(bench_case, sizeof bench_case, "%s hit %s, %d threads, per core",
               subject_names[subject], size_text, threads);
    bool judged = subject == BACKPLANE &&
                  (threads == 1 || sizes[s] <= THREAD_CACHED_SIZE);
    double value = medians[subject].wall;
    record(b->ctx, bench_case, value, NULL, 0,
           judged ? BENCH_BUDGET_MAX_VALUE : BENCH_BUDGET_NONE, 50, "<= 50 ns");
    bool paired = jemalloc.jemalloc.wall > 0 && subject == BACKPLANE;
    if (paired)
      record(b->ctx, bench_case, jemalloc.backplane.wall, "jemalloc",
             jemalloc.jemalloc.wall,
             judged ? BENCH_BUDGET_MAX_VALUE : BENCH_BUDGET_NONE,
             2 * jemalloc.jemalloc.wall, "<= 2x jemalloc");
    /* Per-thread rate >= 0.8x the 1-thread rate: time per pair <= 1.25x. */
    if (threads > 1 && paired && single.backplane.wall > 0)
      record(b->ctx, bench_case, jemalloc.backplane.wall, "1 thread",
             single.backplane.wall,
             judged ? BENCH_BUDGET_MAX_VALUE : BENCH_BUDGET_NONE,
             1.25 * single.backplane.wall,
             ">= 0.8x the 1-thread rate per thread");
    for (subject_t base = GLIBC; base < SUBJECT_COUNT; base++)
      if (medians[base].wall > 0)
        record(b->ctx, bench_case, value, subject_names[base],
               medians[base].wall, BENCH_BUDGET_NONE, 0, NULL);
    if (threads > 1 && paired) {
      snprintf(bench_case, sizeof bench_case,
               "%s hit %s, %d threads, CPU per thread", subject_names[subject],
               size_text, threads);
      record(b->ctx, bench_case, jemalloc.backplane.cpu, "jemalloc",
             jemalloc.jemalloc.cpu, BENCH_BUDGET_NONE, 0, NULL);
      if (single.backplane.cpu > 0)
        record(b->ctx, bench_case, jemalloc.backplane.cpu, "1 thread",
               single.backplane.cpu, BENCH_BUDGET_NONE, 0, NULL);
    }
  }
}

/* ---- replay ------------------------------------------------------------- */

static int device_allocate(void *context, size_t size, void **out_ptr) {
  return (int)bp_device_malloc(context, size, out_ptr);
}
static int device_release(void *context, void *ptr) {
  return (int)bp_device_free(context, ptr);
}
static int host_allocate(void *context, size_t size, void **out_ptr) {
  (void)context;
  *out_ptr = malloc(size);
  return *out_ptr ? 0 : 1;
}
static int host_release(void *context, void *ptr) {
  (void)context;
  free(ptr);
  return 0;
}

/* Iterations per second of the replay on `target`; 0 on failure. */
static double replay_rate(const alloc_trace_t *trace, size_t iterations,
                          const alloc_trace_target_t *target) {
  void **slots = calloc(trace->slots, sizeof *slots);
  if (!slots)
    return 0;
  int failed = alloc_trace_run(trace, true, slots, target) ||
               alloc_trace_run(trace, false, slots, target); /* warm-up */
  uint64_t begin = cli_now_ns();
  for (size_t i = 0; i < iterations && !failed; i++)
    failed = alloc_trace_run(trace, false, slots, target);
  uint64_t elapsed = cli_now_ns() - begin;
  failed |= alloc_trace_release_all(trace, slots, target);
  free(slots);
  return failed ? 0
                : (double)iterations * 1e9 / (double)(elapsed ? elapsed : 1);
}

static bp_status_t replay_bench(bench_ctx_t *ctx) {
  alloc_trace_shape_t shape = {.layers = 4,
                               .batch = 4,
                               .sequence = 128,
                               .hidden = 256,
                               .heads = 4,
                               .vocabulary = 8000};
  alloc_trace_t trace;
  if (!alloc_trace_training(&shape, &trace))
    return bench_error(ctx, "building the replay trace", BP_ERR_OUT_OF_MEMORY);
  alloc_trace_target_t device = {ctx->device, device_allocate, device_release};
  alloc_trace_target_t host = {NULL, host_allocate, host_release};
  size_t iterations = ctx->quick ? 2 : REPLAY_ITERATIONS;
  bp_device_empty_cache(ctx->device);
  bp_device_reset_peak_memory_stats(ctx->device);
  double rate = replay_rate(&trace, iterations, &device);
  bp_memory_stats_t stats;
  bp_status_t status = bp_device_memory_stats(ctx->device, &stats);
  double host_rate = replay_rate(&trace, iterations, &host);
  char bench_case[96];
  snprintf(bench_case, sizeof bench_case, "replay %zu allocs/iteration",
           trace.count - trace.setup_count);
  alloc_trace_destroy(&trace);
  if (rate == 0 || status != BP_OK)
    return bench_error(ctx, "replaying the trace",
                       status != BP_OK ? status : BP_ERR_OUT_OF_MEMORY);
  bench_record(ctx,
               &(bench_result_t){.bench_case = bench_case,
                                 .value = rate,
                                 .unit = "it/s",
                                 .baseline = host_rate ? "glibc malloc" : NULL,
                                 .baseline_value = host_rate});
  bench_record(ctx, &(bench_result_t){
                        .bench_case = "replay peak reserved / peak allocated",
                        .value = (double)stats.reserved_bytes.peak /
                                 (double)(stats.allocated_bytes.peak
                                              ? stats.allocated_bytes.peak
                                              : 1),
                        .unit = "x"});
  return BP_OK;
}

bp_status_t bench_alloc(bench_ctx_t *ctx) {
  const char *child = getenv(CHILD_ENV);
  if (child)
    return run_as_child(ctx, atoi(child));
  alloc_bench_t b = {.ctx = ctx, .c_device = bp_device_c_handle(ctx->device)};
  void *mimalloc = dlopen("libmimalloc.so.2", RTLD_NOW | RTLD_LOCAL);
  if (mimalloc) {
    *(void **)&b.mi_malloc = dlsym(mimalloc, "mi_malloc");
    *(void **)&b.mi_free = dlsym(mimalloc, "mi_free");
  }
  jemalloc_pair_t jemalloc[SIZE_COUNT][MAX_THREADS];
  memset(jemalloc, 0, sizeof jemalloc);
  if (!measure_jemalloc(ctx, jemalloc))
    fprintf(stderr, "bench alloc: jemalloc baseline unavailable "
                    "(libjemalloc.so.2 not preloadable)\n");
  bp_status_t status = BP_OK;
  for (int t = 0; t < MAX_THREADS && status == BP_OK; t++)
    status = bp_stream_create(ctx->device, &b.streams[t]);
  if (status != BP_OK)
    bench_error(ctx, "bp_stream_create", status);
  cli_warm_up_cpu(WARM_UP_MS); /* as the child did: the same start for all */
  for (size_t s = 0; s < SIZE_COUNT && status == BP_OK; s++)
    for (int threads = 1; threads <= MAX_THREADS; threads *= 2) {
      bool available[SUBJECT_COUNT];
      for (subject_t subject = 0; subject < SUBJECT_COUNT; subject++)
        available[subject] =
            (subject != MIMALLOC || (b.mi_malloc && b.mi_free)) &&
            (subject != RAW || threads == 1);
      pair_time_t medians[SUBJECT_COUNT];
      if (!interleaved_medians(&b, available, sizes[s], threads, medians)) {
        status = bench_error(ctx, "allocating through the caching allocator",
                             BP_ERR_OUT_OF_MEMORY);
        break;
      }
      record_latency(&b, s, threads, medians, jemalloc[s][threads - 1],
                     jemalloc[s][0]);
    }
  for (int t = 0; t < MAX_THREADS; t++)
    bp_stream_destroy(b.streams[t]);
  if (mimalloc)
    dlclose(mimalloc);
  return status == BP_OK ? replay_bench(ctx) : status;
}
