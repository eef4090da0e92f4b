/* The trainer as a library (tools/backplane/train/train.h), as `backplane
 * train` uses it: after every step, every rank holds bit-identical
 * parameters, and they changed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "train/train.h"

static void check_ranks_identical(int overlap) {
  setenv("BACKPLANE_VCPU_DEVICES", "2", 1);
  bp_runtime_t *runtime;
  assert_int_equal(bp_runtime_create(NULL, &runtime), BP_OK);
  train_config_t config;
  train_config_defaults(&config);
  config.ops_path = BP_OPS_REF_PATH;
  config.epochs = 2;
  config.overlap = overlap;
  train_session_t *session;
  if (train_session_create(runtime, &config, &session) != BP_OK)
    fail_msg("%s", train_last_error());
  size_t n = train_session_param_count(session);
  assert_int_equal(n, 64 * 256 + 256 + 256 * 256 + 256 + 256 * 10 + 10);
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
        *before = malloc(n * sizeof *before);
  assert_int_equal(train_session_read_params(session, 0, before), BP_OK);
  size_t steps = train_session_total_steps(session);
  assert_true(steps > 10);
  for (size_t s = 0; s < steps; s++) {
    assert_int_equal(train_session_step(session), BP_OK);
    assert_int_equal(train_session_read_params(session, 0, a), BP_OK);
    assert_int_equal(train_session_read_params(session, 1, b), BP_OK);
    assert_memory_equal(a, b, n * sizeof *a);
    assert_memory_not_equal(a, before, n * sizeof *a);
    memcpy(before, a, n * sizeof *a);
  }
  double loss, accuracy;
  assert_int_equal(train_session_loss(session, steps - 1, &loss), BP_OK);
  assert_true(loss > 0 && loss < 1);
  assert_int_equal(train_session_evaluate(session, &accuracy), BP_OK);
  assert_true(accuracy > 0.8);
  /* Past the end: refused, not run. */
  assert_int_equal(train_session_step(session), BP_ERR_INVALID_ARGUMENT);
  free(a);
  free(b);
  free(before);
  train_session_destroy(session);
  bp_runtime_destroy(runtime);
}

static void test_ranks_identical_every_step(void **state) {
  (void)state;
  check_ranks_identical(1);
}

static void test_ranks_identical_without_overlap(void **state) {
  (void)state;
  check_ranks_identical(0);
}

static void test_batch_must_divide(void **state) {
  (void)state;
  setenv("BACKPLANE_VCPU_DEVICES", "2", 1);
  bp_runtime_t *runtime;
  assert_int_equal(bp_runtime_create(NULL, &runtime), BP_OK);
  train_config_t config;
  train_config_defaults(&config);
  config.ops_path = BP_OPS_REF_PATH;
  config.batch = 33;
  train_session_t *session = NULL;
  assert_int_equal(train_session_create(runtime, &config, &session),
                   BP_ERR_INVALID_ARGUMENT);
  assert_null(session);
  assert_non_null(strstr(train_last_error(), "does not divide"));
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ranks_identical_every_step),
      cmocka_unit_test(test_ranks_identical_without_overlap),
      cmocka_unit_test(test_batch_must_divide),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
