/* The op library's parallel-for (plugins/vcpu/ops/ref_pool.c, built into
 * this test): every index runs exactly once in contiguous chunks, work at or
 * below the grain runs inline on the caller, several callers at once all
 * finish (a busy pool makes a caller run its work itself), and a nested
 * call runs inline. The pool has 4 threads here (BACKPLANE_OPS_THREADS, set
 * before its first use), whatever the machine's cores. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ref_pool.h"

enum { THREADS = 4, MAX_N = 300007, MAX_CHUNKS = 64 };

typedef struct visits {
  atomic_int count[MAX_N];
  atomic_int calls;
  int64_t begins[MAX_CHUNKS], ends[MAX_CHUNKS];
  pthread_t caller;
  atomic_int off_caller; /* ranges run on another thread */
} visits_t;

static void visit(void *context, int64_t begin, int64_t end) {
  visits_t *v = context;
  int call = atomic_fetch_add(&v->calls, 1);
  if (call < MAX_CHUNKS) {
    v->begins[call] = begin;
    v->ends[call] = end;
  }
  if (!pthread_equal(pthread_self(), v->caller))
    atomic_fetch_add(&v->off_caller, 1);
  for (int64_t i = begin; i < end; i++)
    atomic_fetch_add_explicit(&v->count[i], 1, memory_order_relaxed);
}

static visits_t *run_visits(int64_t n, int64_t grain) {
  visits_t *v = calloc(1, sizeof *v);
  assert_non_null(v);
  v->caller = pthread_self();
  ref_parallel_for(n, grain, visit, v);
  return v;
}

static int compare_begins(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Every index of [0, n) exactly once, none beyond. */
static void assert_each_once(const visits_t *v, int64_t n) {
  for (int64_t i = 0; i < MAX_N; i++)
    assert_int_equal(atomic_load(&v->count[i]), i < n ? 1 : 0);
}

static void pool_has_the_threads_the_environment_names(void **state) {
  (void)state;
  assert_int_equal(ref_pool_threads(), THREADS);
}

static void work_at_or_below_the_grain_runs_inline(void **state) {
  (void)state;
  const int64_t sizes[] = {1, 2, 4095, 4096};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    visits_t *v = run_visits(sizes[s], 4096);
    assert_int_equal(atomic_load(&v->calls), 1);
    assert_int_equal(v->begins[0], 0);
    assert_int_equal(v->ends[0], sizes[s]);
    assert_int_equal(atomic_load(&v->off_caller), 0);
    assert_each_once(v, sizes[s]);
    free(v);
  }
}

static void nothing_runs_for_no_work(void **state) {
  (void)state;
  visits_t *v = run_visits(0, 1);
  assert_int_equal(atomic_load(&v->calls), 0);
  free(v);
  v = run_visits(-5, 1);
  assert_int_equal(atomic_load(&v->calls), 0);
  free(v);
}

/* Above the grain: chunks of length ceil(n / min(ceil(n / grain), 4 x
 * threads)) (the last shorter), together [0, n), each index once. */
static void work_above_the_grain_splits_into_contiguous_chunks(void **state) {
  (void)state;
  const struct {
    int64_t n, grain, chunks;
  } cases[] = {
      {4097, 4096, 2},    /* just above: two halves */
      {8193, 4096, 3},    /* an odd tail */
      {32769, 32768, 2},  /* PyTorch's grain */
      {MAX_N, 32768, 10}, /* ceil(300007 / 32768) */
      {MAX_N, 1000, 16},  /* capped at 4 x threads */
      {17, 1, 9},         /* capped: 16 chunks of 2 items cover it in 9 */
      {5, 1, 5},          /* one item a chunk */
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    visits_t *v = run_visits(cases[c].n, cases[c].grain);
    int calls = atomic_load(&v->calls);
    assert_int_equal(calls, cases[c].chunks);
    qsort(v->begins, (size_t)calls, sizeof *v->begins, compare_begins);
    int64_t chunk = (cases[c].n + calls - 1) / calls;
    for (int k = 0; k < calls; k++)
      assert_int_equal(v->begins[k], k * chunk);
    assert_each_once(v, cases[c].n);
    free(v);
  }
}

/* A parallel-for inside a chunk runs inline (the pool is the outer one's)
 * and still covers its range. */
typedef struct nested {
  atomic_int inner_calls;
  atomic_long inner_sum;
} nested_t;

static void inner(void *context, int64_t begin, int64_t end) {
  nested_t *t = context;
  atomic_fetch_add(&t->inner_calls, 1);
  for (int64_t i = begin; i < end; i++)
    atomic_fetch_add(&t->inner_sum, (long)i);
}

static void outer(void *context, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; i++)
    ref_parallel_for(1000, 10, inner, context);
}

static void a_nested_parallel_for_runs_inline(void **state) {
  (void)state;
  nested_t t = {0};
  ref_parallel_for(8, 1, outer, &t);
  assert_int_equal(atomic_load(&t.inner_calls), 8);
  assert_int_equal(atomic_load(&t.inner_sum), 8L * (999L * 1000L / 2));
}

/* Caller A's first chunk blocks until caller B's whole parallel-for has
 * returned: B must not wait for the pool A holds. */
typedef struct busy {
  atomic_int b_done;
  atomic_int a_blocked;
  visits_t *b;
} busy_t;

static void block_until_b_is_done(void *context, int64_t begin, int64_t end) {
  busy_t *t = context;
  (void)end;
  if (begin == 0) {
    atomic_store(&t->a_blocked, 1);
    while (!atomic_load(&t->b_done))
      sched_yield();
  }
}

static void *caller_a(void *context) {
  ref_parallel_for(1 << 16, 1 << 10, block_until_b_is_done, context);
  return NULL;
}

static void a_caller_finds_a_busy_pool_and_runs_its_work_itself(void **state) {
  (void)state;
  busy_t t = {0};
  pthread_t a;
  assert_int_equal(pthread_create(&a, NULL, caller_a, &t), 0);
  while (!atomic_load(&t.a_blocked))
    sched_yield();
  t.b = run_visits(100000, 1000);
  atomic_store(&t.b_done, 1);
  assert_int_equal(pthread_join(a, NULL), 0);
  assert_int_equal(atomic_load(&t.b->calls), 1); /* inline: the pool is A's */
  assert_int_equal(atomic_load(&t.b->off_caller), 0);
  assert_each_once(t.b, 100000);
  free(t.b);
}

/* Several callers (as several vcpu streams) at once, many jobs each. */
enum { CALLERS = 4, JOBS = 200, SUM_N = 50000 };

static void add_range(void *context, int64_t begin, int64_t end) {
  int64_t sum = 0;
  for (int64_t i = begin; i < end; i++)
    sum += i;
  atomic_fetch_add((atomic_llong *)context, (long long)sum);
}

static void *sum_many(void *context) {
  int *wrong = context;
  for (int j = 0; j < JOBS; j++) {
    atomic_llong sum = 0;
    ref_parallel_for(SUM_N + j, 1 + j * 97, add_range, &sum);
    long long n = SUM_N + j;
    if (atomic_load(&sum) != n * (n - 1) / 2)
      (*wrong)++;
  }
  return NULL;
}

static void concurrent_callers_all_get_their_whole_range(void **state) {
  (void)state;
  pthread_t callers[CALLERS];
  int wrong[CALLERS] = {0};
  for (int k = 0; k < CALLERS; k++)
    assert_int_equal(pthread_create(&callers[k], NULL, sum_many, &wrong[k]), 0);
  for (int k = 0; k < CALLERS; k++) {
    assert_int_equal(pthread_join(callers[k], NULL), 0);
    assert_int_equal(wrong[k], 0);
  }
}

int main(void) {
  setenv("BACKPLANE_OPS_THREADS", "4", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pool_has_the_threads_the_environment_names),
      cmocka_unit_test(work_at_or_below_the_grain_runs_inline),
      cmocka_unit_test(nothing_runs_for_no_work),
      cmocka_unit_test(work_above_the_grain_splits_into_contiguous_chunks),
      cmocka_unit_test(a_nested_parallel_for_runs_inline),
      cmocka_unit_test(a_caller_finds_a_busy_pool_and_runs_its_work_itself),
      cmocka_unit_test(concurrent_callers_all_get_their_whole_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
