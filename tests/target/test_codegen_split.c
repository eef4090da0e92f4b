/* The vcpu builder splits each stage's outer loop into the launch's blocks:
 * block b of n computes rows [R*b/n, R*(b+1)/n) and writes nothing else.
 * Each block is attributed by calling the generated function directly with
 * the module's device API (BP_KERNEL_DEVICE_API_SYMBOL, what a plugin sets
 * at load) pointed at a table that reports block b of n, then checking that
 * exactly its rows were written and every other row kept its sentinel. A
 * lowering that ignored the blocks (every block, or block 0, doing all rows)
 * fails here; target.codegen_crosscheck only sees the union. For num_cores 2
 * and 4, with a single stage and with an intermediate stage (kept per
 * block). */
#include <dlfcn.h>
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
#include "backplane/kernel_types.h"

enum { R = 13, C = 5 };
static const float SENTINEL = -7777.0f;

/* y = x + 1 (one stage); z = t + 1 with t = x * 2 (an intermediate stage). */
static const char k_ir[] =
    "{\"functions\":["
    "{\"name\":\"one\",\"inputs\":[{\"name\":\"x\",\"shape\":[13,5],"
    "\"dtype\":\"float32\"}],\"stages\":[{\"name\":\"y\",\"shape\":[13,5],"
    "\"dtype\":\"float32\",\"axes\":[\"i\",\"j\"],\"expr\":{\"op\":\"add\","
    "\"args\":[\"x\",1.0]}}],\"outputs\":[\"y\"]},"
    "{\"name\":\"two\",\"inputs\":[{\"name\":\"x\",\"shape\":[13,5],"
    "\"dtype\":\"float32\"}],\"stages\":["
    "{\"name\":\"t\",\"shape\":[13,5],\"dtype\":\"float32\",\"axes\":[\"i\","
    "\"j\"],\"expr\":{\"op\":\"mul\",\"args\":[\"x\",2.0]}},"
    "{\"name\":\"z\",\"shape\":[13,5],\"dtype\":\"float32\",\"axes\":[\"i\","
    "\"j\"],\"expr\":{\"op\":\"add\",\"args\":[\"t\",1.0]}}],"
    "\"outputs\":[\"z\"]}]}";

/* The block the fake device API reports. */
static uint32_t g_index, g_count;
static uint32_t fake_block_index(void) {
  return g_index;
}
static uint32_t fake_block_count(void) {
  return g_count;
}
static const bp_kernel_device_api_t fake_api = {
    .struct_size = offsetof(bp_kernel_device_api_t, current_thread),
    .block_index = fake_block_index,
    .block_count = fake_block_count,
};

/* Rows of block b of n, as the contract states (independent of the code
 * under test). */
static int first_row(uint32_t b, uint32_t n) {
  return (int)((uint64_t)R * b / n);
}

static void check_blocks(bp_built_module_t *built, const char *name,
                         uint32_t blocks, float scale) {
  assert_int_equal(bp_built_module_blocks(built, name), blocks);
  bp_generated_fn fn;
  assert_int_equal(bp_built_module_function(built, name, &fn), BP_OK);
  /* The module bp_built_module_function loaded, and its device-API slot. */
  void *handle = dlopen(bp_built_module_path(built), RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(handle);
  const bp_kernel_device_api_t **slot =
      dlsym(handle, BP_KERNEL_DEVICE_API_SYMBOL);
  assert_non_null(slot);
  *slot = &fake_api;
  float x[R * C], y[R * C];
  for (int k = 0; k < R * C; k++)
    x[k] = (float)(k % 17) - 3.0f;
  bp_generated_params_t params = {{x, y}};
  int written_by[R];
  for (int i = 0; i < R; i++)
    written_by[i] = -1;
  for (uint32_t b = 0; b < blocks; b++) {
    for (int k = 0; k < R * C; k++)
      y[k] = SENTINEL;
    g_index = b;
    g_count = blocks;
    assert_int_equal(fn(&params), 0);
    int lo = first_row(b, blocks), hi = first_row(b + 1, blocks);
    assert_true(hi > lo); /* 13 rows: every block owns some */
    for (int i = 0; i < R; i++) {
      int mine = i >= lo && i < hi;
      for (int j = 0; j < C; j++) {
        float expected = mine ? x[i * C + j] * scale + 1.0f : SENTINEL;
        if (y[i * C + j] != expected)
          fail_msg("%s, block %u of %u: row %d (block rows [%d, %d)) is %g, "
                   "expected %g",
                   name, b, blocks, i, lo, hi, (double)y[i * C + j],
                   (double)expected);
      }
      if (mine) {
        assert_int_equal(written_by[i], -1); /* no row twice */
        written_by[i] = (int)b;
      }
    }
  }
  for (int i = 0; i < R; i++)
    assert_true(written_by[i] >= 0); /* and every row once */
  *slot = NULL;
  dlclose(handle);
}

static void split_for(const char *target_text, uint32_t blocks,
                      const char *cache_dir) {
  bp_ir_module_t *module;
  if (bp_ir_module_parse(k_ir, &module) != BP_OK)
    fail_msg("%s", bp_last_error());
  bp_target_t *target;
  assert_int_equal(bp_target_parse(target_text, &target), BP_OK);
  bp_build_options_t options = {sizeof(options), cache_dir, 0};
  bp_built_module_t *built;
  if (bp_build(module, target, &options, &built) != BP_OK)
    fail_msg("%s: %s", target_text, bp_last_error());
  check_blocks(built, "one", blocks, 1.0f);
  check_blocks(built, "two", blocks, 2.0f);
  bp_built_module_destroy(built);
  bp_target_destroy(target);
  bp_ir_module_destroy(module);
}

static void test_two_cores_two_blocks(void **state) {
  split_for("vcpu -num_cores=2", 2, *state);
}

static void test_four_cores_four_blocks(void **state) {
  split_for("vcpu -num_cores=4 -vector_width=4", 4, *state);
}

static int setup(void **state) {
  static char dir[64];
  snprintf(dir, sizeof(dir), "/tmp/bp-test-split.XXXXXX");
  *state = mkdtemp(dir);
  return *state ? 0 : -1;
}

static int teardown(void **state) {
  char command[128];
  snprintf(command, sizeof(command), "rm -rf '%s'", (char *)*state);
  return system(command);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_two_cores_two_blocks, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_four_cores_four_blocks, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
