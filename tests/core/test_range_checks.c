/* The framework face's bounds check (on by default, no layer): bp_copy and
 * bp_memset refuse a device range that runs past the end of the allocation
 * it starts in, or that touches a block freed but still cached by the
 * allocator, or that lies in memory the allocator gave back to the plugin,
 * with BP_ERR_INVALID_ARGUMENT naming the call, the pointer and the block;
 * ranges inside an allocation and pointers the allocator did not
 * hand out pass; skip_range_checks turns the check off. */
#include <stdio.h>
#include <string.h>

#include "support/runtime_fixture.h"

static int setup(void **state) {
  return fixture_open_two_devices(state, BP_VCPU_PLUGIN);
}

static char expected_ptr[32];
#define assert_names(call, ptr)                                                \
  do {                                                                         \
    assert_error_mentions(call);                                               \
    snprintf(expected_ptr, sizeof expected_ptr, "%p", (void *)(ptr));          \
    assert_error_mentions(expected_ptr);                                       \
  } while (0)

static void test_past_the_end_is_refused(void **state) {
  fixture_t *f = *state;
  void *block = NULL, *next = NULL;
  assert_int_equal(bp_device_malloc(f->dev0, 4096, &block), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev0, 4096, &next), BP_OK);
  static unsigned char host[8192];
  assert_int_equal(bp_memset(f->dev0, block, 1, 4097, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_names("bp_memset", block);
  assert_error_mentions("past the end of block");
  assert_int_equal(bp_copy(f->dev0, block, NULL, host, 8192, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_names("bp_copy", block);
  assert_int_equal(
      bp_copy(NULL, host, f->dev0, (char *)block + 4000, 200, NULL),
      BP_ERR_INVALID_ARGUMENT);
  assert_names("bp_copy: source", (char *)block + 4000);
  assert_error_mentions("past the end");
  assert_int_equal(bp_copy(f->dev1, NULL, f->dev0, block, 0, NULL), BP_OK);
  /* Inside: whole, interior, last byte. */
  assert_int_equal(bp_memset(f->dev0, block, 1, 4096, NULL), BP_OK);
  assert_int_equal(bp_memset(f->dev0, (char *)block + 100, 1, 3996, NULL),
                   BP_OK);
  assert_int_equal(bp_copy(NULL, host, f->dev0, (char *)block + 4095, 1, NULL),
                   BP_OK);
  assert_int_equal(host[0], 1);
  assert_int_equal(bp_device_free(f->dev0, block), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, next), BP_OK);
}

static void test_freed_cached_block_is_refused(void **state) {
  fixture_t *f = *state;
  void *block = NULL;
  assert_int_equal(bp_device_malloc(f->dev0, 4096, &block), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, block), BP_OK);
  assert_int_equal(bp_memset(f->dev0, block, 0, 1, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_names("bp_memset", block);
  assert_error_mentions("freed");
  unsigned char host[16] = {0};
  assert_int_equal(bp_copy(f->dev0, (char *)block + 8, NULL, host, 8, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("freed");
  /* Handed out again, it is live again. */
  void *again = NULL;
  assert_int_equal(bp_device_malloc(f->dev0, 4096, &again), BP_OK);
  assert_int_equal(bp_memset(f->dev0, again, 0, 4096, NULL), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, again), BP_OK);
}

/* Once bp_device_empty_cache gave the chunk back, no block covers the
 * pointer, but the plugin still owns the memory (vcpu's arena): refused all
 * the same, until the plugin hands that memory out again. */
static void test_memory_released_by_empty_cache_is_refused(void **state) {
  fixture_t *f = *state;
  void *block = NULL;
  unsigned char host[64] = {0};
  assert_int_equal(bp_device_malloc(f->dev0, 4096, &block), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, block), BP_OK);
  assert_int_equal(bp_device_empty_cache(f->dev0), BP_OK);
  bp_memory_stats_t stats;
  assert_int_equal(bp_device_memory_stats(f->dev0, &stats), BP_OK);
  assert_int_equal(stats.reserved_bytes.current, 0); /* really given back */
  assert_int_equal(bp_copy(NULL, host, f->dev0, block, sizeof host, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_names("bp_copy: source", block);
  assert_error_mentions("gave back to the plugin");
  assert_int_equal(
      bp_copy(f->dev0, (char *)block + 100, NULL, host, sizeof host, NULL),
      BP_ERR_INVALID_ARGUMENT);
  assert_names("bp_copy: destination", (char *)block + 100);
  assert_int_equal(bp_memset(f->dev0, block, 0, 1, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_names("bp_memset", block);
  /* Allocated again, the memory is live again, wherever the plugin puts it
   * (vcpu's arena hands the same addresses out first). */
  void *again = NULL;
  assert_int_equal(bp_device_malloc(f->dev0, 4096, &again), BP_OK);
  assert_ptr_equal(again, block);
  assert_int_equal(bp_copy(NULL, host, f->dev0, again, sizeof host, NULL),
                   BP_OK);
  assert_int_equal(bp_device_free(f->dev0, again), BP_OK);
}

static void test_foreign_pointers_pass(void **state) {
  fixture_t *f = *state;
  void *block = NULL;
  assert_int_equal(bp_device_malloc(f->dev0, 4096, &block), BP_OK);
  static unsigned char a[4096], b[4096];
  memset(a, 7, sizeof a);
  assert_int_equal(bp_copy(NULL, b, NULL, a, sizeof a, NULL), BP_OK);
  assert_int_equal(b[4095], 7);
  /* Host memory on the host side of a copy is not the allocator's. */
  assert_int_equal(bp_copy(f->dev0, block, NULL, a, sizeof a, NULL), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, block), BP_OK);
}

static void test_option_turns_the_check_off(void **state) {
  (void)state;
  bp_runtime_options_t options = fixture_options(BP_VCPU_PLUGIN);
  options.skip_range_checks = 1;
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  bp_device_t *dev0 = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &dev0), BP_OK);
  void *block = NULL, *next = NULL;
  assert_int_equal(bp_device_malloc(dev0, 4096, &block), BP_OK);
  assert_int_equal(bp_device_malloc(dev0, 4096, &next), BP_OK);
  /* Both blocks lie in one chunk the plugin knows: unchecked, it passes. */
  assert_int_equal(bp_device_free(dev0, next), BP_OK);
  assert_int_equal(bp_memset(dev0, next, 0, 1, NULL), BP_OK);
  assert_int_equal(bp_device_free(dev0, block), BP_OK);
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_past_the_end_is_refused, setup,
                                      fixture_close),
      cmocka_unit_test_setup_teardown(test_freed_cached_block_is_refused, setup,
                                      fixture_close),
      cmocka_unit_test_setup_teardown(
          test_memory_released_by_empty_cache_is_refused, setup, fixture_close),
      cmocka_unit_test_setup_teardown(test_foreign_pointers_pass, setup,
                                      fixture_close),
      cmocka_unit_test(test_option_turns_the_check_off),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
