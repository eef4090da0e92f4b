/* The per-device bookkeeping: intrusive registry and allocation table. */
#include <stdlib.h>

#include "core/object_registry.h"
#include "support/runtime_fixture.h"

static void registry(void **state) {
  (void)state;
  bp_registry_t registry;
  bp_registry_node_t a, b, c;
  bp_registry_init(&registry);
  assert_null(bp_registry_first(&registry));
  bp_registry_insert(&registry, &a);
  bp_registry_insert(&registry, &b);
  bp_registry_insert(&registry, &c);
  assert_int_equal(registry.count, 3);
  bp_registry_remove(&registry, &b);
  assert_int_equal(registry.count, 2);
  bp_registry_node_t *first = bp_registry_first(&registry);
  assert_true(first == &a || first == &c);
  bp_registry_remove(&registry, &a);
  assert_ptr_equal(bp_registry_first(&registry), &c);
  bp_registry_remove(&registry, &c);
  assert_null(bp_registry_first(&registry));
  assert_int_equal(registry.count, 0);
}

static void allocation_table(void **state) {
  (void)state;
  enum { N = 5000 };
  bp_allocation_table_t table;
  bp_allocation_table_init(&table);
  size_t size = 0;
  assert_false(bp_allocation_table_remove(&table, (void *)0x10, &size));
  char *base = malloc(N);
  for (size_t i = 0; i < N; ++i)
    assert_int_equal(bp_allocation_table_insert(&table, base + i, i + 1),
                     BP_OK);
  assert_int_equal(table.sizes.count, N);
  assert_int_equal(table.bytes, (size_t)N * (N + 1) / 2);
  /* Remove the even ones, re-add half of them with new sizes. */
  for (size_t i = 0; i < N; i += 2) {
    assert_true(bp_allocation_table_remove(&table, base + i, &size));
    assert_int_equal(size, i + 1);
    assert_false(bp_allocation_table_remove(&table, base + i, &size));
  }
  for (size_t i = 0; i < N; i += 4)
    assert_int_equal(bp_allocation_table_insert(&table, base + i, 7), BP_OK);
  for (size_t i = 0; i < N; ++i) {
    int present = (i % 2 == 1) || (i % 4 == 0);
    size_t expected = (i % 2 == 1) ? i + 1 : 7;
    if (present) {
      assert_true(bp_allocation_table_remove(&table, base + i, &size));
      assert_int_equal(size, expected);
    } else {
      assert_false(bp_allocation_table_remove(&table, base + i, &size));
    }
  }
  assert_int_equal(table.sizes.count, 0);
  assert_int_equal(table.bytes, 0);
  void *ptr;
  assert_false(bp_allocation_table_any(&table, &ptr, &size));
  assert_int_equal(bp_allocation_table_insert(&table, base, 3), BP_OK);
  assert_true(bp_allocation_table_any(&table, &ptr, &size));
  assert_ptr_equal(ptr, base);
  assert_int_equal(size, 3);
  bp_allocation_table_release(&table);
  free(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(registry),
      cmocka_unit_test(allocation_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
