/* User ranges: a per-thread stack, and the closed ranges waiting for a trace
 * session (profiler/ranges.h). */
#include "profiler/ranges.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backplane/profiler.h"
#include "base/clock.h"

typedef struct open_range {
  char *name; /* NULL: not recorded (no session listened at push) */
  uint64_t start_ns;
} open_range_t;

/* A thread's open ranges, on the heap (libbackplane may be dlopen'ed,
 * where static TLS is scarce), freed when the thread ends. */
typedef struct range_stack {
  int depth;
  open_range_t open[BP_PROFILER_RANGE_DEPTH];
} range_stack_t;

static pthread_key_t stack_key;
static pthread_once_t stack_once = PTHREAD_ONCE_INIT;

static void free_stack(void *data) {
  range_stack_t *stack = data;
  for (int i = 0; i < stack->depth && i < BP_PROFILER_RANGE_DEPTH; i++)
    free(stack->open[i].name);
  free(stack);
}

static void make_key(void) {
  pthread_key_create(&stack_key, free_stack);
}

/* This thread's stack; NULL when out of memory (with `create`) or when it
 * has none yet (without). */
static range_stack_t *thread_stack(bool create) {
  pthread_once(&stack_once, make_key);
  range_stack_t *stack = pthread_getspecific(stack_key);
  if (!stack && create && (stack = calloc(1, sizeof *stack)) &&
      pthread_setspecific(stack_key, stack) != 0) {
    free(stack);
    stack = NULL;
  }
  return stack;
}

static atomic_int listeners;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bp_trace_record_t *closed; /* guarded by lock */
static size_t closed_count, closed_capacity;

void bp_profiler_ranges_listen(void) {
  atomic_fetch_add(&listeners, 1);
}

void bp_profiler_ranges_unlisten(void) {
  atomic_fetch_sub(&listeners, 1);
}

void bp_profiler_ranges_take(bp_trace_record_t **out_records,
                             size_t *out_count) {
  pthread_mutex_lock(&lock);
  *out_records = closed;
  *out_count = closed_count;
  closed = NULL;
  closed_count = closed_capacity = 0;
  pthread_mutex_unlock(&lock);
}

BP_API int bp_profiler_range_push(const char *name) {
  range_stack_t *stack = name ? thread_stack(true) : NULL;
  if (!stack)
    return -1;
  int level = stack->depth++;
  if (level >= BP_PROFILER_RANGE_DEPTH)
    return level;
  stack->open[level] = (open_range_t){
      .name = atomic_load_explicit(&listeners, memory_order_relaxed)
                  ? strdup(name)
                  : NULL,
      .start_ns = bp_clock_monotonic_ns()};
  return level;
}

/* Appends `record` to the closed ranges; false when out of memory. */
static bool keep(const bp_trace_record_t *record) {
  pthread_mutex_lock(&lock);
  bool ok = true;
  if (closed_count == closed_capacity) {
    size_t capacity = closed_capacity ? 2 * closed_capacity : 64;
    bp_trace_record_t *grown = realloc(closed, capacity * sizeof *grown);
    if (grown) {
      closed = grown;
      closed_capacity = capacity;
    } else {
      ok = false;
    }
  }
  if (ok)
    closed[closed_count++] = *record;
  pthread_mutex_unlock(&lock);
  return ok;
}

BP_API int bp_profiler_range_pop(void) {
  range_stack_t *stack = thread_stack(false);
  if (!stack || stack->depth == 0)
    return -1;
  int level = --stack->depth;
  if (level >= BP_PROFILER_RANGE_DEPTH || !stack->open[level].name)
    return level;
  bp_trace_record_t record = {.kind = BP_TRACE_RUNTIME,
                              .name = stack->open[level].name,
                              .category = strdup("range"),
                              .start_ns = stack->open[level].start_ns,
                              .end_ns = bp_clock_monotonic_ns(),
                              .device_id = -1,
                              .thread_id = (uint64_t)syscall(SYS_gettid)};
  stack->open[level].name = NULL;
  if (!record.category || !keep(&record)) {
    free(record.name);
    free(record.category);
  }
  return level;
}
