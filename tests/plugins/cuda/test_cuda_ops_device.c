/* The cuda op library on a GPU, through the `backplane` command: optest
 * picks it for cuda devices by itself (no --ops) and every case of the ops
 * it implements passes against the PyTorch-made baselines (tests/data/ops;
 * variants it leaves out, such as float64, say NOIMPL); `backplane train
 * --device cuda --devices 1` reaches the accuracy the same run reaches on
 * vcpu, for the MLP and the CNN. Without a GPU it exits 77 (skipped),
 * printing why. */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tools/tool_runner.h"

/* Runs `backplane ARGS --json` and returns the parsed output; the run must
 * succeed. */
static json_t *run_json(const char *const *args) {
  const char *argv[32];
  size_t n = 0;
  for (; args[n]; n++)
    argv[n] = args[n];
  argv[n++] = "--json";
  argv[n] = NULL;
  tool_run_t run;
  assert_int_equal(tool_run(argv, NULL, &run), 0);
  if (run.exit_code != 0)
    fail_msg("backplane %s exited %d: %s", args[0], run.exit_code, run.err);
  json_t *root = json_loads(run.out, 0, NULL);
  assert_non_null(root);
  tool_run_release(&run);
  return root;
}

static json_int_t total(json_t *root, const char *key) {
  return json_integer_value(
      json_object_get(json_object_get(root, "total"), key));
}

/* One optest run over every baseline: no case fails, and each op the
 * library implements passes at least one case. */
static void optest_passes_every_implemented_op(void **state) {
  (void)state;
  static const char *const ops[] = {
      "diopiMm",
      "diopiBmm",
      "diopiAddmm",
      "diopiMatmul",
      "diopiLinear",
      "diopiLinearBackward",
      "diopiRelu",
      "diopiReluInp",
      "diopiThresholdBackward",
      "diopiCrossEntropyLoss",
      "diopiCrossEntropyLossBackward",
      "diopiArgmax",
      "diopiAdamW",
      "diopiConvolution2d",
      "diopiConvolution2dBackward",
      "diopiMaxPool2dWithIndices",
      "diopiMaxPool2dBackward",
      "diopiFill",
  };
  json_t *root = run_json(
      (const char *[]){"optest", "--device", "cuda:0", "--quick", NULL});
  const char *library = json_string_value(json_object_get(root, "library"));
  assert_non_null(strstr(library, "libbackplane_cuda_ops.so"));
  json_t *cases = json_object_get(root, "cases");
  size_t passed[sizeof ops / sizeof ops[0]] = {0}, failed = 0;
  for (size_t c = 0; c < json_array_size(cases); c++) {
    json_t *one = json_array_get(cases, c);
    const char *result = json_string_value(json_object_get(one, "result"));
    const char *op = json_string_value(json_object_get(one, "op"));
    if (!strcmp(result, "NOIMPL"))
      continue;
    printf("%-6s %s %s\n", result,
           json_string_value(json_object_get(one, "case")),
           json_string_value(json_object_get(one, "detail")));
    failed += !strcmp(result, "FAIL");
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
      passed[i] += !strcmp(op, ops[i]) && !strcmp(result, "PASS");
  }
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!passed[i])
      fail_msg("%s: no case passed", ops[i]);
  assert_int_equal(failed, 0);
  assert_int_equal(total(root, "fail"), 0);
  json_decref(root);
}

static double accuracy(json_t *root) {
  return json_number_value(json_object_get(root, "test_accuracy"));
}

/* The digits beside a staged build (scripts/gpu-check.sh copies them to
 * <build>/data where the GPU machine has no python3-sklearn), or NULL:
 * train's default. */
static const char *staged_digits(void) {
  static char path[4096];
  const char *slash = strrchr(BP_TOOL_PATH, '/');
  snprintf(path, sizeof path, "%.*s/../data/digits.csv.gz",
           (int)(slash - BP_TOOL_PATH), BP_TOOL_PATH);
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fclose(file);
  return path;
}

/* The same run on cuda and vcpu: both reach `least`, and within 2 points
 * of each other (sums run in another order on the GPU). */
static void trains_like_vcpu(const char *const *args, double least) {
  const char *cuda[24] = {"train", "--device", "cuda", "--devices", "1"};
  const char *vcpu[24] = {"train", "--device", "vcpu", "--devices", "1"};
  size_t n = 5;
  for (; args[n - 5]; n++)
    cuda[n] = vcpu[n] = args[n - 5];
  const char *digits = staged_digits();
  if (digits) {
    cuda[n] = vcpu[n] = "--data";
    n++;
    cuda[n] = vcpu[n] = digits;
    n++;
  }
  cuda[n] = vcpu[n] = NULL;
  json_t *a = run_json(cuda), *b = run_json(vcpu);
  printf("%s: cuda %.2f %%, vcpu %.2f %%\n", args[1], 100 * accuracy(a),
         100 * accuracy(b));
  assert_string_equal(json_string_value(json_object_get(a, "device_type")),
                      "cuda");
  assert_true(accuracy(a) >= least);
  assert_true(fabs(accuracy(a) - accuracy(b)) <= 0.02);
  json_decref(a);
  json_decref(b);
}

static void mlp_trains_like_vcpu(void **state) {
  (void)state;
  trains_like_vcpu((const char *[]){"--model", "mlp", NULL}, 0.95);
}

static void cnn_trains_like_vcpu(void **state) {
  (void)state;
  trains_like_vcpu((const char *[]){"--model", "cnn", "--epochs", "8", "--lr",
                                    "0.004", NULL},
                   0.95);
}

int main(void) {
  tool_run_t probe;
  if (tool_run((const char *[]){"optest", "--device", "cuda:0", "--filter",
                                "diopiMm", "--quick", NULL},
               NULL, &probe) != 0) {
    printf("SKIP: backplane cannot be run\n");
    return 77;
  }
  bool no_device = probe.exit_code != 0 && strstr(probe.err, "cuda:0");
  if (no_device)
    printf("SKIP: no cuda device: %s", probe.err);
  tool_run_release(&probe);
  if (no_device)
    return 77;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(optest_passes_every_implemented_op),
      cmocka_unit_test(mlp_trains_like_vcpu),
      cmocka_unit_test(cnn_trains_like_vcpu),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
