/* The rules behind the gated checks' verdicts (tools/backplane/check):
 * a look at held-back work that cannot tell (the gate gave up at its
 * deadline) is never a pass, whatever else was seen; work seen running or a
 * stream seen idle while the gate held is a failure; and a cross-stream
 * check passes only on the evidence it needs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check_cross_verdict.h"
#include "check/check_look.h"

static void test_look_without_a_holding_gate_cannot_tell(void **state) {
  (void)state;
  for (int ran = 0; ran < 2; ran++)
    for (int idle = 0; idle < 2; idle++)
      assert_int_equal(check_look_judge(ran, idle, 0), CHECK_LOOK_CANNOT_TELL);
}

static void test_look_while_held(void **state) {
  (void)state;
  assert_int_equal(check_look_judge(0, 0, 1), CHECK_LOOK_HELD);
  assert_int_equal(check_look_judge(1, 0, 1), CHECK_LOOK_RAN_EARLY);
  assert_int_equal(check_look_judge(1, 1, 1), CHECK_LOOK_RAN_EARLY);
  assert_int_equal(check_look_judge(0, 1, 1), CHECK_LOOK_IDLE_EARLY);
}

/* Every combination of the other evidence, with a given look. */
static void for_each_seen(check_look_t look,
                          void (*expect)(const cross_stream_seen_t *seen,
                                         bp_check_outcome_t outcome)) {
  const char *blocked[] = {NULL, "bp_stream_wait_event"};
  const size_t mismatch[] = {SIZE_MAX, 0, 4095};
  const int runs[] = {0, 1, 2};
  for (size_t b = 0; b < 2; b++)
    for (int overtook = 0; overtook < 2; overtook++)
      for (size_t m = 0; m < 3; m++)
        for (size_t r = 0; r < 3; r++) {
          cross_stream_seen_t seen = {.blocked_call = blocked[b],
                                      .look = look,
                                      .overtook = overtook,
                                      .mismatch = mismatch[m],
                                      .callback_runs = runs[r]};
          char why[256] = "";
          bp_check_outcome_t outcome =
              cross_stream_verdict(&seen, why, sizeof why);
          assert_true(why[0] != '\0');
          expect(&seen, outcome);
        }
}

static void never_pass(const cross_stream_seen_t *seen,
                       bp_check_outcome_t outcome) {
  (void)seen;
  assert_true(outcome == BP_CHECK_SKIP || outcome == BP_CHECK_FAIL);
}

static void always_fail(const cross_stream_seen_t *seen,
                        bp_check_outcome_t outcome) {
  (void)seen;
  assert_int_equal(outcome, BP_CHECK_FAIL);
}

/* Pass exactly when nothing is wrong; fail otherwise. */
static void pass_only_when_right(const cross_stream_seen_t *seen,
                                 bp_check_outcome_t outcome) {
  int right = !seen->blocked_call && !seen->overtook &&
              seen->mismatch == SIZE_MAX && seen->callback_runs == 1;
  assert_int_equal(outcome, right ? BP_CHECK_PASS : BP_CHECK_FAIL);
}

static void test_cross_stream_cannot_tell_never_passes(void **state) {
  (void)state;
  for_each_seen(CHECK_LOOK_CANNOT_TELL, never_pass);
}

static void test_cross_stream_early_work_fails(void **state) {
  (void)state;
  for_each_seen(CHECK_LOOK_RAN_EARLY, always_fail);
  for_each_seen(CHECK_LOOK_IDLE_EARLY, always_fail);
}

static void test_cross_stream_passes_only_on_its_evidence(void **state) {
  (void)state;
  for_each_seen(CHECK_LOOK_HELD, pass_only_when_right);
  for_each_seen(CHECK_LOOK_UNGATED, pass_only_when_right);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_look_without_a_holding_gate_cannot_tell),
      cmocka_unit_test(test_look_while_held),
      cmocka_unit_test(test_cross_stream_cannot_tell_never_passes),
      cmocka_unit_test(test_cross_stream_early_work_fails),
      cmocka_unit_test(test_cross_stream_passes_only_on_its_evidence),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
