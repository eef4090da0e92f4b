/* `backplane optest` over tests/data/ops_diopi, the cases generated from
 * DIOPI's own test configurations (scripts/make_diopi_config_cases.py,
 * PyTorch the oracle): the reference library passes every case (the runner
 * calls every op), the total line counts them, and the configured edge cases
 * that once failed (empty layer_norm rows, linear with no out features)
 * pass, and so do the backward cases of the entries with requires_grad. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

typedef struct tally {
  int pass, fail, noimpl, skip;
  int total_pass, total_cases; /* from "N of M cases pass" */
} tally_t;

/* Runs optest over the DIOPI-configured cases; returns its exit code. */
static int run(const char *filter, tally_t *t) {
  char command[2048];
  snprintf(command, sizeof command, "%s optest --quick --data %s%s%s",
           BP_TOOL_PATH, BP_DIOPI_CASES, filter ? " --filter " : "",
           filter ? filter : "");
  FILE *out = popen(command, "r");
  assert_non_null(out);
  memset(t, 0, sizeof *t);
  t->total_pass = t->total_cases = -1;
  char line[4096];
  while (fgets(line, sizeof line, out)) {
    t->pass += !strncmp(line, "PASS ", 5);
    t->fail += !strncmp(line, "FAIL ", 5);
    t->noimpl += !strncmp(line, "NOIMPL ", 7);
    t->skip += !strncmp(line, "SKIP ", 5);
    sscanf(line, "%d of %d cases pass", &t->total_pass, &t->total_cases);
  }
  int status = pclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void reference_passes_every_configured_case(void **state) {
  (void)state;
  tally_t t;
  assert_int_equal(run(NULL, &t), 0);
  assert_int_equal(t.fail, 0);
  /* The runner calls every configured op, the in-place and scalar forms
   * too (DivInp, DivScalar, SigmoidInp, SiluInp, TanhInp were skipped). */
  assert_int_equal(t.skip, 0);
  assert_true(t.pass >= 900);
  assert_int_equal(t.total_pass, t.pass);
  assert_int_equal(t.total_cases, t.pass + t.fail + t.noimpl + t.skip);
}

static void layer_norm_of_empty_rows_matches_pytorch(void **state) {
  (void)state;
  tally_t t;
  assert_int_equal(run("layer_norm_empty_tensor", &t), 0);
  assert_int_equal(t.fail, 0);
  assert_int_equal(t.pass, 9); /* 6 of them failed before */
}

static void linear_with_no_out_features_matches_pytorch(void **state) {
  (void)state;
  tally_t t;
  assert_int_equal(run("diopi/linear/", &t), 0);
  assert_int_equal(t.fail, 0);
  /* 5 forward, 4 backward: the backward whose bias [16, 0] broadcast to
   * out [16, 0] failed before (grad_bias expected [0]) */
  assert_int_equal(t.pass, 9);
}

/* The entries with requires_grad tensors get their backward's case, as
 * DIOPI-TEST runs them (grad_output of ones): every one passes, and the
 * nll_loss ones (inputs up to 5-d, DIOPI's nll_loss2d among them where
 * small enough to store) too. */
static void backward_of_every_requires_grad_entry_passes(void **state) {
  (void)state;
  tally_t t;
  assert_int_equal(run("Backward", &t), 0);
  assert_int_equal(t.fail, 0);
  assert_int_equal(t.noimpl + t.skip, 0);
  assert_true(t.pass >= 200);
  assert_int_equal(run("NLLLossBackward", &t), 0);
  assert_int_equal(t.fail, 0);
  assert_true(t.pass >= 30);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reference_passes_every_configured_case),
      cmocka_unit_test(layer_norm_of_empty_rows_matches_pytorch),
      cmocka_unit_test(linear_with_no_out_features_matches_pytorch),
      cmocka_unit_test(backward_of_every_requires_grad_entry_passes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
