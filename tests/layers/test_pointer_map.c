/* The trace layer's pointer map: values come back for every key through
 * growth, removal keeps every other key reachable (backward shift across
 * collisions and the wrap-around), and missing keys read 0. Checked against
 * a plain array of what was set, for dense addresses (spread by the hash)
 * and for keys that all hash to one slot (one long cluster). */
#include "base/pointer_map.h"

#include "support/runtime_fixture.h"

enum { KEYS = 3000 };

static char keys[KEYS]; /* their addresses are the keys: dense, so they
                         * collide and cluster */

static void check_against(const bp_pointer_map_t *map, const bool *present) {
  size_t count = 0;
  for (size_t i = 0; i < KEYS; i++) {
    uint64_t expected = present[i] ? 1000 + i : 0;
    if (bp_pointer_map_get(map, &keys[i]) != expected)
      fail_msg("key %zu: %llu, expected %llu", i,
               (unsigned long long)bp_pointer_map_get(map, &keys[i]),
               (unsigned long long)expected);
    count += present[i];
  }
  assert_int_equal(map->count, count);
}

static void test_set_get_remove_against_a_model(void **state) {
  (void)state;
  bp_pointer_map_t map = {0};
  static bool present[KEYS];
  for (size_t i = 0; i < KEYS; i++) {
    assert_true(bp_pointer_map_set(&map, &keys[i], 1000 + i));
    present[i] = true;
  }
  check_against(&map, present);
  /* Remove every third key, then re-set a few and remove absent ones. */
  for (size_t i = 0; i < KEYS; i += 3) {
    bp_pointer_map_remove(&map, &keys[i]);
    present[i] = false;
  }
  check_against(&map, present);
  for (size_t i = 0; i < KEYS; i += 9) {
    bp_pointer_map_remove(&map, &keys[i]); /* already gone: no effect */
    assert_true(bp_pointer_map_set(&map, &keys[i], 1000 + i));
    present[i] = true;
  }
  check_against(&map, present);
  /* Overwriting keeps the count. */
  assert_true(bp_pointer_map_set(&map, &keys[1], 1001));
  check_against(&map, present);
  bp_pointer_map_release(&map);
  assert_null(map.slots);
  assert_int_equal(bp_pointer_map_get(&map, &keys[1]), 0);
}

/* Keys differing only in their top byte: the multiplicative hash keeps only
 * bits 32.. of the product, which the top byte of a key never reaches, so
 * all of them start probing at the same slot. */
static void test_one_cluster_against_a_model(void **state) {
  (void)state;
  enum { CLUSTER = 255 };
  const void *key[CLUSTER];
  bool present[CLUSTER];
  bp_pointer_map_t map = {0};
  for (size_t i = 0; i < CLUSTER; i++) {
    key[i] = (const void *)((uintptr_t)(i + 1) << (8 * sizeof(uintptr_t) - 8));
    assert_true(bp_pointer_map_set(&map, key[i], 1000 + i));
    present[i] = true;
  }
  for (int round = 0; round < 3; round++) {
    for (size_t i = (size_t)round; i < CLUSTER; i += 4) {
      bp_pointer_map_remove(&map, key[i]);
      present[i] = false;
    }
    size_t count = 0;
    for (size_t i = 0; i < CLUSTER; i++) {
      uint64_t expected = present[i] ? 1000 + i : 0;
      if (bp_pointer_map_get(&map, key[i]) != expected)
        fail_msg("round %d key %zu: %llu, expected %llu", round, i,
                 (unsigned long long)bp_pointer_map_get(&map, key[i]),
                 (unsigned long long)expected);
      count += present[i];
    }
    assert_int_equal(map.count, count);
  }
  bp_pointer_map_release(&map);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_set_get_remove_against_a_model),
      cmocka_unit_test(test_one_cluster_against_a_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
