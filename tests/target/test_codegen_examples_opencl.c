/* examples/codegen's IR (bias_gelu.json, row_softmax.json; multi-stage with
 * 1 MiB intermediates) built for the live opencl device and for the live
 * vcpu device, launched on each with the same kind of param block, and
 * compared with each other and with plain C. CTest runs it per OpenCL
 * memory path. SKIPs when no OpenCL platform exists. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/build.h"
#include "support/runtime_fixture.h"

typedef struct examples_fixture {
  bp_runtime_t *runtime;
  bp_device_t *opencl, *vcpu;
  bp_stream_t *opencl_stream, *vcpu_stream;
} examples_fixture_t;

static char *read_example(const char *name) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", EXAMPLES_DIR, name);
  FILE *file = fopen(path, "rb");
  if (!file)
    fail_msg("cannot open %s", path);
  static char text[1 << 16];
  size_t length = fread(text, 1, sizeof(text) - 1, file);
  fclose(file);
  text[length] = '\0';
  return text;
}

/* Builds `file` for `device`'s target, launches `name` on it with tensors
 * `count` host arrays (copied to the device and back: `out` is the last),
 * and returns the output in `out`. */
static void run_on(bp_device_t *device, bp_stream_t *stream, const char *file,
                   const char *name, float *const *tensors, const size_t *bytes,
                   size_t count) {
  bp_target_t *target;
  bp_ir_module_t *ir;
  bp_built_module_t *built;
  assert_int_equal(bp_target_from_device(device, &target), BP_OK);
  assert_int_equal(bp_ir_module_parse(read_example(file), &ir), BP_OK);
  bp_build_options_t options = {sizeof(options), NULL, 1};
  if (bp_build(ir, target, &options, &built) != BP_OK)
    fail_msg("bp_build %s: %s", file, bp_last_error());
  bp_generated_params_t params = {{NULL}};
  for (size_t t = 0; t < count; t++) {
    assert_int_equal(bp_device_malloc(device, bytes[t], &params.tensors[t]),
                     BP_OK);
    assert_int_equal(
        bp_copy(device, params.tensors[t], NULL, tensors[t], bytes[t], NULL),
        BP_OK);
  }
  bp_module_t *module;
  bp_function_t *function;
  if (bp_built_module_load(built, device, &module) != BP_OK)
    fail_msg("load %s: %s", file, bp_last_error());
  assert_int_equal(bp_module_function(module, name, &function), BP_OK);
  if (bp_launch(function, bp_built_module_blocks(built, name), &params,
                sizeof(params), NULL, stream) != BP_OK ||
      bp_stream_synchronize(stream) != BP_OK)
    fail_msg("%s: %s", name, bp_last_error());
  assert_int_equal(bp_copy(NULL, tensors[count - 1], device,
                           params.tensors[count - 1], bytes[count - 1], NULL),
                   BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
  for (size_t t = 0; t < count; t++)
    assert_int_equal(bp_device_free(device, params.tensors[t]), BP_OK);
  bp_built_module_destroy(built);
  bp_ir_module_destroy(ir);
  bp_target_destroy(target);
}

/* Fails where `got` differs from `expected` by more than `tolerance`. */
static void compare(const char *what, const float *got, const float *expected,
                    size_t n, double tolerance) {
  for (size_t i = 0; i < n; i++)
    if (!(fabs((double)got[i] - expected[i]) <= tolerance))
      fail_msg("%s: element %zu is %.9g, expected %.9g (tolerance %g)", what, i,
               got[i], expected[i], tolerance);
}

/* Runs `name` of `file` on opencl and on vcpu with the inputs (`count`
 * tensors before the output, the last of `bytes`) and compares both
 * outputs with `expected`, and with each other. */
static void check_example(examples_fixture_t *f, const char *file,
                          const char *name, float *const *inputs,
                          const size_t *bytes, size_t count,
                          const float *expected, double tolerance) {
  size_t n = bytes[count] / sizeof(float);
  float *on_opencl = calloc(n, sizeof(float));
  float *on_vcpu = calloc(n, sizeof(float));
  assert_true(on_opencl && on_vcpu);
  float *tensors[8];
  memcpy(tensors, inputs, count * sizeof(*inputs));
  tensors[count] = on_opencl;
  run_on(f->opencl, f->opencl_stream, file, name, tensors, bytes, count + 1);
  tensors[count] = on_vcpu;
  run_on(f->vcpu, f->vcpu_stream, file, name, tensors, bytes, count + 1);
  char what[128];
  snprintf(what, sizeof(what), "%s on opencl vs C", name);
  compare(what, on_opencl, expected, n, tolerance);
  snprintf(what, sizeof(what), "%s on opencl vs vcpu", name);
  compare(what, on_opencl, on_vcpu, n, tolerance);
  free(on_opencl);
  free(on_vcpu);
}

static void bias_gelu(void **state) {
  enum { R = 256, C = 1024 };
  float *x = malloc(sizeof(float) * R * C), bias[C];
  float *expected = malloc(sizeof(float) * R * C);
  assert_true(x && expected);
  srand(5);
  for (int i = 0; i < R * C; i++)
    x[i] = (float)(rand() % 2001 - 1000) / 250.0f;
  for (int j = 0; j < C; j++)
    bias[j] = (float)(rand() % 201 - 100) / 100.0f;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      double h = (double)x[i * C + j] + bias[j];
      expected[i * C + j] = (float)(0.5 * h * (1.0 + erf(h * 0.70710678)));
    }
  const size_t bytes[] = {sizeof(float) * R * C, sizeof(bias),
                          sizeof(float) * R * C};
  float *const inputs[] = {x, bias};
  check_example(*state, "bias_gelu.json", "bias_gelu", inputs, bytes, 2,
                expected, 1e-5);
  free(x);
  free(expected);
}

static void row_softmax(void **state) {
  enum { R = 512, C = 384 };
  float *x = malloc(sizeof(float) * R * C);
  float *expected = malloc(sizeof(float) * R * C);
  assert_true(x && expected);
  srand(6);
  for (int i = 0; i < R * C; i++)
    x[i] = (float)(rand() % 2001 - 1000) / 100.0f;
  for (int i = 0; i < R; i++) {
    double max = x[i * C], sum = 0;
    for (int j = 1; j < C; j++)
      max = fmax(max, x[i * C + j]);
    for (int j = 0; j < C; j++)
      sum += exp(x[i * C + j] - max);
    for (int j = 0; j < C; j++)
      expected[i * C + j] = (float)(exp(x[i * C + j] - max) / sum);
  }
  const size_t bytes[] = {sizeof(float) * R * C, sizeof(float) * R * C};
  float *const inputs[] = {x};
  check_example(*state, "row_softmax.json", "row_softmax", inputs, bytes, 1,
                expected, 1e-6);
  free(x);
  free(expected);
}

static int setup(void **state) {
  examples_fixture_t *f = calloc(1, sizeof(*f));
  assert_non_null(f);
  f->runtime = fixture_runtime(BP_VCPU_PLUGIN ":" OPENCL_PLUGIN_PATH);
  assert_int_equal(bp_device_get(f->runtime, "vcpu", 0, &f->vcpu), BP_OK);
  assert_int_equal(bp_stream_create(f->vcpu, &f->vcpu_stream), BP_OK);
  if (bp_device_get(f->runtime, "opencl", 0, &f->opencl) != BP_OK)
    /* No OpenCL platform: the plugin was rejected; the tests skip. */
    print_message("SKIP: no opencl device: %s\n", bp_last_error());
  else
    assert_int_equal(bp_stream_create(f->opencl, &f->opencl_stream), BP_OK);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  examples_fixture_t *f = *state;
  if (f->opencl)
    assert_int_equal(bp_stream_destroy(f->opencl_stream), BP_OK);
  assert_int_equal(bp_stream_destroy(f->vcpu_stream), BP_OK);
  bp_runtime_destroy(f->runtime);
  free(f);
  return 0;
}

static int need_opencl(void **state) {
  examples_fixture_t *f = *state;
  if (!f->opencl)
    skip();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(bias_gelu, need_opencl),
      cmocka_unit_test_setup(row_softmax, need_opencl),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
