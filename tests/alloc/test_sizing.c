/* Seed 003 sizing: every hint given, every default, rounding, growth and
 * splitting rules, direct allocations, the max_alloc budget. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "alloc/alloc_sizing.h"
#include "alloc/fake_backend.h"
#include "backplane/status.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

static const bp_alloc_hints_t all_hints = {
    .min_chunk_size = 256,
    .max_chunk_size = 64 * MiB,
    .max_alloc_size = 512 * MiB,
    .extra_padding_size = 32,
    .init_alloc_size = 8 * MiB,
    .realloc_size = 4 * MiB,
};

static void test_given_hints_are_kept(void **state) {
  (void)state;
  bp_allocator_config_t c;
  bp_alloc_resolve_hints(&all_hints, 1 * GiB, &c);
  assert_int_equal(c.min_chunk_size, 256);
  assert_int_equal(c.max_chunk_size, 64 * MiB);
  assert_int_equal(c.max_alloc_size, 512 * MiB);
  assert_int_equal(c.extra_padding_size, 32);
  assert_int_equal(c.init_alloc_size, 8 * MiB);
  assert_int_equal(c.realloc_size, 4 * MiB);
  assert_int_equal(c.defaulted, 0);
}

static void test_all_defaults(void **state) {
  (void)state;
  bp_allocator_config_t c;
  bp_alloc_resolve_hints(NULL, 1 * GiB, &c);
  assert_int_equal(c.min_chunk_size, 512);
  assert_int_equal(c.extra_padding_size, 0);
  assert_int_equal(c.max_alloc_size, 1 * GiB);
  assert_int_equal(c.max_chunk_size, 1 * GiB);
  assert_int_equal(c.init_alloc_size, 20 * MiB);
  assert_int_equal(c.realloc_size, 20 * MiB);
  assert_int_equal(c.defaulted, 0x3f);
}

/* Each hint left out alone: only its bit is set and only it takes the
 * default. */
static void test_each_default_alone(void **state) {
  (void)state;
  struct {
    size_t offset;
    unsigned bit;
    size_t expected;
  } cases[] = {
      {offsetof(bp_alloc_hints_t, min_chunk_size),
       BP_ALLOCATOR_DEFAULTED_MIN_CHUNK, 512},
      {offsetof(bp_alloc_hints_t, max_chunk_size),
       BP_ALLOCATOR_DEFAULTED_MAX_CHUNK, 512 * MiB},
      {offsetof(bp_alloc_hints_t, max_alloc_size),
       BP_ALLOCATOR_DEFAULTED_MAX_ALLOC, 1 * GiB},
      {offsetof(bp_alloc_hints_t, extra_padding_size),
       BP_ALLOCATOR_DEFAULTED_EXTRA_PADDING, 0},
      {offsetof(bp_alloc_hints_t, init_alloc_size),
       BP_ALLOCATOR_DEFAULTED_INIT_ALLOC, 20 * MiB},
      {offsetof(bp_alloc_hints_t, realloc_size), BP_ALLOCATOR_DEFAULTED_REALLOC,
       20 * MiB},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bp_alloc_hints_t hints = all_hints;
    *(size_t *)((char *)&hints + cases[i].offset) = 0;
    bp_allocator_config_t c;
    bp_alloc_resolve_hints(&hints, 1 * GiB, &c);
    assert_int_equal(c.defaulted, cases[i].bit);
    /* bp_allocator_config_t lists the sizes in the order of the hints. */
    size_t value = *(size_t *)((char *)&c + cases[i].offset);
    assert_int_equal(value, cases[i].expected);
  }
}

static void test_unknown_device_size_is_unlimited(void **state) {
  (void)state;
  bp_allocator_config_t c;
  bp_alloc_resolve_hints(NULL, 0, &c);
  assert_true(c.max_alloc_size == SIZE_MAX);
  assert_true(c.max_chunk_size == SIZE_MAX);
  assert_int_equal(c.init_alloc_size, 20 * MiB);
}

static void test_small_device_caps_growth(void **state) {
  (void)state;
  bp_allocator_config_t c;
  bp_alloc_resolve_hints(NULL, 8 * MiB, &c);
  assert_int_equal(c.init_alloc_size, 8 * MiB);
  assert_int_equal(c.realloc_size, 8 * MiB);
}

static void test_hints_clamped_to_max_alloc(void **state) {
  (void)state;
  bp_alloc_hints_t hints = all_hints;
  hints.max_alloc_size = 16 * MiB;
  hints.max_chunk_size = 32 * MiB;
  hints.init_alloc_size = 64 * MiB;
  bp_allocator_config_t c;
  bp_alloc_resolve_hints(&hints, 1 * GiB, &c);
  assert_int_equal(c.max_chunk_size, 16 * MiB);
  assert_int_equal(c.init_alloc_size, 16 * MiB);
  assert_int_equal(c.realloc_size, 4 * MiB);
}

static void test_round_size(void **state) {
  (void)state;
  bp_allocator_config_t c = {.min_chunk_size = 512, .extra_padding_size = 24};
  size_t r;
  assert_true(bp_alloc_round_size(&c, 1000, &r));
  assert_int_equal(r, 1024);
  assert_true(bp_alloc_round_size(&c, 488, &r));
  assert_int_equal(r, 512);
  assert_true(bp_alloc_round_size(&c, 489, &r));
  assert_int_equal(r, 1024);
  assert_true(bp_alloc_round_size(&c, 0, &r)); /* counts as one byte */
  assert_int_equal(r, 512);
  c.min_chunk_size = 3; /* not a power of two */
  c.extra_padding_size = 0;
  assert_true(bp_alloc_round_size(&c, 10, &r));
  assert_int_equal(r, 12);
  c.min_chunk_size = 512;
  assert_false(bp_alloc_round_size(&c, SIZE_MAX, &r));
  assert_false(bp_alloc_round_size(&c, SIZE_MAX - 100, &r));
  c.extra_padding_size = 200;
  assert_false(bp_alloc_round_size(&c, SIZE_MAX - 100, &r));
}

static void test_growth_size(void **state) {
  (void)state;
  bp_allocator_config_t c = {.min_chunk_size = 512,
                             .init_alloc_size = 8 * MiB,
                             .realloc_size = 4 * MiB};
  assert_int_equal(bp_alloc_growth_size(&c, 512, true, true, SIZE_MAX),
                   2 * MiB);
  assert_int_equal(bp_alloc_growth_size(&c, 2 * MiB, false, true, SIZE_MAX),
                   8 * MiB);
  assert_int_equal(bp_alloc_growth_size(&c, 2 * MiB, false, false, SIZE_MAX),
                   4 * MiB);
  /* Never below the request. */
  assert_int_equal(bp_alloc_growth_size(&c, 9 * MiB, false, true, SIZE_MAX),
                   9 * MiB);
  /* Cut to the budget (a multiple of min_chunk), but not below the request. */
  assert_int_equal(
      bp_alloc_growth_size(&c, 2 * MiB, false, true, 5 * MiB + 100), 5 * MiB);
  assert_int_equal(bp_alloc_growth_size(&c, 2 * MiB, false, true, 2 * MiB),
                   2 * MiB);
  assert_int_equal(bp_alloc_growth_size(&c, 3 * MiB, false, true, 2 * MiB), 0);
}

static void test_should_split(void **state) {
  (void)state;
  bp_allocator_config_t c = {.min_chunk_size = 512};
  assert_true(bp_alloc_should_split(&c, 2 * MiB, 512, true));
  assert_true(bp_alloc_should_split(&c, 1024, 512, true));
  assert_false(bp_alloc_should_split(&c, 1024, 1024, true));
  assert_true(bp_alloc_should_split(&c, 20 * MiB, 2 * MiB, false));
  assert_false(bp_alloc_should_split(&c, 3 * MiB, 2 * MiB, false));
  assert_true(bp_alloc_should_split(&c, 3 * MiB + 512, 2 * MiB, false));
}

/* Allocator level. */

static bp_caching_allocator_t *create(fake_device_t *d,
                                      const bp_alloc_hints_t *hints) {
  bp_alloc_backend_t backend = fake_backend(d, true);
  bp_caching_allocator_t *a = NULL;
  assert_int_equal(bp_caching_allocator_create(&backend, hints, &a), BP_OK);
  return a;
}

static void test_config_reports_defaults(void **state) {
  (void)state;
  fake_device_t d;
  fake_device_init(&d, 3 * GiB);
  bp_alloc_hints_t hints = {.min_chunk_size = 1024};
  bp_caching_allocator_t *a = create(&d, &hints);
  bp_allocator_config_t c;
  bp_caching_allocator_config(a, &c);
  assert_int_equal(c.min_chunk_size, 1024);
  assert_int_equal(c.max_alloc_size, 3 * GiB);
  assert_int_equal(c.defaulted, 0x3e);
  bp_caching_allocator_destroy(a);

  d.report_memory_info = false;
  a = create(&d, NULL);
  bp_caching_allocator_config(a, &c);
  assert_true(c.max_alloc_size == SIZE_MAX);
  bp_caching_allocator_destroy(a);
}

static void test_padding_and_alignment_apply(void **state) {
  (void)state;
  fake_device_t d;
  fake_device_init(&d, 1 * GiB);
  bp_alloc_hints_t hints = {.min_chunk_size = 256, .extra_padding_size = 100};
  bp_caching_allocator_t *a = create(&d, &hints);
  void *p;
  assert_int_equal(bp_caching_allocator_malloc(a, 1000, NULL, &p), BP_OK);
  bp_memory_stats_t s;
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.allocated_bytes.current, 1280); /* 1100 -> 5 x 256 */
  assert_int_equal(s.requested_bytes.current, 1000);
  size_t size;
  assert_int_equal(bp_caching_allocator_block_size(a, p, &size), BP_OK);
  assert_int_equal(size, 1000);
  assert_int_equal(bp_caching_allocator_free(a, p), BP_OK);
  bp_caching_allocator_destroy(a);
}

static void test_above_max_chunk_goes_direct(void **state) {
  (void)state;
  fake_device_t d;
  fake_device_init(&d, 1 * GiB);
  bp_alloc_hints_t hints = {.max_chunk_size = 4 * MiB};
  bp_caching_allocator_t *a = create(&d, &hints);
  void *p;
  assert_int_equal(bp_caching_allocator_malloc(a, 5 * MiB + 1, NULL, &p),
                   BP_OK);
  assert_int_equal(d.allocate_calls, 1);
  assert_int_equal(fake_live_size(&d, p), 5 * MiB + 512);
  bp_memory_stats_t s;
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.reserved_bytes.current, 5 * MiB + 512);
  assert_int_equal(s.num_device_alloc, 1);
  assert_int_equal(bp_caching_allocator_free(a, p), BP_OK);
  /* Straight back to the device (no stream, nothing pending). */
  assert_int_equal(d.free_calls, 1);
  assert_int_equal(d.used, 0);
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.reserved_bytes.current, 0);
  assert_int_equal(s.num_device_free, 1);
  /* Exactly max_chunk still comes from a chunk. */
  assert_int_equal(bp_caching_allocator_malloc(a, 4 * MiB, NULL, &p), BP_OK);
  assert_int_equal(d.last_allocate_size, 20 * MiB);
  assert_int_equal(bp_caching_allocator_free(a, p), BP_OK);
  bp_caching_allocator_destroy(a);
}

static void test_init_then_realloc_growth(void **state) {
  (void)state;
  fake_device_t d;
  fake_device_init(&d, 1 * GiB);
  bp_alloc_hints_t hints = {.init_alloc_size = 8 * MiB,
                            .realloc_size = 4 * MiB};
  bp_caching_allocator_t *a = create(&d, &hints);
  void *p[4];
  assert_int_equal(bp_caching_allocator_malloc(a, 2 * MiB, NULL, &p[0]), BP_OK);
  assert_int_equal(d.last_allocate_size, 8 * MiB); /* first: init */
  assert_int_equal(bp_caching_allocator_malloc(a, 7 * MiB, NULL, &p[1]), BP_OK);
  assert_int_equal(d.last_allocate_size, 7 * MiB); /* at least the request */
  assert_int_equal(bp_caching_allocator_malloc(a, 4 * MiB, NULL, &p[2]), BP_OK);
  assert_int_equal(d.allocate_calls, 2); /* fits the first chunk's rest */
  assert_int_equal(bp_caching_allocator_malloc(a, 3 * MiB, NULL, &p[3]), BP_OK);
  assert_int_equal(d.allocate_calls, 3);
  assert_int_equal(d.last_allocate_size, 4 * MiB); /* later: realloc */
  for (int i = 0; i < 4; i++)
    assert_int_equal(bp_caching_allocator_free(a, p[i]), BP_OK);
  bp_caching_allocator_destroy(a);
  assert_int_equal(d.used, 0);
}

static void test_growth_falls_back_to_request(void **state) {
  (void)state;
  fake_device_t d;
  fake_device_init(&d, 5 * MiB);
  bp_alloc_hints_t hints = {.max_alloc_size = 64 * MiB};
  bp_caching_allocator_t *a = create(&d, &hints);
  void *p;
  /* The device cannot give 20 MiB, but has the 3 MiB asked for. */
  assert_int_equal(bp_caching_allocator_malloc(a, 3 * MiB, NULL, &p), BP_OK);
  assert_int_equal(fake_live_size(&d, p), 3 * MiB);
  assert_int_equal(bp_caching_allocator_free(a, p), BP_OK);
  bp_caching_allocator_destroy(a);
}

static void test_max_alloc_budget(void **state) {
  (void)state;
  fake_device_t d;
  fake_device_init(&d, 1 * GiB);
  bp_alloc_hints_t hints = {.max_alloc_size = 16 * MiB};
  bp_caching_allocator_t *a = create(&d, &hints);
  void *p, *q;
  assert_int_equal(bp_caching_allocator_malloc(a, 10 * MiB, NULL, &p), BP_OK);
  assert_int_equal(d.last_allocate_size, 16 * MiB);
  assert_int_equal(bp_caching_allocator_malloc(a, 10 * MiB, NULL, &q),
                   BP_ERR_OUT_OF_MEMORY);
  const char *message = bp_last_error();
  assert_non_null(strstr(message, "fake:0"));
  assert_non_null(strstr(message, "10485760"));
  assert_non_null(strstr(message, "max_alloc_size 16777216"));
  assert_non_null(strstr(message, "largest free cached block 6291456"));
  bp_memory_stats_t s;
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.num_ooms, 1);
  assert_int_equal(s.num_alloc_retries, 1);
  assert_int_equal(d.used, 16 * MiB);
  assert_int_equal(bp_caching_allocator_free(a, p), BP_OK);
  bp_caching_allocator_destroy(a);
}

static void test_overflowing_size(void **state) {
  (void)state;
  fake_device_t d;
  fake_device_init(&d, 1 * GiB);
  bp_caching_allocator_t *a = create(&d, NULL);
  void *p = (void *)1;
  assert_int_equal(bp_caching_allocator_malloc(a, SIZE_MAX - 10, NULL, &p),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "overflows"));
  assert_ptr_equal(p, (void *)1);
  assert_int_equal(d.allocate_calls, 0);
  bp_caching_allocator_destroy(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_given_hints_are_kept),
      cmocka_unit_test(test_all_defaults),
      cmocka_unit_test(test_each_default_alone),
      cmocka_unit_test(test_unknown_device_size_is_unlimited),
      cmocka_unit_test(test_small_device_caps_growth),
      cmocka_unit_test(test_hints_clamped_to_max_alloc),
      cmocka_unit_test(test_round_size),
      cmocka_unit_test(test_growth_size),
      cmocka_unit_test(test_should_split),
      cmocka_unit_test(test_config_reports_defaults),
      cmocka_unit_test(test_padding_and_alignment_apply),
      cmocka_unit_test(test_above_max_chunk_goes_direct),
      cmocka_unit_test(test_init_then_realloc_growth),
      cmocka_unit_test(test_growth_falls_back_to_request),
      cmocka_unit_test(test_max_alloc_budget),
      cmocka_unit_test(test_overflowing_size),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
