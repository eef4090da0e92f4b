/* The free tree (best fit) and the block map against brute force, under a
 * long random sequence of inserts and removals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "alloc/block_map.h"
#include "alloc/free_tree.h"

#define N 2000

static bp_block_t blocks[N];
static bool present[N];

static bp_block_t *brute_best_fit(size_t size) {
  bp_block_t *best = NULL;
  for (int i = 0; i < N; i++) {
    bp_block_t *b = &blocks[i];
    if (!present[i] || b->size < size)
      continue;
    if (!best || b->size < best->size ||
        (b->size == best->size && b->addr < best->addr))
      best = b;
  }
  return best;
}

static void test_free_tree_matches_brute_force(void **state) {
  (void)state;
  unsigned seed = 12345;
  for (int i = 0; i < N; i++) {
    blocks[i] = (bp_block_t){.addr = 0x100000 + (uintptr_t)i * 4096,
                             .size = (size_t)(rand_r(&seed) % 64 + 1) * 512};
    present[i] = false;
  }
  bp_free_tree_t tree = {0};
  size_t expected_count = 0;
  for (int step = 0; step < 20000; step++) {
    int i = rand_r(&seed) % N;
    if (present[i]) {
      bp_free_tree_remove(&tree, &blocks[i]);
      expected_count--;
    } else {
      bp_free_tree_insert(&tree, &blocks[i]);
      expected_count++;
    }
    present[i] = !present[i];
    assert_int_equal(tree.count, expected_count);
    size_t want = (size_t)(rand_r(&seed) % 66) * 512;
    assert_ptr_equal(bp_free_tree_best_fit(&tree, want), brute_best_fit(want));
  }
  bp_block_t *largest = bp_free_tree_largest(&tree);
  bp_block_t *expected = NULL;
  for (int i = 0; i < N; i++)
    if (present[i] &&
        (!expected || blocks[i].size > expected->size ||
         (blocks[i].size == expected->size && blocks[i].addr > expected->addr)))
      expected = &blocks[i];
  assert_ptr_equal(largest, expected);
}

static void test_block_map_matches_brute_force(void **state) {
  (void)state;
  unsigned seed = 777;
  for (int i = 0; i < N; i++) {
    /* Clustered addresses: long probe runs, wrap-around deletions. */
    blocks[i] = (bp_block_t){.addr = 0x7f0000000000 + (uintptr_t)i * 512};
    present[i] = false;
  }
  bp_block_map_t map = {0};
  for (int step = 0; step < 40000; step++) {
    int i = rand_r(&seed) % N;
    if (present[i]) {
      assert_ptr_equal(bp_block_map_remove(&map, blocks[i].addr), &blocks[i]);
    } else {
      assert_null(bp_block_map_find(&map, blocks[i].addr));
      assert_int_equal(bp_block_map_insert(&map, &blocks[i]), BP_OK);
    }
    present[i] = !present[i];
    int j = rand_r(&seed) % N;
    assert_ptr_equal(bp_block_map_find(&map, blocks[j].addr),
                     present[j] ? &blocks[j] : NULL);
  }
  size_t count = 0;
  for (int i = 0; i < N; i++) {
    count += present[i];
    assert_ptr_equal(bp_block_map_find(&map, blocks[i].addr),
                     present[i] ? &blocks[i] : NULL);
  }
  assert_int_equal(map.count, count);
  assert_null(bp_block_map_remove(&map, 0x1234));
  bp_block_map_destroy(&map);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_free_tree_matches_brute_force),
      cmocka_unit_test(test_block_map_matches_brute_force),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
