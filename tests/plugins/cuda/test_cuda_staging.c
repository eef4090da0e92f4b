/* The cuda plugin's staging pool without a GPU (malloc standing in for
 * pinned memory): it never holds more than its bound, never waits when
 * full, reuses the blocks given back, delivers a device-to-host chain into
 * its destinations in one call, frees every block at destroy, those still
 * out included, and is shared by threads (ThreadSanitizer, label
 * concurrency). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "staging.h"

enum { BLOCK = 64, BLOCKS = 3 };

static atomic_size_t g_live; /* blocks allocated and not yet released */
static atomic_size_t g_allocations;
static int g_refuse; /* allocate fails while set */

static void *allocate(size_t size) {
  assert_int_equal(size, BLOCK);
  if (g_refuse)
    return NULL;
  g_live++;
  g_allocations++;
  return malloc(size);
}

static void release(void *memory) {
  assert_true(g_live > 0);
  g_live--;
  free(memory);
}

static int reset(void **state) {
  (void)state;
  g_live = g_allocations = 0;
  g_refuse = 0;
  return 0;
}

static void full_pool_answers_null_without_waiting(void **state) {
  (void)state;
  cu_staging_pool_t pool =
      CU_STAGING_POOL_INIT(BLOCK, BLOCKS, allocate, release);
  cu_staging_block_t *taken[BLOCKS];
  for (int i = 0; i < BLOCKS; ++i) {
    taken[i] = cu_staging_acquire(&pool);
    assert_non_null(taken[i]);
    assert_non_null(taken[i]->memory);
    assert_null(taken[i]->next);
    assert_null(taken[i]->dst);
  }
  assert_null(cu_staging_acquire(&pool));
  assert_int_equal(g_live, BLOCKS);
  cu_staging_give_back(taken[1]);
  cu_staging_block_t *again = cu_staging_acquire(&pool);
  assert_ptr_equal(again, taken[1]); /* reused, not allocated */
  assert_int_equal(g_allocations, BLOCKS);
  /* Destroy frees the blocks still out too. */
  cu_staging_pool_destroy(&pool);
  assert_int_equal(g_live, 0);
}

static void failed_allocation_frees_its_place(void **state) {
  (void)state;
  cu_staging_pool_t pool = CU_STAGING_POOL_INIT(BLOCK, 1, allocate, release);
  g_refuse = 1;
  assert_null(cu_staging_acquire(&pool));
  g_refuse = 0;
  cu_staging_block_t *block = cu_staging_acquire(&pool);
  assert_non_null(block);
  assert_null(cu_staging_acquire(&pool));
  cu_staging_pool_destroy(&pool);
  assert_int_equal(g_live, 0);
}

static void deliver_copies_each_block_and_returns_the_chain(void **state) {
  (void)state;
  cu_staging_pool_t pool =
      CU_STAGING_POOL_INIT(BLOCK, BLOCKS, allocate, release);
  unsigned char destination[2 * BLOCK + 5];
  memset(destination, 0xee, sizeof destination);
  cu_staging_block_t *first = cu_staging_acquire(&pool);
  cu_staging_block_t *second = cu_staging_acquire(&pool);
  cu_staging_block_t *h2d = cu_staging_acquire(&pool); /* no dst */
  assert_non_null(first);
  assert_non_null(second);
  assert_non_null(h2d);
  memset(first->memory, 0x11, BLOCK);
  memset(second->memory, 0x22, BLOCK);
  memset(h2d->memory, 0x33, BLOCK);
  first->dst = destination;
  first->size = BLOCK;
  second->dst = destination + BLOCK;
  second->size = 5;
  h2d->size = BLOCK;
  first->next = second;
  second->next = h2d;
  cu_staging_deliver(first);
  for (size_t i = 0; i < BLOCK; ++i)
    assert_int_equal(destination[i], 0x11);
  for (size_t i = BLOCK; i < BLOCK + 5; ++i)
    assert_int_equal(destination[i], 0x22);
  for (size_t i = BLOCK + 5; i < sizeof destination; ++i)
    assert_int_equal(destination[i], 0xee);
  /* All three are idle again: three acquires, no new allocation. */
  for (int i = 0; i < BLOCKS; ++i) {
    cu_staging_block_t *block = cu_staging_acquire(&pool);
    assert_non_null(block);
    assert_null(block->dst);
    assert_int_equal(block->size, 0);
  }
  assert_int_equal(g_allocations, BLOCKS);
  cu_staging_pool_destroy(&pool);
  assert_int_equal(g_live, 0);
}

enum { THREADS = 4, ROUNDS = 2000 };

/* One enqueuing thread: stages a byte into up to two blocks and delivers
 * them, as a stream's host function would, on its own destination. */
static void *stage_and_deliver(void *arg) {
  cu_staging_pool_t *pool = arg;
  unsigned char destination[2];
  int failures = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    cu_staging_block_t *first = cu_staging_acquire(pool);
    if (!first)
      continue; /* all in use: the caller copies directly */
    cu_staging_block_t *second = cu_staging_acquire(pool);
    unsigned char value = (unsigned char)round;
    memset(destination, 0, sizeof destination);
    *(unsigned char *)first->memory = value;
    first->dst = &destination[0];
    first->size = 1;
    if (second) {
      *(unsigned char *)second->memory = (unsigned char)(value + 1);
      second->dst = &destination[1];
      second->size = 1;
      first->next = second;
    }
    cu_staging_deliver(first);
    failures += destination[0] != value ||
                (second && destination[1] != (unsigned char)(value + 1));
  }
  return (void *)(intptr_t)failures;
}

static void threads_share_the_pool_within_its_bound(void **state) {
  (void)state;
  cu_staging_pool_t pool =
      CU_STAGING_POOL_INIT(BLOCK, BLOCKS, allocate, release);
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; ++i)
    assert_int_equal(
        pthread_create(&threads[i], NULL, stage_and_deliver, &pool), 0);
  for (int i = 0; i < THREADS; ++i) {
    void *failures = NULL;
    assert_int_equal(pthread_join(threads[i], &failures), 0);
    assert_int_equal((intptr_t)failures, 0);
  }
  assert_true(g_allocations <= BLOCKS);
  cu_staging_pool_destroy(&pool);
  assert_int_equal(g_live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(full_pool_answers_null_without_waiting, reset),
      cmocka_unit_test_setup(failed_allocation_frees_its_place, reset),
      cmocka_unit_test_setup(deliver_copies_each_block_and_returns_the_chain,
                             reset),
      cmocka_unit_test_setup(threads_share_the_pool_within_its_bound, reset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
