/* Parsing BACKPLANE_FAULT rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/status.h"
#include "layers/fault/fault_spec.h"

static void test_parses_the_documented_example(void **state) {
  (void)state;
  bp_fault_spec_t spec;
  assert_int_equal(bp_fault_spec_parse("device_memory_allocate:3,"
                                       "async_memory_copy_h2d:p=0.01,seed=7",
                                       &spec),
                   BP_OK);
  const bp_fault_rule_t *alloc =
      &spec.rules[BP_LAYER_FN_device_memory_allocate];
  assert_true(alloc->active);
  assert_int_equal(alloc->nth, 3);
  assert_int_equal(alloc->status, C_FAILED);
  const bp_fault_rule_t *copy = &spec.rules[BP_LAYER_FN_async_memory_copy_h2d];
  assert_true(copy->active);
  assert_int_equal(copy->nth, 0);
  assert_true(copy->probability > 0.0099 && copy->probability < 0.0101);
  assert_int_equal(spec.seed, 7);
  assert_false(spec.rules[BP_LAYER_FN_query_event].active);
}

static void test_status_suffix(void **state) {
  (void)state;
  bp_fault_spec_t spec;
  assert_int_equal(bp_fault_spec_parse("create_stream:2=C_ERROR,"
                                       "record_event:p=1=C_INTERNAL_ERROR",
                                       &spec),
                   BP_OK);
  assert_int_equal(spec.rules[BP_LAYER_FN_create_stream].status, C_ERROR);
  assert_int_equal(spec.rules[BP_LAYER_FN_create_stream].nth, 2);
  assert_int_equal(spec.rules[BP_LAYER_FN_record_event].status,
                   C_INTERNAL_ERROR);
  assert_true(spec.rules[BP_LAYER_FN_record_event].probability == 1.0);
}

/* The kernels extension's calls are rule names too. */
static void test_kernel_rules(void **state) {
  (void)state;
  bp_fault_spec_t spec;
  assert_int_equal(
      bp_fault_spec_parse("module_load:3,launch:p=0.25=C_ERROR", &spec), BP_OK);
  const bp_fault_rule_t *load = &spec.rules[BP_LAYER_FN_module_load];
  assert_true(load->active);
  assert_int_equal(load->nth, 3);
  assert_int_equal(load->status, C_FAILED);
  const bp_fault_rule_t *launch = &spec.rules[BP_LAYER_FN_launch];
  assert_true(launch->active);
  assert_int_equal(launch->nth, 0);
  assert_true(launch->probability == 0.25);
  assert_int_equal(launch->status, C_ERROR);
  assert_int_equal(bp_fault_spec_parse("module_load_file:1", &spec),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "module_load or launch"));
}

static void test_empty_spec_has_no_rules(void **state) {
  (void)state;
  bp_fault_spec_t spec;
  assert_int_equal(bp_fault_spec_parse("", &spec), BP_OK);
  for (int i = 0; i < BP_LAYER_FN_COUNT; ++i)
    assert_false(spec.rules[i].active);
  assert_int_equal(spec.seed, 0);
}

static void test_rejects_bad_rules(void **state) {
  (void)state;
  const char *bad[] = {"query_event",      "query_event:",
                       "query_event:-1",   "query_event:x",
                       "query_event:p=",   "query_event:p=-0.1",
                       "initialize:1",     "seed=abc",
                       "query_event:1=C_", "query_event:99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    bp_fault_spec_t spec;
    if (bp_fault_spec_parse(bad[i], &spec) != BP_ERR_INVALID_ARGUMENT)
      fail_msg("\"%s\" was accepted", bad[i]);
    assert_non_null(strstr(bp_last_error(), "BACKPLANE_FAULT"));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parses_the_documented_example),
      cmocka_unit_test(test_status_suffix),
      cmocka_unit_test(test_kernel_rules),
      cmocka_unit_test(test_empty_spec_has_no_rules),
      cmocka_unit_test(test_rejects_bad_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
