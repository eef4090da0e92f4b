/* `backplane bench`, run as a program: the structure of its records only
 * (benchmarks are never timed tests). */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "tool_runner.h"

static int is_number_or_null(json_t *value) {
  return json_is_number(value) || json_is_null(value);
}

static void test_all_json_records(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"bench", "all", "--quick", "--json", NULL},
               NULL, &run),
      0);
  assert_int_equal(run.exit_code, 0);
  json_t *records = json_loads(run.out, 0, NULL);
  assert_true(json_is_array(records));
  size_t i, dispatch = 0, copy = 0, stream = 0, ring = 0, torch_ops = 0,
            torch_ddp = 0;
  json_t *record;
  json_array_foreach(records, i, record) {
    const char *bench = json_string_value(json_object_get(record, "bench"));
    assert_non_null(bench);
    dispatch += !strcmp(bench, "dispatch");
    copy += !strcmp(bench, "copy");
    stream += !strcmp(bench, "stream");
    const char *bench_case = json_string_value(json_object_get(record, "case"));
    ring += bench_case && !strncmp(bench_case, "ring all-reduce kernel, ", 24);
    assert_true(json_is_string(json_object_get(record, "case")));
    assert_true(json_is_number(json_object_get(record, "value")));
    assert_true(json_is_string(json_object_get(record, "unit")));
    json_t *baseline = json_object_get(record, "baseline");
    assert_true(json_is_string(baseline) || json_is_null(baseline));
    assert_true(is_number_or_null(json_object_get(record, "baseline_value")));
    assert_true(is_number_or_null(json_object_get(record, "ratio")));
    if (json_is_string(baseline))
      assert_true(json_is_number(json_object_get(record, "baseline_value")));
    const char *by = json_string_value(baseline);
    torch_ops += !strcmp(bench, "ops") && by && !strncmp(by, "PyTorch CPU", 11);
    torch_ddp +=
        !strcmp(bench, "train") && by && !strncmp(by, "PyTorch DDP gloo", 16);
  }
#ifdef BP_TEST_TORCH_BASELINES
  /* The package's scripts ran: PyTorch rows in ops, DDP in train. */
  assert_true(torch_ops > 0);
  assert_int_equal(torch_ddp, 1); /* --quick: the CNN at 2 devices */
#else
  (void)torch_ops;
  (void)torch_ddp;
#endif
  /* 2 calls x (no layer, validation, trace), and the bounds check. */
  assert_int_equal(dispatch, 7);
  assert_int_equal(copy, 24);
  assert_int_equal(stream, 4);
  /* launch: the ring kernel beside bp_comm_all_reduce, 1 KiB and 64 KiB. */
  assert_int_equal(ring, 2);
  json_decref(records);
  tool_run_release(&run);
}

static void test_table_has_budgets(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"bench", "dispatch", "--quick", NULL}, NULL,
               &run),
      0);
  assert_int_equal(run.exit_code, 0);
  assert_non_null(strstr(run.out, "budget"));
  assert_non_null(strstr(run.out, "<= 2 ns extra"));
  assert_int_equal(tool_count_lines(run.out, "dispatch"), 7);
  assert_non_null(strstr(run.out, "<= 20 ns extra"));
  tool_run_release(&run);
}

/* --op/--ranks/--transport reach the comm bench: every record is of the
 * collective asked for, on the ranks asked for. */
static void test_comm_options_select_the_collective(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"bench", "comm", "--quick", "--op", "broadcast",
                                "--ranks", "2", "--transport", "threads",
                                "--json", NULL},
               NULL, &run),
      0);
  assert_int_equal(run.exit_code, 0);
  json_t *records = json_loads(run.out, 0, NULL);
  assert_true(json_is_array(records));
  assert_int_equal(json_array_size(records), 2); /* quick: 1 KiB and 64 KiB */
  size_t i;
  json_t *record;
  json_array_foreach(records, i, record) {
    assert_string_equal(json_string_value(json_object_get(record, "bench")),
                        "comm");
    const char *bench_case = json_string_value(json_object_get(record, "case"));
    assert_non_null(bench_case);
    assert_non_null(strstr(bench_case, "broadcast"));
    assert_non_null(strstr(bench_case, " 2 threads"));
    assert_true(json_is_number(json_object_get(record, "value")));
  }
  json_decref(records);
  tool_run_release(&run);
}

static void test_bench_usage_errors(void **state) {
  (void)state;
  const char *const *const cases[] = {
      (const char *[]){"bench", NULL},
      (const char *[]){"bench", "no-such-bench", NULL},
      (const char *[]){"bench", "comm", "--transport", "bogus", NULL},
      (const char *[]){"bench", "comm", "--op", "all_to_all", NULL},
      (const char *[]){"bench", "comm", "--ranks", "9", NULL},
      (const char *[]){"bench", "comm", "--ranks", "2x", NULL},
      (const char *[]){"bench", "comm", "--ranks", NULL},
      (const char *[]){"bench", "copy", "--op", "broadcast", NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tool_run_t run;
    assert_int_equal(tool_run(cases[i], NULL, &run), 0);
    assert_int_equal(run.exit_code, 2);
    tool_run_release(&run);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_all_json_records),
      cmocka_unit_test(test_table_has_budgets),
      cmocka_unit_test(test_comm_options_select_the_collective),
      cmocka_unit_test(test_bench_usage_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
