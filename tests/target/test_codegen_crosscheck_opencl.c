/* The codegen cross-check cases (codegen_cases.h) through the opencl
 * builder: the IR lowered to OpenCL C, compiled by the OpenCL driver (POCL
 * here) when the module loads, launched with bp_launch and the same
 * bp_generated_params_t the vcpu builder's functions take (device addresses
 * instead of host ones), and compared to the hand-written C references.
 * OpenCL's exp, log, tanh and erf may be a few ulp off (the OpenCL C
 * specification's bounds), so those cases get 1e-5 instead of 1e-6. Also:
 * several output stages (a kernel each), intermediate stages in the
 * per-launch scratch (small, 1 MiB far past any local memory, and one
 * function on two streams at once), the
 * refusals (a direct host call, C source, a NULL tensor, generated
 * modules whose descriptor is malformed) and the source cache. CTest runs it
 * per memory path (SVM, and buffers mapped back to cl_mem): the same param
 * block works on both. SKIPs when no OpenCL platform exists. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/build.h"
#include "support/runtime_fixture.h"

#include "codegen_cases.h"

typedef struct opencl_fixture {
  bp_runtime_t *runtime;
  bp_device_t *device;
  bp_stream_t *stream;
  char cache_dir[64];
  /* Device copies of X, Z, W, H and the output. */
  void *x, *z, *w, *h, *y;
} opencl_fixture_t;

static void upload_inputs(opencl_fixture_t *f) {
  assert_int_equal(bp_copy(f->device, f->x, NULL, X, sizeof X, NULL), BP_OK);
  assert_int_equal(bp_copy(f->device, f->z, NULL, Z, sizeof Z, NULL), BP_OK);
  assert_int_equal(bp_copy(f->device, f->w, NULL, W, sizeof W, NULL), BP_OK);
  assert_int_equal(bp_copy(f->device, f->h, NULL, H, sizeof H, NULL), BP_OK);
}

static bp_built_module_t *build(opencl_fixture_t *f, const char *ir,
                                const bp_target_t *target) {
  bp_ir_module_t *module;
  if (bp_ir_module_parse(ir, &module) != BP_OK)
    fail_msg("%s", bp_last_error());
  bp_build_options_t options = {sizeof(options), f->cache_dir, 0};
  bp_built_module_t *built;
  if (bp_build(module, target, &options, &built) != BP_OK)
    fail_msg("bp_build: %s", bp_last_error());
  bp_ir_module_destroy(module);
  return built;
}

/* Loads `built` on the device, launches `name` with its blocks and the
 * param block, waits; returns the launch's status. */
static bp_status_t launch(opencl_fixture_t *f, const bp_built_module_t *built,
                          const char *name,
                          const bp_generated_params_t *params) {
  bp_module_t *module;
  if (bp_built_module_load(built, f->device, &module) != BP_OK)
    fail_msg("bp_built_module_load: %s", bp_last_error());
  bp_function_t *function;
  assert_int_equal(bp_module_function(module, name, &function), BP_OK);
  bp_status_t status = bp_launch(function, bp_built_module_blocks(built, name),
                                 params, sizeof(*params), NULL, f->stream);
  if (status == BP_OK && bp_stream_synchronize(f->stream) != BP_OK)
    fail_msg("%s: %s", name, bp_last_error());
  assert_int_equal(bp_module_unload(module), BP_OK);
  return status;
}

static int transcendental(const cross_case_t *c) {
  static const char *const names[] = {"exp", "log", "tanh", "erf"};
  for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
    if (!strcmp(c->name, names[i]))
      return 1;
  return 0;
}

static void check_case(opencl_fixture_t *f, const cross_case_t *c,
                       const bp_target_t *target, const char *target_text) {
  bp_built_module_t *built = build(f, case_ir(c), target);
  bp_generated_params_t params = {{f->x, f->z, f->w, f->h, f->y}};
  float y[R * C];
  memset(y, 0xff, sizeof(y));
  assert_int_equal(bp_copy(f->device, f->y, NULL, y, sizeof(y), NULL), BP_OK);
  if (launch(f, built, "f", &params) != BP_OK)
    fail_msg("%s: %s", c->name, bp_last_error());
  assert_int_equal(bp_copy(NULL, y, f->device, f->y, sizeof(y), NULL), BP_OK);
  cross_case_t relaxed = *c;
  if (transcendental(c))
    relaxed.tolerance = 1e-5;
  check_output(&relaxed, target_text, "launched on OpenCL", y);
  bp_built_module_destroy(built);
}

static void every_construct(void **state) {
  opencl_fixture_t *f = *state;
  bp_target_t *live, *parsed;
  assert_int_equal(bp_target_from_device(f->device, &live), BP_OK);
  assert_int_equal(
      bp_target_parse("opencl -num_cores=3 -vector_width=4", &parsed), BP_OK);
  for (unsigned seed = 1; seed <= 2; seed++) {
    fill_inputs(seed);
    upload_inputs(f);
    for (size_t c = 0; c < case_count; c++) {
      check_case(f, &cases[c], live, "the live device's target");
      check_case(f, &cases[c], parsed, "opencl -num_cores=3 -vector_width=4");
    }
  }
  bp_target_destroy(parsed);
  bp_target_destroy(live);
}

/* Two output stages, the second reading the first transposed: two kernels
 * in order on the stream. */
static void output_stages(void **state) {
  opencl_fixture_t *f = *state;
  static const char ir[] =
      "{\"functions\":[{\"name\":\"t\",\"inputs\":[{\"name\":\"x\",\"shape\":"
      "[13,21],\"dtype\":\"float32\"}],\"stages\":["
      "{\"name\":\"out\",\"shape\":[21,13],\"dtype\":\"float32\",\"axes\":"
      "[\"i\",\"j\"],\"expr\":{\"load\":\"e\",\"index\":[\"j\",\"i\"]}},"
      "{\"name\":\"e\",\"shape\":[13,21],\"dtype\":\"float32\",\"axes\":"
      "[\"i\",\"j\"],\"expr\":{\"op\":\"mul\",\"args\":[\"x\",2.0]}}],"
      "\"outputs\":[\"e\",\"out\"]}]}";
  bp_target_t *target;
  assert_int_equal(bp_target_parse("opencl -num_cores=4", &target), BP_OK);
  bp_built_module_t *built = build(f, ir, target);
  assert_int_equal(bp_built_module_blocks(built, "t"), 1);
  fill_inputs(7);
  upload_inputs(f);
  void *out;
  assert_int_equal(bp_device_malloc(f->device, 21 * 13 * sizeof(float), &out),
                   BP_OK);
  bp_generated_params_t params = {{f->x, f->y, out}};
  assert_int_equal(launch(f, built, "t", &params), BP_OK);
  float e[13 * 21], transposed[21 * 13];
  assert_int_equal(bp_copy(NULL, e, f->device, f->y, sizeof(e), NULL), BP_OK);
  assert_int_equal(
      bp_copy(NULL, transposed, f->device, out, sizeof(transposed), NULL),
      BP_OK);
  for (int i = 0; i < 13; i++)
    for (int j = 0; j < 21; j++) {
      assert_float_equal(e[i * 21 + j], X[i][j] * 2.0f, 0);
      assert_float_equal(transposed[j * 13 + i], X[i][j] * 2.0f, 0);
    }
  assert_int_equal(bp_device_free(f->device, out), BP_OK);
  bp_built_module_destroy(built);
  bp_target_destroy(target);
}

/* out = e + 1 over an intermediate stage e = 2 x, both [ROWS, COLS]. */
static char *intermediate_ir(int rows, int cols) {
  static char ir[1024];
  snprintf(ir, sizeof(ir),
           "{\"functions\":[{\"name\":\"t\",\"inputs\":[{\"name\":\"x\","
           "\"shape\":[%d,%d],\"dtype\":\"float32\"}],\"stages\":["
           "{\"name\":\"out\",\"shape\":[%d,%d],\"dtype\":\"float32\","
           "\"axes\":[\"i\",\"j\"],"
           "\"expr\":{\"op\":\"add\",\"args\":[\"e\",1]}},"
           "{\"name\":\"e\",\"shape\":[%d,%d],\"dtype\":\"float32\","
           "\"axes\":[\"i\",\"j\"],"
           "\"expr\":{\"op\":\"mul\",\"args\":[\"x\",2.0]}}],"
           "\"outputs\":[\"out\"]}]}",
           rows, cols, rows, cols, rows, cols);
  return ir;
}

/* The generated module's descriptor for the small intermediate, and its
 * result. */
static void intermediate_stage_in_scratch(void **state) {
  opencl_fixture_t *f = *state;
  bp_target_t *target;
  assert_int_equal(
      bp_target_parse("opencl -max_shared_memory_per_block=8", &target), BP_OK);
  bp_built_module_t *built = build(f, intermediate_ir(1, 4), target);
  const char *source = bp_built_module_source(built);
  assert_non_null(strstr(source, "//@bp generated-opencl 1\n"));
  assert_non_null(strstr(source, "//@bp function t params 2 16 16 scratch 256 "
                                 "stages 2\n//@bp stage t__s0 items 4\n"
                                 "//@bp stage t__s1 items 4\n"));
  assert_non_null(strstr(source, "t_e = (global float *)(bp_scratch + 0L);"));
  const float x[4] = {1.5f, -2.0f, 0.25f, 8.0f};
  assert_int_equal(bp_copy(f->device, f->x, NULL, x, sizeof(x), NULL), BP_OK);
  bp_generated_params_t params = {{f->x, f->y}};
  assert_int_equal(launch(f, built, "t", &params), BP_OK);
  float out[4];
  assert_int_equal(bp_copy(NULL, out, f->device, f->y, sizeof(out), NULL),
                   BP_OK);
  for (int i = 0; i < 4; i++)
    assert_float_equal(out[i], x[i] * 2.0f + 1.0f, 0);
  bp_built_module_destroy(built);
  bp_target_destroy(target);
}

/* A 1 MiB intermediate stage (no device's local memory holds it), with the
 * tensors at offsets inside their allocations. */
static void large_intermediate_at_offsets(void **state) {
  opencl_fixture_t *f = *state;
  enum { ROWS = 512, COLS = 512, N = ROWS * COLS, SKEW = 3 };
  bp_target_t *target;
  assert_int_equal(bp_target_from_device(f->device, &target), BP_OK);
  bp_built_module_t *built = build(f, intermediate_ir(ROWS, COLS), target);
  float *x = malloc(sizeof(float) * N), *out = malloc(sizeof(float) * N);
  assert_non_null(x);
  assert_non_null(out);
  for (int i = 0; i < N; i++)
    x[i] = (float)(i % 1000) - 500.0f;
  float *device_x, *device_out;
  assert_int_equal(bp_device_malloc(f->device, sizeof(float) * (N + SKEW),
                                    (void **)&device_x),
                   BP_OK);
  assert_int_equal(bp_device_malloc(f->device, sizeof(float) * (N + SKEW),
                                    (void **)&device_out),
                   BP_OK);
  assert_int_equal(
      bp_copy(f->device, device_x + SKEW, NULL, x, sizeof(float) * N, NULL),
      BP_OK);
  bp_generated_params_t params = {{device_x + SKEW, device_out + SKEW}};
  assert_int_equal(launch(f, built, "t", &params), BP_OK);
  assert_int_equal(
      bp_copy(NULL, out, f->device, device_out + SKEW, sizeof(float) * N, NULL),
      BP_OK);
  for (int i = 0; i < N; i++)
    if (out[i] != x[i] * 2.0f + 1.0f)
      fail_msg("element %d: %g, expected %g", i, out[i], x[i] * 2.0f + 1.0f);
  /* A missing tensor is refused, naming it. */
  params.tensors[1] = NULL;
  bp_module_t *module;
  bp_function_t *function;
  assert_int_equal(bp_built_module_load(built, f->device, &module), BP_OK);
  assert_int_equal(bp_module_function(module, "t", &function), BP_OK);
  assert_int_not_equal(
      bp_launch(function, 1, &params, sizeof(params), NULL, f->stream), BP_OK);
  assert_non_null(strstr(bp_last_error(), "tensor 1 of the param block"));
  assert_int_equal(bp_module_unload(module), BP_OK);
  assert_int_equal(bp_device_free(f->device, device_x), BP_OK);
  assert_int_equal(bp_device_free(f->device, device_out), BP_OK);
  free(x);
  free(out);
  bp_built_module_destroy(built);
  bp_target_destroy(target);
}

/* One function launched on two streams before either finishes: each launch
 * has scratch of its own, so neither sees the other's intermediate stage. */
static void two_streams_share_a_function(void **state) {
  opencl_fixture_t *f = *state;
  bp_target_t *target;
  assert_int_equal(bp_target_parse("opencl", &target), BP_OK);
  bp_built_module_t *built = build(f, intermediate_ir(R, C), target);
  fill_inputs(9);
  upload_inputs(f);
  /* The second launch reads z's buffer: X, again, scaled by -3. */
  float negated[R * C];
  for (int i = 0; i < R * C; i++)
    negated[i] = X[i / C][i % C] * -3.0f;
  assert_int_equal(
      bp_copy(f->device, f->z, NULL, negated, sizeof(negated), NULL), BP_OK);
  bp_stream_t *other;
  assert_int_equal(bp_stream_create(f->device, &other), BP_OK);
  bp_module_t *module;
  bp_function_t *function;
  assert_int_equal(bp_built_module_load(built, f->device, &module), BP_OK);
  assert_int_equal(bp_module_function(module, "t", &function), BP_OK);
  bp_generated_params_t first = {{f->x, f->y}}, second = {{f->z, f->w}};
  for (int round = 0; round < 8; round++) {
    assert_int_equal(
        bp_launch(function, 1, &first, sizeof(first), NULL, f->stream), BP_OK);
    assert_int_equal(
        bp_launch(function, 1, &second, sizeof(second), NULL, other), BP_OK);
  }
  assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(other), BP_OK);
  float y[R * C], w[R * C];
  assert_int_equal(bp_copy(NULL, y, f->device, f->y, sizeof(y), NULL), BP_OK);
  assert_int_equal(bp_copy(NULL, w, f->device, f->w, sizeof(w), NULL), BP_OK);
  for (int i = 0; i < R * C; i++) {
    assert_float_equal(y[i], X[i / C][i % C] * 2.0f + 1.0f, 0);
    assert_float_equal(w[i], negated[i] * 2.0f + 1.0f, 0);
  }
  assert_int_equal(bp_module_unload(module), BP_OK);
  assert_int_equal(bp_stream_destroy(other), BP_OK);
  bp_built_module_destroy(built);
  bp_target_destroy(target);
}

/* Loads `source` as a *.cl module; returns bp_module_load's status. */
static bp_status_t load_source(opencl_fixture_t *f, const char *source,
                               bp_module_t **out_module) {
  char path[128];
  snprintf(path, sizeof(path), "%s/hand.cl", f->cache_dir);
  FILE *file = fopen(path, "w");
  assert_non_null(file);
  fputs(source, file);
  assert_int_equal(fclose(file), 0);
  return bp_module_load(f->device, path, out_module);
}

/* Generated modules whose descriptor does not match the kernels: refused
 * with the reason (a stage kernel's arguments are checked when the function
 * is looked up, which bp_module_load does for every function). */
static void malformed_descriptors(void **state) {
  opencl_fixture_t *f = *state;
  static const struct {
    const char *descriptor, *error;
  } bad[] = {
      {"//@bp function t params 1 16 scratch 0 stages 2\n"
       "//@bp stage t__s0 items 4\n",
       "fewer stage lines"},
      {"//@bp stage t__s0 items 4\n", "line 2 is malformed"},
      /* Two parameter words would be five kernel arguments, not three. */
      {"//@bp function t params 2 16 16 scratch 0 stages 1\n"
       "//@bp stage t__s0 items 4\n",
       "takes 3 arguments, not the 5"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    char source[512];
    snprintf(source, sizeof(source),
             "//@bp generated-opencl 1\n%s"
             "kernel void t__s0(global uchar *b0, ulong o0, global uchar *s) "
             "{}\n",
             bad[i].descriptor);
    bp_module_t *module = NULL;
    bp_function_t *function;
    bp_status_t status = load_source(f, source, &module);
    if (status == BP_OK)
      status = bp_module_function(module, "t", &function);
    if (status == BP_OK || !strstr(bp_last_error(), bad[i].error))
      fail_msg("descriptor %zu: %s, not an error naming '%s': %s", i,
               bp_status_name(status), bad[i].error, bp_last_error());
    if (module)
      assert_int_equal(bp_module_unload(module), BP_OK);
  }
}

/* What the opencl builder refuses, and its cache of the source. */
static void refusals_and_cache(void **state) {
  opencl_fixture_t *f = *state;
  bp_target_t *target;
  assert_int_equal(bp_target_parse("opencl", &target), BP_OK);
  bp_build_options_t options = {sizeof(options), f->cache_dir, 0};
  bp_ir_module_t *module;
  bp_built_module_t *built = NULL;

  /* C source is for the C builders. */
  const char *const names[] = {"k", NULL};
  assert_int_equal(bp_ir_module_from_c("unsigned int k(void *p) { return 0; }",
                                       names, &module),
                   BP_OK);
  assert_int_equal(bp_build(module, target, &options, &built),
                   BP_ERR_UNSUPPORTED);
  assert_non_null(strstr(bp_last_error(), "C source"));
  bp_ir_module_destroy(module);

  /* The module is OpenCL C in a *.cl file, cached by (IR, target). */
  assert_int_equal(bp_ir_module_parse(case_ir(&cases[0]), &module), BP_OK);
  assert_int_equal(bp_build(module, target, &options, &built), BP_OK);
  assert_int_equal(bp_built_module_from_cache(built), 0);
  const char *path = bp_built_module_path(built);
  assert_string_equal(path + strlen(path) - 3, ".cl");
  assert_non_null(strstr(bp_built_module_source(built), "kernel void f__s0("));
  bp_generated_fn fn;
  assert_int_equal(bp_built_module_function(built, "f", &fn),
                   BP_ERR_UNSUPPORTED);
  bp_built_module_destroy(built);
  assert_int_equal(bp_build(module, target, &options, &built), BP_OK);
  assert_int_equal(bp_built_module_from_cache(built), 1);
  bp_built_module_destroy(built);
  bp_ir_module_destroy(module);
  bp_target_destroy(target);
}

static int setup(void **state) {
  opencl_fixture_t *f = calloc(1, sizeof(*f));
  assert_non_null(f);
  f->runtime = fixture_runtime(OPENCL_PLUGIN_PATH);
  if (bp_device_get(f->runtime, "opencl", 0, &f->device) != BP_OK) {
    /* No OpenCL platform: the plugin was rejected (bp_last_error says why);
     * the tests skip. */
    print_message("SKIP: no opencl device: %s\n", bp_last_error());
    *state = f;
    return 0;
  }
  snprintf(f->cache_dir, sizeof(f->cache_dir), "/tmp/bp-test-clx.XXXXXX");
  assert_non_null(mkdtemp(f->cache_dir));
  assert_int_equal(bp_stream_create(f->device, &f->stream), BP_OK);
  void **buffers[] = {&f->x, &f->z, &f->w, &f->h, &f->y};
  for (size_t i = 0; i < sizeof(buffers) / sizeof(*buffers); i++)
    assert_int_equal(bp_device_malloc(f->device, sizeof(X), buffers[i]), BP_OK);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  opencl_fixture_t *f = *state;
  if (f->device) {
    void *buffers[] = {f->x, f->z, f->w, f->h, f->y};
    for (size_t i = 0; i < sizeof(buffers) / sizeof(*buffers); i++)
      assert_int_equal(bp_device_free(f->device, buffers[i]), BP_OK);
    assert_int_equal(bp_stream_destroy(f->stream), BP_OK);
    char command[128];
    snprintf(command, sizeof(command), "rm -rf '%s'", f->cache_dir);
    assert_int_equal(system(command), 0);
  }
  bp_runtime_destroy(f->runtime);
  free(f);
  return 0;
}

static int need_device(void **state) {
  opencl_fixture_t *f = *state;
  if (!f->device)
    skip();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(every_construct, need_device),
      cmocka_unit_test_setup(output_stages, need_device),
      cmocka_unit_test_setup(intermediate_stage_in_scratch, need_device),
      cmocka_unit_test_setup(large_intermediate_at_offsets, need_device),
      cmocka_unit_test_setup(two_streams_share_a_function, need_device),
      cmocka_unit_test_setup(malformed_descriptors, need_device),
      cmocka_unit_test_setup(refusals_and_cache, need_device),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
