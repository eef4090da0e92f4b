/* Detail formats of trace events parsed once: the conversions a format
 * holds, the formats that cannot be kept raw, the plan cached by the
 * format's address, and an event's detail written back from raw values. */
#include "layers/trace/trace_format.h"
#include "layers/trace/trace_thread_buffer.h"

#include <pthread.h>
#include <string.h>

#include "support/runtime_fixture.h"

static void test_conversions_in_order(void **state) {
  (void)state;
  static const char format[] =
      "\"a\":%p,\"b\":\"%s\",\"c\":%d,\"d\":%u,\"e\":%zu,\"f\":%ld";
  bp_trace_format_plan_t scratch;
  const bp_trace_format_plan_t *plan = bp_trace_format_plan(format, &scratch);
  assert_true(plan->raw);
  assert_int_equal(plan->count, 6);
  const uint8_t expected[] = {BP_TRACE_CONV_POINTER, BP_TRACE_CONV_STRING,
                              BP_TRACE_CONV_INT,     BP_TRACE_CONV_UNSIGNED,
                              BP_TRACE_CONV_SIZE,    BP_TRACE_CONV_LONG};
  assert_memory_equal(plan->conversions, expected, sizeof expected);
  static const char percent[] = "100%% of %llu, %lu";
  plan = bp_trace_format_plan(percent, &scratch);
  assert_true(plan->raw);
  assert_int_equal(plan->count, 2);
  assert_int_equal(plan->conversions[0], BP_TRACE_CONV_ULLONG);
  assert_int_equal(plan->conversions[1], BP_TRACE_CONV_ULONG);
}

static void test_formats_not_kept_raw(void **state) {
  (void)state;
  bp_trace_format_plan_t scratch;
  static const char floating[] = "\"x\":%f";
  assert_false(bp_trace_format_plan(floating, &scratch)->raw);
  static const char width[] = "\"x\":%5d";
  assert_false(bp_trace_format_plan(width, &scratch)->raw);
  static const char seven[] = "%d %d %d %d %d %d %d";
  assert_false(bp_trace_format_plan(seven, &scratch)->raw);
  static const char none[] = "\"plain\":1";
  const bp_trace_format_plan_t *plan = bp_trace_format_plan(none, &scratch);
  assert_true(plan->raw);
  assert_int_equal(plan->count, 0);
}

static void test_plan_cached_by_address(void **state) {
  (void)state;
  static const char format[] = "\"n\":%u";
  bp_trace_format_plan_t first_scratch, second_scratch;
  const bp_trace_format_plan_t *first =
      bp_trace_format_plan(format, &first_scratch);
  const bp_trace_format_plan_t *second =
      bp_trace_format_plan(format, &second_scratch);
  assert_ptr_equal(first, second);
  assert_ptr_not_equal(second, &second_scratch); /* from the cache */
  assert_ptr_equal(second->format, format);
  /* Many formats: every plan names its own format, cached or not. */
  static char formats[600][8];
  for (size_t i = 0; i < 600; ++i) {
    strcpy(formats[i], i % 2 ? "%d %s" : "%p");
    bp_trace_format_plan_t scratch;
    const bp_trace_format_plan_t *plan =
        bp_trace_format_plan(formats[i], &scratch);
    assert_ptr_equal(plan->format, formats[i]);
    assert_int_equal(plan->count, i % 2 ? 2 : 1);
  }
}

/* Threads asking for the same new formats at once agree on their plans. */
static char shared_formats[64][16];

static void *ask_all(void *arg) {
  (void)arg;
  for (size_t i = 0; i < 64; ++i) {
    bp_trace_format_plan_t scratch;
    const bp_trace_format_plan_t *plan =
        bp_trace_format_plan(shared_formats[i], &scratch);
    if (plan->format != shared_formats[i] || plan->count != 3)
      return (void *)1;
  }
  return NULL;
}

static void test_threads_agree(void **state) {
  (void)state;
  for (size_t i = 0; i < 64; ++i)
    strcpy(shared_formats[i], "%u %zu %s");
  pthread_t threads[4];
  for (int t = 0; t < 4; ++t)
    assert_int_equal(pthread_create(&threads[t], NULL, ask_all, NULL), 0);
  for (int t = 0; t < 4; ++t) {
    void *failed = (void *)1;
    pthread_join(threads[t], &failed);
    assert_null(failed);
  }
}

static void test_detail_written_from_raw_values(void **state) {
  (void)state;
  bp_trace_event_t event = {
      .detail_format = "\"bytes\":%zu,\"name\":\"%s\",\"delta\":%d,\"x\":100%%",
      .detail_args = {4096, (uintptr_t) "copy", (uint64_t)(int64_t)-3}};
  char out[128];
  bp_trace_event_detail(&event, out, sizeof out);
  assert_string_equal(out, "\"bytes\":4096,\"name\":\"copy\",\"delta\":-3,"
                           "\"x\":100%");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conversions_in_order),
      cmocka_unit_test(test_formats_not_kept_raw),
      cmocka_unit_test(test_plan_cached_by_address),
      cmocka_unit_test(test_threads_agree),
      cmocka_unit_test(test_detail_written_from_raw_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
