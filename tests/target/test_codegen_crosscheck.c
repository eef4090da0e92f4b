/* Generated code against hand-written C on random inputs, one case per IR
 * construct: arithmetic, comparisons, logic, intrinsics, select, casts,
 * axis values, broadcasting, constant indices, reductions (sum, max, min,
 * over one and two axes), int32 and float16/bfloat16 storage, several
 * stages, and a function that cannot be split into blocks. Each case runs
 * for two targets (different block counts and vector widths), called
 * directly (one block) and launched as a kernel with bp_launch on a vcpu
 * device (the target's num_cores blocks). */
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

static const char *const targets[] = {"vcpu -num_cores=3 -vector_width=4",
                                      "c -num_cores=1 -vector_width=8"};

/* The vcpu device and stream bp_launch runs on (group setup). */
static bp_runtime_t *runtime;
static bp_device_t *vcpu;
static bp_stream_t *stream;

/* Launches `name` of `built` on the vcpu device with its blocks and waits. */
static void launch_generated(const bp_built_module_t *built, const char *name,
                             uint32_t blocks,
                             const bp_generated_params_t *params) {
  bp_module_t *module;
  if (bp_built_module_load(built, vcpu, &module) != BP_OK)
    fail_msg("bp_built_module_load: %s", bp_last_error());
  bp_function_t *function;
  assert_int_equal(bp_module_function(module, name, &function), BP_OK);
  assert_string_equal(bp_function_name(function), name);
  assert_int_equal(
      bp_launch(function, blocks, params, sizeof(*params), NULL, stream),
      BP_OK);
  if (bp_stream_synchronize(stream) != BP_OK)
    fail_msg("%s: %s", name, bp_last_error());
  assert_int_equal(bp_module_unload(module), BP_OK);
}

static void check_case(const cross_case_t *c, const char *target_text,
                       const char *cache_dir) {
  bp_ir_module_t *module;
  if (bp_ir_module_parse(case_ir(c), &module) != BP_OK)
    fail_msg("%s: %s", c->name, bp_last_error());
  bp_target_t *target;
  assert_int_equal(bp_target_parse(target_text, &target), BP_OK);
  bp_build_options_t options = {sizeof(options), cache_dir, 0};
  bp_built_module_t *built;
  if (bp_build(module, target, &options, &built) != BP_OK)
    fail_msg("%s: %s", c->name, bp_last_error());
  float y[R * C];
  bp_generated_params_t params = {{X, Z, W, H, y}};
  bp_generated_fn fn;
  assert_int_equal(bp_built_module_function(built, "f", &fn), BP_OK);
  memset(y, 0xff, sizeof(y));
  assert_int_equal(fn(&params), 0);
  check_output(c, target_text, "called", y);
  uint32_t blocks = bp_built_module_blocks(built, "f");
  memset(y, 0xff, sizeof(y));
  launch_generated(built, "f", blocks, &params);
  check_output(c, target_text, "launched", y);
  bp_built_module_destroy(built);
  bp_target_destroy(target);
  bp_ir_module_destroy(module);
}

static void test_every_construct(void **state) {
  const char *cache_dir = *state;
  for (unsigned seed = 1; seed <= 3; seed++) {
    fill_inputs(seed);
    for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
      for (size_t c = 0; c < case_count; c++)
        check_case(&cases[c], targets[t], cache_dir);
  }
}

/* Row softmax in four stages (split by rows), and a transpose of an
 * intermediate stage, which cannot be split (block 0 runs it all). */
static void test_stages_and_unsplittable(void **state) {
  const char *cache_dir = *state;
  static const char ir[] =
      "{\"functions\":[{\"name\":\"t\",\"inputs\":[{\"name\":\"x\",\"shape\":"
      "[13,21],\"dtype\":\"float32\"}],\"stages\":["
      "{\"name\":\"out\",\"shape\":[21,13],\"dtype\":\"float32\",\"axes\":"
      "[\"i\",\"j\"],\"expr\":{\"load\":\"e\",\"index\":[\"j\",\"i\"]}},"
      "{\"name\":\"e\",\"shape\":[13,21],\"dtype\":\"float32\",\"axes\":"
      "[\"i\",\"j\"],\"expr\":{\"op\":\"mul\",\"args\":[\"x\",2.0]}}],"
      "\"outputs\":[\"out\"]}]}";
  bp_ir_module_t *module;
  if (bp_ir_module_parse(ir, &module) != BP_OK)
    fail_msg("%s", bp_last_error());
  bp_target_t *target;
  assert_int_equal(bp_target_parse("vcpu -num_cores=4", &target), BP_OK);
  bp_build_options_t options = {sizeof(options), cache_dir, 0};
  bp_built_module_t *built;
  assert_int_equal(bp_build(module, target, &options, &built), BP_OK);
  assert_int_equal(bp_built_module_blocks(built, "t"), 1);
  fill_inputs(7);
  float out[21 * 13];
  memset(out, 0xff, sizeof(out));
  bp_generated_params_t params = {{X, out}};
  launch_generated(built, "t", 4, &params); /* blocks 1-3 return at once */
  for (int i = 0; i < 21; i++)
    for (int j = 0; j < 13; j++)
      assert_float_equal(out[i * 13 + j], X[j][i] * 2.0f, 0);
  bp_built_module_destroy(built);
  bp_target_destroy(target);
  bp_ir_module_destroy(module);
}

static int setup(void **state) {
  static char dir[64];
  snprintf(dir, sizeof(dir), "/tmp/bp-test-cross.XXXXXX");
  *state = mkdtemp(dir);
  return *state ? 0 : -1;
}

static int teardown(void **state) {
  char command[128];
  snprintf(command, sizeof(command), "rm -rf '%s'", (char *)*state);
  return system(command);
}

static int group_setup(void **state) {
  (void)state;
  runtime = fixture_runtime(BP_VCPU_PLUGIN);
  assert_int_equal(bp_device_get(runtime, "vcpu", 0, &vcpu), BP_OK);
  assert_int_equal(bp_stream_create(vcpu, &stream), BP_OK);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  bp_runtime_destroy(runtime);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_every_construct, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stages_and_unsplittable, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
