/* `backplane optest` over tests/data/ops_diopi, the cases generated from
 * DIOPI's own test configurations (scripts/make_diopi_config_cases.py,
 * PyTorch the oracle): the reference library passes every case (the runner
 * calls every op), the total line counts them, every op of issue 25's
 * breadth list has cases, and the configured edge cases that once failed
 * (empty layer_norm rows, linear with no out features, masked_fill whose
 * mask broadcasts past its input) pass, and so do the backward cases of the
 * entries with requires_grad. Run with the argument "large", it runs
 * DIOPI's large shapes instead (inputs regenerated from their seeds,
 * outputs judged by sample and sums): a CTest entry of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
static bool large; /* the "large" run: only the cases named .../large */

/* Runs optest over the DIOPI-configured cases of this run (the filter
 * among them); returns its exit code. The per-op rows with at least one
 * pass are appended to `rows` (may be NULL; size bytes). */
static int run_rows(const char *filter, tally_t *t, char *rows, size_t size) {
  char command[2048];
  snprintf(command, sizeof command, "%s optest --quick --data %s%s%s %s",
           BP_TOOL_PATH, BP_DIOPI_CASES, filter ? " --filter " : "",
           filter ? filter : "",
           large ? "--filter /large" : "--exclude /large");
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
    char op[128];
    int pass = 0;
    if (rows && sscanf(line, "diopi%127s %d", op, &pass) == 2 && pass > 0 &&
        strlen(rows) + strlen(op) + 3 < size) {
      strcat(rows, " ");
      strcat(rows, op);
      strcat(rows, " ");
    }
  }
  int status = pclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run(const char *filter, tally_t *t) {
  return run_rows(filter, t, NULL, 0);
}

/* The whole run's tally and per-op rows, made once. */
static tally_t whole;
static char rows[1 << 16];
static int whole_status = -2;

static int whole_run(void) {
  if (whole_status == -2)
    whole_status = run_rows(NULL, &whole, rows, sizeof rows);
  return whole_status;
}

static void reference_passes_every_configured_case(void **state) {
  (void)state;
  assert_int_equal(whole_run(), 0);
  tally_t t = whole;
  assert_int_equal(t.fail, 0);
  /* The runner calls every configured op, the in-place and scalar forms
   * too (DivInp, DivScalar, SigmoidInp, SiluInp, TanhInp were skipped). */
  assert_int_equal(t.skip, 0);
  assert_true(t.pass >= (large ? 500 : 5000));
  assert_int_equal(t.total_pass, t.pass);
  assert_int_equal(t.total_cases, t.pass + t.fail + t.noimpl + t.skip);
}

/* The DIOPI functions of issue 25's breadth list (item 1) that DIOPI's
 * configurations test: each has at least one passing configured case. */
static const char *const kBreadthOps[] = {"Abs",
                                          "Addcdiv",
                                          "Addcmul",
                                          "Amax",
                                          "Any",
                                          "All",
                                          "Arange",
                                          "Argmax",
                                          "Argmin",
                                          "AvgPool2d",
                                          "AvgPool2dBackward",
                                          "Baddbmm",
                                          "BCELoss",
                                          "BCELossBackward",
                                          "BCEWithLogits",
                                          "BCEWithLogitsBackward",
                                          "BitwiseAnd",
                                          "BitwiseOr",
                                          "BitwiseNot",
                                          "ClampScalar",
                                          "Clamp",
                                          "ClampMinScalar",
                                          "ClampMaxScalar",
                                          "ClampMin",
                                          "ClampMax",
                                          "ClipGradNorm",
                                          "Cumsum",
                                          "Erf",
                                          "Exp",
                                          "Log",
                                          "Log2",
                                          "Log10",
                                          "Log1p",
                                          "Eq",
                                          "Ne",
                                          "Lt",
                                          "Le",
                                          "Gt",
                                          "Ge",
                                          "EqScalar",
                                          "LogicalAnd",
                                          "LogicalOr",
                                          "LogicalNot",
                                          "Flip",
                                          "Gather",
                                          "GatherBackward",
                                          "GroupNorm",
                                          "GroupNormBackward",
                                          "IndexPut",
                                          "UpsampleNearest",
                                          "UpsampleLinear",
                                          "IsNan",
                                          "LeakyRelu",
                                          "LeakyReluBackward",
                                          "Hardswish",
                                          "HardswishBackward",
                                          "Hardtanh",
                                          "HardtanhBackward",
                                          "Threshold",
                                          "ThresholdBackward",
                                          "LerpScalar",
                                          "LerpTensor",
                                          "Linspace",
                                          "MaskedFill",
                                          "MaskedFillScalar",
                                          "MaskedSelect",
                                          "Max",
                                          "MaxAll",
                                          "Min",
                                          "MinAll",
                                          "MSELoss",
                                          "MSELossBackward",
                                          "SmoothL1Loss",
                                          "SmoothL1LossBackward",
                                          "Neg",
                                          "Nonzero",
                                          "Norm",
                                          "OneHot",
                                          "Pad",
                                          "Pow",
                                          "PowTensor",
                                          "PowScalar",
                                          "Prod",
                                          "Reciprocal",
                                          "Repeat",
                                          "Roll",
                                          "Rsqrt",
                                          "Scatter",
                                          "ScatterScalar",
                                          "Sign",
                                          "Sin",
                                          "Cos",
                                          "Sort",
                                          "SplitWithSizes",
                                          "Sqrt",
                                          "Stack",
                                          "Std",
                                          "Topk",
                                          "Tril",
                                          "Triu",
                                          "Where",
                                          "Embedding",
                                          "EmbeddingBackward",
                                          "ConvTranspose2d",
                                          "ConvTranspose2dBackward",
                                          "RMSNorm",
                                          "RMSNormBackward",
                                          "Adam",
                                          "AdamW",
                                          "Sgd",
                                          "Rmsprop",
                                          "Floor",
                                          "Ceil",
                                          "Expand",
                                          "AdaptiveMaxPool2d",
                                          "UniformInp",
                                          "NormalInp",
                                          "Randperm",
                                          "Dropout"};

static void every_breadth_op_has_passing_cases(void **state) {
  (void)state;
  assert_int_equal(whole_run(), 0);
  char missing[4096] = "";
  for (size_t i = 0; i < sizeof kBreadthOps / sizeof kBreadthOps[0]; i++) {
    char needle[96];
    snprintf(needle, sizeof needle, " %s ", kBreadthOps[i]);
    if (!strstr(rows, needle) && strlen(missing) + strlen(needle) < 4000)
      strcat(missing, needle);
  }
  if (missing[0])
    print_error("no passing case: %s\n", missing);
  assert_string_equal(missing, "");
}

/* DIOPI's masked_fill_*_without_inplace entries: the mask broadcasts past
 * the input ([1, 3] with a [4, 3] mask gives [4, 3], as in PyTorch); the
 * reference library refused these before. */
static void masked_fill_broadcasts_input_to_mask(void **state) {
  (void)state;
  tally_t t;
  assert_int_equal(run("masked_fill_scalar_without_inplace", &t), 0);
  assert_int_equal(t.fail, 0);
  assert_true(t.pass >= 30);
  assert_int_equal(run("masked_fill_tensor_without_inplace", &t), 0);
  assert_int_equal(t.fail, 0);
  assert_true(t.pass >= 8);
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

int main(int argc, char **argv) {
  large = argc > 1 && !strcmp(argv[1], "large");
  if (large) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_passes_every_configured_case),
    };
    return cmocka_run_group_tests_name("diopi_configs_large", tests, NULL,
                                       NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reference_passes_every_configured_case),
      cmocka_unit_test(every_breadth_op_has_passing_cases),
      cmocka_unit_test(masked_fill_broadcasts_input_to_mask),
      cmocka_unit_test(layer_norm_of_empty_rows_matches_pytorch),
      cmocka_unit_test(linear_with_no_out_features_matches_pytorch),
      cmocka_unit_test(backward_of_every_requires_grad_entry_passes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
