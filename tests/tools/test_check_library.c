/* libbackplane_check through its public header, as a vendor's harness uses
 * it: a filtered run on a plugin whose h2d copies corrupt data reports FAIL
 * results with reasons, only for the selected cases; bad arguments are
 * refused without a report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/check.h"
#include "support/runtime_fixture.h"

typedef struct check_fixture {
  bp_runtime_t *runtime;
  size_t corrupt; /* the corrupt_copy plugin's index */
} check_fixture_t;

static int setup(void **state) {
  check_fixture_t *f = calloc(1, sizeof(*f));
  assert_non_null(f);
  f->runtime = fixture_runtime(BP_CORRUPT_PLUGIN);
  bp_plugin_info_t info;
  size_t count = bp_runtime_plugin_count(f->runtime);
  for (f->corrupt = 0; f->corrupt < count; f->corrupt++)
    if (bp_runtime_plugin_info(f->runtime, f->corrupt, &info) == BP_OK &&
        !strcmp(info.device_type, "corrupt_copy"))
      break;
  assert_true(f->corrupt < count);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  check_fixture_t *f = *state;
  bp_runtime_destroy(f->runtime);
  free(f);
  return 0;
}

typedef struct seen {
  size_t calls, starts, ends;
} seen_t;

static void count_result(void *user_data, const bp_check_result_t *result) {
  (void)result;
  ((seen_t *)user_data)->calls++;
}

static void count_case(void *user_data, const char *plugin,
                       const char *suite_case, int starting) {
  assert_string_equal(plugin, "corrupt_copy");
  assert_string_equal(suite_case, "copies");
  seen_t *seen = user_data;
  if (starting)
    seen->starts++;
  else
    seen->ends++;
}

static void test_corrupt_copies_fail_with_reasons(void **state) {
  check_fixture_t *f = *state;
  seen_t seen = {0};
  bp_check_options_t options = {.struct_size = sizeof(options),
                                .cases = (const char *const[]){"cop*", NULL},
                                .quick = 1,
                                .on_result = count_result,
                                .on_case = count_case,
                                .user_data = &seen};
  bp_check_report_t *report = NULL;
  assert_int_equal(bp_check_run(f->runtime, f->corrupt, &options, &report),
                   BP_OK);
  assert_int_equal(seen.starts, 1);
  assert_int_equal(seen.ends, 1);
  size_t count = bp_check_report_result_count(report);
  assert_int_equal(seen.calls, count);
  size_t failures = 0, h2d_failures = 0;
  for (size_t i = 0; i < count; i++) {
    const bp_check_result_t *r = bp_check_report_result(report, i);
    assert_string_equal(r->suite_case, "copies");
    failures += r->outcome == BP_CHECK_FAIL;
    if (r->outcome == BP_CHECK_FAIL && strstr(r->name, "h2d")) {
      h2d_failures++;
      assert_string_equal(r->status, "FAIL");
      assert_true(strlen(r->detail) > 0);
    }
  }
  assert_null(bp_check_report_result(report, count));
  assert_true(h2d_failures >= 2); /* h2d sync and on a stream */
  bp_check_summary_t summary = bp_check_report_summary(report);
  assert_string_equal(summary.plugin, "corrupt_copy");
  assert_int_equal(summary.failed, failures);
  assert_string_equal(summary.streams, "unknown"); /* asynchrony not run */
  char *json = NULL;
  assert_int_equal(bp_check_report_json(report, &json), BP_OK);
  assert_non_null(strstr(json, "\"status\": \"FAIL\""));
  free(json);
  bp_check_report_destroy(report);
}

static void test_bad_arguments_are_refused(void **state) {
  check_fixture_t *f = *state;
  bp_check_report_t *report = (bp_check_report_t *)&report; /* a sentinel */
  bp_check_report_t *const untouched = report;
  bp_check_options_t options = {.struct_size = sizeof(options)};
  assert_int_equal(bp_check_run(NULL, 0, &options, &report),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_check_run(f->runtime, 0, NULL, &report),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_check_run(f->runtime, bp_runtime_plugin_count(f->runtime),
                                &options, &report),
                   BP_ERR_INVALID_ARGUMENT);
  options.cases = (const char *const[]){"copies", "copeis", NULL};
  assert_int_equal(bp_check_run(f->runtime, f->corrupt, &options, &report),
                   BP_ERR_INVALID_ARGUMENT);
  options = (bp_check_options_t){.struct_size = 8};
  assert_int_equal(bp_check_run(f->runtime, f->corrupt, &options, &report),
                   BP_ERR_INVALID_ARGUMENT);
  assert_ptr_equal(report, untouched);
  assert_int_equal(bp_check_report_write_text(NULL, stdout),
                   BP_ERR_INVALID_ARGUMENT);
}

static void test_case_list(void **state) {
  (void)state;
  size_t count = bp_check_case_count();
  assert_true(count >= 19);
  assert_string_equal(bp_check_case_name(0), "abi");
  assert_string_equal(bp_check_case_name(count - 1), "comm_send_recv");
  assert_non_null(bp_check_case_summary(count - 1));
  assert_null(bp_check_case_name(count));
  assert_null(bp_check_case_summary(count));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_case_list),
      cmocka_unit_test_setup_teardown(test_corrupt_copies_fail_with_reasons,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_arguments_are_refused, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
