/* The cuda target kind, registered from the plugin's extension chain as the
 * runtime does, parses without a GPU: defaults for what is not given, the
 * given arch and sizes, errors for values below a minimum and unknown
 * attributes. */
#include "support/runtime_fixture.h"

#include "cuda_kind.h"

static int64_t int_attr(const bp_target_t *target, const char *name) {
  int64_t value = -1;
  assert_int_equal(bp_target_get_int(target, name, &value), BP_OK);
  return value;
}

static void short_form_sets_what_it_names(void **state) {
  (void)state;
  bp_target_t *target = NULL;
  assert_int_equal(
      bp_target_parse("cuda -arch=sm_80 -num_cores=108 -max_num_threads=1024",
                      &target),
      BP_OK);
  assert_string_equal(bp_target_kind(target), "cuda");
  const char *arch = NULL;
  assert_int_equal(bp_target_get_string(target, "arch", &arch), BP_OK);
  assert_string_equal(arch, "sm_80");
  assert_int_equal(int_attr(target, "num_cores"), 108);
  assert_int_equal(int_attr(target, "max_num_threads"), 1024);
  /* Not given: the kind's defaults. */
  assert_int_equal(int_attr(target, "warp_size"), 32);
  assert_int_equal(int_attr(target, "max_shared_memory_per_block"), 49152);
  bp_target_destroy(target);
}

static void json_form_round_trips(void **state) {
  (void)state;
  bp_target_t *a = NULL, *b = NULL;
  assert_int_equal(bp_target_parse("cuda -arch=sm_90", &a), BP_OK);
  char *json = NULL;
  assert_int_equal(bp_target_to_json(a, &json), BP_OK);
  assert_non_null(strstr(json, "\"cuda\""));
  assert_non_null(strstr(json, "\"sm_90\""));
  assert_int_equal(bp_target_parse(json, &b), BP_OK);
  free(json);
  assert_true(bp_target_equal(a, b));
  bp_target_destroy(a);
  bp_target_destroy(b);
}

static void bad_values_are_errors_naming_them(void **state) {
  (void)state;
  bp_target_t *target = NULL;
  assert_int_equal(bp_target_parse("cuda -warp_size=0", &target),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "warp_size"));
  assert_int_equal(bp_target_parse("cuda -no_such_attr=1", &target),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "no_such_attr"));
  assert_null(target);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(short_form_sets_what_it_names),
      cmocka_unit_test(json_form_round_trips),
      cmocka_unit_test(bad_values_are_errors_naming_them),
  };
  return cmocka_run_group_tests(tests, cuda_kind_register,
                                cuda_kind_unregister);
}
