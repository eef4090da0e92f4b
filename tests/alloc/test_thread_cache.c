/* Per-thread caches of small no-stream blocks (src/alloc/thread_cache.h):
 * given back at thread exit, by empty_cache and before the out-of-memory
 * retry, whichever thread owns them; a block sitting in a cache cannot be
 * freed again; many threads allocating, freeing and freeing each other's
 * blocks leave statistics that match a model. Worker threads count what
 * goes wrong; the main thread asserts. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "alloc/alloc_internal.h"
#include "alloc/alloc_test_calls.h"
#include "alloc/fake_backend.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static atomic_int failures;

static void *must_alloc(bp_caching_allocator_t *a, size_t size) {
  void *p = NULL;
  if (bp_caching_allocator_malloc(a, size, NULL, &p) != BP_OK || !p) {
    fprintf(stderr, "malloc of %zu: %s\n", size, bp_last_error());
    atomic_fetch_add(&failures, 1);
  }
  return p;
}

static void must_free(bp_caching_allocator_t *a, void *p) {
  if (bp_caching_allocator_free(a, p) != BP_OK) {
    fprintf(stderr, "free of %p: %s\n", p, bp_last_error());
    atomic_fetch_add(&failures, 1);
  }
}

/* empty_cache gives back every thread's cache and releases `bytes`. */
static bp_memory_stats_t expect_emptied(bp_caching_allocator_t *a,
                                        size_t bytes) {
  size_t released = 0;
  assert_int_equal(bp_caching_allocator_empty_cache(a, &released), BP_OK);
  assert_int_equal(released, bytes);
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.thread_cached_blocks, 0);
  assert_int_equal(s.thread_cached_bytes, 0);
  return s;
}

/* A thread that fills its cache with `count` blocks of `size`, optionally
 * keeps one more block live (handed back in `kept`), then waits at the
 * barrier (if any) twice: the main thread works in between. */
typedef struct filler {
  bp_caching_allocator_t *a;
  size_t size, count;
  bool keep;
  void *kept;
  pthread_barrier_t *barrier;
} filler_t;

static void *fill_cache(void *arg) {
  filler_t *f = arg;
  void *blocks[64];
  for (size_t round = 0; round < 3; round++) {
    for (size_t i = 0; i < f->count; i++)
      blocks[i] = must_alloc(f->a, f->size);
    for (size_t i = 0; i < f->count; i++)
      must_free(f->a, blocks[i]);
  }
  if (f->keep)
    f->kept = must_alloc(f->a, f->size); /* from the cache */
  if (f->barrier) {
    pthread_barrier_wait(f->barrier);
    pthread_barrier_wait(f->barrier);
  }
  return NULL;
}

static void run_filler(filler_t *f, pthread_t *thread) {
  assert_int_equal(pthread_create(thread, NULL, fill_cache, f), 0);
}

static void test_drained_at_thread_exit(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  atomic_store(&failures, 0);
  filler_t f = {.a = a, .size = 1000, .count = 8, .keep = true};
  pthread_t t;
  run_filler(&f, &t);
  pthread_join(t, NULL);
  assert_int_equal(atomic_load(&failures), 0);
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.thread_cached_blocks, 0);
  assert_int_equal(s.thread_cached_bytes, 0);
  /* The block the thread kept is an ordinary live block now. */
  assert_int_equal(s.allocated_bytes.current, 1 * KiB);
  assert_int_equal(s.requested_bytes.current, 1000);
  size_t size = 0;
  assert_int_equal(bp_caching_allocator_block_size(a, f.kept, &size), BP_OK);
  assert_int_equal(size, 1000);
  expect_free(a, f.kept);
  assert_int_equal(bp_caching_allocator_free(a, f.kept),
                   BP_ERR_INVALID_ARGUMENT);
  s = current_stats(a);
  assert_int_equal(s.allocated_bytes.current, 0);
  assert_int_equal(s.active_bytes.current, 0);
  assert_int_equal(s.requested_bytes.current, 0);
  assert_int_equal(s.allocated_bytes.peak, 8 * KiB);
  /* Every block is back in its chunk: it is idle and goes to the device. */
  size_t released = 0;
  assert_int_equal(bp_caching_allocator_empty_cache(a, &released), BP_OK);
  assert_int_equal(released, 2 * MiB);
  assert_int_equal(current_stats(a).reserved_bytes.current, 0);
  bp_caching_allocator_destroy(a);
}

static void test_empty_cache_drains_other_threads(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  atomic_store(&failures, 0);
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, 2);
  filler_t f = {.a = a, .size = 512, .count = 4, .barrier = &barrier};
  pthread_t t;
  run_filler(&f, &t);
  pthread_barrier_wait(&barrier); /* the thread lives, its cache full */
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.thread_cached_blocks, 4);
  assert_int_equal(s.thread_cached_bytes, 4 * 512);
  assert_int_equal(s.allocated_bytes.current, 0);
  s = expect_emptied(a, 2 * MiB);
  assert_int_equal(s.reserved_bytes.current, 0);
  pthread_barrier_wait(&barrier);
  pthread_join(t, NULL);
  assert_int_equal(atomic_load(&failures), 0);
  pthread_barrier_destroy(&barrier);
  bp_caching_allocator_destroy(a);
}

/* A 2 MiB device: another thread's cache holds the whole small chunk, in
 * 64 KiB blocks; a 1.5 MiB request then fits only once that cache is
 * drained and the chunk goes back to the device. */
static void test_out_of_memory_retry_uses_other_caches(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 2 * MiB, true);
  atomic_store(&failures, 0);
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, 2);
  filler_t f = {.a = a, .size = 64 * KiB, .count = 16, .barrier = &barrier};
  pthread_t t;
  run_filler(&f, &t);
  pthread_barrier_wait(&barrier);
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.thread_cached_bytes, 1 * MiB);
  assert_int_equal(s.reserved_bytes.current, 2 * MiB);
  void *big = expect_alloc(a, 3 * MiB / 2, NULL);
  s = current_stats(a);
  assert_int_equal(s.num_alloc_retries, 1);
  assert_int_equal(s.num_ooms, 0);
  assert_int_equal(s.thread_cached_blocks, 0);
  expect_free(a, big);
  pthread_barrier_wait(&barrier);
  pthread_join(t, NULL);
  assert_int_equal(atomic_load(&failures), 0);
  pthread_barrier_destroy(&barrier);
  bp_caching_allocator_destroy(a);
}

typedef struct double_freer {
  bp_caching_allocator_t *a;
  void *ptr;
  bp_status_t status;
} double_freer_t;

static void *free_again(void *arg) {
  double_freer_t *x = arg;
  x->status = bp_caching_allocator_free(x->a, x->ptr);
  return NULL;
}

static void test_double_free_of_cached_block_refused(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  void *p = expect_alloc(a, 512, NULL);
  expect_free(a, p); /* lent to this thread's cache */
  assert_int_equal(current_stats(a).thread_cached_blocks, 1);
  /* Again by the owner (its cache), then by another thread (the pool). */
  assert_int_equal(bp_caching_allocator_free(a, p), BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "not a live allocation"));
  double_freer_t x = {.a = a, .ptr = p};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, free_again, &x), 0);
  pthread_join(t, NULL);
  assert_int_equal(x.status, BP_ERR_INVALID_ARGUMENT);
  size_t size;
  assert_int_equal(bp_caching_allocator_block_size(a, p, &size),
                   BP_ERR_INVALID_ARGUMENT);
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.thread_cached_blocks, 1);
  assert_int_equal(s.allocated_bytes.current, 0);
  /* Nothing was disturbed: the block comes back once. */
  void *q = expect_alloc(a, 512, NULL);
  assert_ptr_equal(q, p);
  assert_int_equal(current_stats(a).thread_cached_blocks, 0);
  expect_free(a, q);
  bp_caching_allocator_destroy(a);
}

/* Every statistic keeps current == allocated - freed. */
static void expect_balanced(const bp_memory_stat_t *stat) {
  assert_int_equal(stat->current, stat->allocated - stat->freed);
}

static void expect_split_stats(bp_caching_allocator_t *a, uint64_t allocated,
                               uint64_t requested) {
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.allocated_bytes.current, allocated);
  assert_int_equal(s.active_bytes.current, allocated);
  assert_int_equal(s.requested_bytes.current, requested);
  /* One 2 MiB chunk, split by the 1 KiB block: all but it is free. */
  assert_int_equal(s.reserved_bytes.current, 2 * MiB);
  assert_int_equal(s.inactive_split_bytes.current, 2 * MiB - allocated);
  expect_balanced(&s.allocated_bytes);
  expect_balanced(&s.active_bytes);
  expect_balanced(&s.requested_bytes);
  expect_balanced(&s.inactive_split_bytes);
}

/* Hits move a block between handed out and free in the cache: allocated,
 * active, requested and inactive split bytes follow, cumulative counts
 * included, and so do peaks across a reset (which outdates the cache's
 * rooms: the next call goes through the pool). */
static void test_hits_keep_every_statistic_exact(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  void *p = expect_alloc(a, 1000, NULL);
  expect_split_stats(a, 1 * KiB, 1000);
  expect_free(a, p); /* lent to this thread's cache */
  assert_int_equal(current_stats(a).thread_cached_blocks, 1);
  expect_split_stats(a, 0, 0);
  enum { ROUNDS = 200 };
  for (int i = 0; i < ROUNDS; i++) {
    void *q = expect_alloc(a, 700, NULL); /* also 1 KiB once rounded */
    assert_ptr_equal(q, p);
    expect_split_stats(a, 1 * KiB, 700);
    expect_free(a, q);
    expect_split_stats(a, 0, 0);
  }
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.allocated_bytes.allocated, (ROUNDS + 1) * KiB);
  assert_int_equal(s.requested_bytes.allocated, 1000 + ROUNDS * 700);
  assert_int_equal(s.allocated_bytes.peak, 1 * KiB);
  assert_int_equal(s.requested_bytes.peak, 1000);
  assert_int_equal(s.inactive_split_bytes.peak, 2 * MiB);
  bp_caching_allocator_reset_peaks(a);
  void *q = expect_alloc(a, 600, NULL);
  assert_ptr_equal(q, p);
  expect_split_stats(a, 1 * KiB, 600);
  s = current_stats(a);
  assert_int_equal(s.allocated_bytes.peak, 1 * KiB);
  assert_int_equal(s.requested_bytes.peak, 600);
  expect_free(a, q);
  assert_int_equal(current_stats(a).thread_cached_blocks, 1);
  expect_split_stats(a, 0, 0);
  s = expect_emptied(a, 2 * MiB);
  assert_int_equal(s.inactive_split_bytes.current, 0);
  expect_balanced(&s.inactive_split_bytes);
  bp_caching_allocator_destroy(a);
}

/* Many threads: each allocates and frees its own blocks and frees blocks
 * other threads left in a shared mailbox; the model counts every byte
 * handed out and given back. */
enum { THREADS = 4, STEPS = 3000, SLOTS = 8, MAILBOX = 16 };

typedef struct shared {
  bp_caching_allocator_t *a;
  pthread_mutex_t mailbox_mu;
  void *mailbox[MAILBOX];
  size_t mailbox_size[MAILBOX];
  _Atomic uint64_t allocated, freed, requested_in, requested_out;
  pthread_barrier_t barrier;
} shared_t;

typedef struct worker {
  shared_t *sh;
  uint32_t seed;
} worker_t;

static size_t rounded(size_t size) {
  return (size + 511) / 512 * 512;
}

static void count_free(shared_t *sh, size_t size) {
  atomic_fetch_add(&sh->freed, rounded(size));
  atomic_fetch_add(&sh->requested_out, size);
}

static void *work(void *arg) {
  worker_t *w = arg;
  shared_t *sh = w->sh;
  void *ptr[SLOTS] = {0};
  size_t req[SLOTS] = {0};
  static const size_t sizes[] = {512, 100, 1 * KiB, 4000, 64 * KiB, 200 * KiB};
  for (int phase = 0; phase < 2; phase++) {
    for (int step = 0; step < STEPS; step++) {
      w->seed = w->seed * 1103515245u + 12345u;
      uint32_t r = w->seed >> 8;
      int slot = (int)(r % SLOTS);
      if (!ptr[slot]) {
        size_t size = sizes[(r >> 4) % 6];
        ptr[slot] = must_alloc(sh->a, size);
        req[slot] = size;
        atomic_fetch_add(&sh->allocated, rounded(size));
        atomic_fetch_add(&sh->requested_in, size);
      } else if ((r >> 12) % 4 == 0) { /* to the mailbox, for anyone */
        int box = (int)((r >> 16) % MAILBOX);
        pthread_mutex_lock(&sh->mailbox_mu);
        bool empty = !sh->mailbox[box];
        if (empty) {
          sh->mailbox[box] = ptr[slot];
          sh->mailbox_size[box] = req[slot];
        }
        pthread_mutex_unlock(&sh->mailbox_mu);
        if (!empty) {
          count_free(sh, req[slot]);
          must_free(sh->a, ptr[slot]);
        }
        ptr[slot] = NULL;
      } else {
        count_free(sh, req[slot]);
        must_free(sh->a, ptr[slot]);
        ptr[slot] = NULL;
      }
      if ((r >> 20) % 8 == 0) { /* someone else's block, perhaps */
        int box = (int)((r >> 3) % MAILBOX);
        pthread_mutex_lock(&sh->mailbox_mu);
        void *other = sh->mailbox[box];
        size_t other_size = sh->mailbox_size[box];
        sh->mailbox[box] = NULL;
        pthread_mutex_unlock(&sh->mailbox_mu);
        if (other) {
          count_free(sh, other_size);
          must_free(sh->a, other);
        }
      }
    }
    pthread_barrier_wait(&sh->barrier); /* quiescent: main checks */
    pthread_barrier_wait(&sh->barrier);
  }
  for (int slot = 0; slot < SLOTS; slot++)
    if (ptr[slot]) {
      count_free(sh, req[slot]);
      must_free(sh->a, ptr[slot]);
    }
  return NULL;
}

static void check_model(shared_t *sh) {
  bp_memory_stats_t s = current_stats(sh->a);
  uint64_t allocated = atomic_load(&sh->allocated);
  uint64_t freed = atomic_load(&sh->freed);
  uint64_t live_requested =
      atomic_load(&sh->requested_in) - atomic_load(&sh->requested_out);
  assert_int_equal(s.allocated_bytes.allocated, allocated);
  assert_int_equal(s.allocated_bytes.freed, freed);
  assert_int_equal(s.allocated_bytes.current, allocated - freed);
  assert_int_equal(s.active_bytes.current, allocated - freed);
  assert_int_equal(s.requested_bytes.current, live_requested);
  assert_true(s.allocated_bytes.peak >= s.allocated_bytes.current);
  assert_true(s.thread_cached_bytes <= THREADS * MiB);
}

static void test_many_threads_match_the_model(void **state) {
  (void)state;
  fake_device_t d;
  shared_t sh;
  memset(&sh, 0, sizeof sh);
  sh.a = expect_allocator(&d, 1024 * MiB, true);
  atomic_store(&failures, 0);
  pthread_barrier_init(&sh.barrier, NULL, THREADS + 1);
  pthread_mutex_init(&sh.mailbox_mu, NULL);
  worker_t w[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker_t){.sh = &sh, .seed = 7u * (uint32_t)i + 1u};
    assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
  }
  for (int phase = 0; phase < 2; phase++) {
    pthread_barrier_wait(&sh.barrier);
    check_model(&sh);
    if (phase == 0) { /* drained while they live, they go on */
      assert_int_equal(bp_caching_allocator_empty_cache(sh.a, NULL), BP_OK);
      assert_int_equal(current_stats(sh.a).thread_cached_blocks, 0);
      check_model(&sh);
    }
    pthread_barrier_wait(&sh.barrier);
  }
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  /* Every worker exited: their caches went back to the pool. */
  assert_int_equal(current_stats(sh.a).thread_cached_blocks, 0);
  for (int box = 0; box < MAILBOX; box++) {
    void *left = sh.mailbox[box];
    if (left) {
      count_free(&sh, sh.mailbox_size[box]);
      expect_free(sh.a, left);
    }
  }
  assert_int_equal(atomic_load(&failures), 0);
  check_model(&sh);
  bp_memory_stats_t s = current_stats(sh.a);
  assert_int_equal(s.allocated_bytes.current, 0);
  assert_int_equal(s.requested_bytes.current, 0);
  pthread_barrier_destroy(&sh.barrier);
  pthread_mutex_destroy(&sh.mailbox_mu);
  bp_caching_allocator_destroy(sh.a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_drained_at_thread_exit),
      cmocka_unit_test(test_empty_cache_drains_other_threads),
      cmocka_unit_test(test_out_of_memory_retry_uses_other_caches),
      cmocka_unit_test(test_double_free_of_cached_block_refused),
      cmocka_unit_test(test_hits_keep_every_statistic_exact),
      cmocka_unit_test(test_many_threads_match_the_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
