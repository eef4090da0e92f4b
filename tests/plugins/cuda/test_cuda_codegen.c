/* The cuda builder without a GPU: every codegen cross-check case and a
 * multi-stage function lower to CUDA C that NVRTC compiles to PTX, with a
 * kernel per stage and descriptor lines the plugin reads back; the target's
 * arch and cores reach the source and the grid; what the builder cannot do
 * is refused with a message that says why; the plugin refuses malformed
 * descriptors and architectures a device cannot run. (cuda.device runs the
 * same cases on a GPU.) */
#include <stdio.h>
#include <string.h>

#include "backplane/build.h"
#include "support/runtime_fixture.h"

#include "codegen_cases.h"
#include "cu.h"
#include "cuda_kind.h"
#include "generated_module.h"
#include "nvrtc_compile.h"

static bp_built_module_t *build(const char *ir, const char *target_text) {
  bp_ir_module_t *module = NULL;
  if (bp_ir_module_parse(ir, &module) != BP_OK)
    fail_msg("bp_ir_module_parse: %s", bp_last_error());
  bp_target_t *target = NULL;
  assert_int_equal(bp_target_parse(target_text, &target), BP_OK);
  bp_build_options_t options = {sizeof options, NULL, 1};
  bp_built_module_t *built = NULL;
  if (bp_build(module, target, &options, &built) != BP_OK)
    fail_msg("bp_build for '%s': %s", target_text, bp_last_error());
  bp_target_destroy(target);
  bp_ir_module_destroy(module);
  return built;
}

/* NVRTC's PTX for the built source, for `arch`. */
static char *compile(const bp_built_module_t *built, const char *arch) {
  const char *source = bp_built_module_source(built);
  assert_non_null(source);
  char *ptx = NULL;
  size_t size = 0;
  if (cu_nvrtc_compile(source, strlen(source), "generated.cu", arch, &ptx,
                       &size) != C_SUCCESS)
    fail_msg("%s\n--- source ---\n%s", cu_last_error(), source);
  return ptx;
}

static void every_case_compiles_for_compute_90(void **state) {
  (void)state;
  char *ir = cases_module_ir();
  bp_built_module_t *built = build(ir, "cuda -arch=sm_90");
  free(ir);
  const char *path = bp_built_module_path(built);
  assert_string_equal(path + strlen(path) - 3, ".cu");
  char *ptx = compile(built, "compute_90");
  for (size_t c = 0; c < case_count; c++) {
    char entry[64];
    snprintf(entry, sizeof entry, ".entry %s__s0(", cases[c].name);
    if (!strstr(ptx, entry))
      fail_msg("%s: no kernel %s__s0 in the PTX", cases[c].name, cases[c].name);
  }
  free(ptx);
  bp_built_module_destroy(built);
}

/* The descriptor the plugin reads back: x [13, 21] float32, z [21]
 * float32, w [13, 21] int32, h [13, 21] float16, then y. */
static void descriptor_names_the_tensors_and_the_stage(void **state) {
  (void)state;
  bp_built_module_t *built = build(case_ir(&cases[0]), "cuda -arch=sm_90");
  const char *source = bp_built_module_source(built);
  assert_true(cu_generated_source(source, strlen(source)));
  cu_generated_module_t module;
  assert_int_equal(cu_generated_parse(source, strlen(source), &module),
                   C_SUCCESS);
  assert_string_equal(module.arch, "sm_90");
  assert_int_equal(module.function_count, 1);
  const cu_generated_function_t *f = &module.functions[0];
  assert_string_equal(f->name, "f");
  assert_int_equal(f->param_count, 5);
  const uint64_t bytes[] = {13 * 21 * 4, 21 * 4, 13 * 21 * 4, 13 * 21 * 2,
                            13 * 21 * 4};
  for (size_t p = 0; p < 5; p++)
    assert_int_equal(f->param_bytes[p], bytes[p]);
  assert_int_equal(f->scratch_bytes, 0);
  assert_int_equal(f->stage_count, 1);
  assert_string_equal(f->stages[0].kernel, "f__s0");
  assert_int_equal(f->stages[0].items, 13 * 21);
  cu_generated_free(&module);
  bp_built_module_destroy(built);
}

static const char softmax_ir[] =
    "{\"functions\":[{\"name\":\"softmax\",\"inputs\":[{\"name\":\"x\","
    "\"shape\":[4,6],\"dtype\":\"float32\"}],\"stages\":["
    "{\"name\":\"m\",\"shape\":[4],\"dtype\":\"float32\",\"axes\":[\"i\"],"
    "\"reduce_axes\":{\"k\":6},\"expr\":{\"reduce\":\"max\",\"axes\":[\"k\"],"
    "\"arg\":{\"load\":\"x\",\"index\":[\"i\",\"k\"]}}},"
    "{\"name\":\"e\",\"shape\":[4,6],\"dtype\":\"float32\",\"axes\":[\"i\","
    "\"j\"],\"expr\":{\"op\":\"exp\",\"args\":[{\"op\":\"sub\",\"args\":["
    "\"x\",{\"load\":\"m\",\"index\":[\"i\"]}]}]}},"
    "{\"name\":\"s\",\"shape\":[4],\"dtype\":\"float32\",\"axes\":[\"i\"],"
    "\"reduce_axes\":{\"k\":6},\"expr\":{\"reduce\":\"sum\",\"axes\":[\"k\"],"
    "\"arg\":{\"load\":\"e\",\"index\":[\"i\",\"k\"]}}},"
    "{\"name\":\"y\",\"shape\":[4,6],\"dtype\":\"float32\",\"axes\":[\"i\","
    "\"j\"],\"expr\":{\"op\":\"div\",\"args\":[\"e\",{\"load\":\"s\","
    "\"index\":[\"i\"]}]}}],\"outputs\":[\"y\"]}]}";

/* Four stages, three of them intermediate: a kernel each, and scratch for
 * m (16 bytes), e (96) and s (16), each at a 256-byte boundary. */
static void stages_are_kernels_with_scratch(void **state) {
  (void)state;
  bp_built_module_t *built = build(softmax_ir, "cuda -arch=sm_90");
  char *ptx = compile(built, "compute_90");
  for (int s = 0; s < 4; s++) {
    char entry[32];
    snprintf(entry, sizeof entry, ".entry softmax__s%d(", s);
    if (!strstr(ptx, entry))
      fail_msg("no %s in the PTX", entry);
  }
  free(ptx);
  const char *source = bp_built_module_source(built);
  cu_generated_module_t module;
  assert_int_equal(cu_generated_parse(source, strlen(source), &module),
                   C_SUCCESS);
  assert_int_equal(module.functions[0].scratch_bytes, 3 * 256);
  assert_int_equal(module.functions[0].stage_count, 4);
  const uint64_t items[] = {4, 24, 4, 24};
  for (int s = 0; s < 4; s++)
    assert_int_equal(module.functions[0].stages[s].items, items[s]);
  cu_generated_free(&module);
  bp_built_module_destroy(built);
}

/* The target's arch is what the source says it was built for, and what
 * NVRTC compiles it for. */
static void arch_comes_from_the_target(void **state) {
  (void)state;
  bp_built_module_t *built = build(case_ir(&cases[0]), "cuda -arch=sm_80");
  const char *source = bp_built_module_source(built);
  assert_non_null(strstr(source, "//@bp arch sm_80\n"));
  char *ptx = compile(built, "compute_80");
  assert_non_null(strstr(ptx, ".target sm_80"));
  free(ptx);
  bp_built_module_destroy(built);
}

static uint32_t blocks_of(const char *ir, const char *target_text,
                          const char *name) {
  bp_built_module_t *built = build(ir, target_text);
  uint32_t blocks = bp_built_module_blocks(built, name);
  bp_built_module_destroy(built);
  return blocks;
}

static const char big_ir[] =
    "{\"functions\":[{\"name\":\"twice\",\"inputs\":[{\"name\":\"x\","
    "\"shape\":[4096,4096],\"dtype\":\"float32\"}],\"stages\":[{\"name\":"
    "\"y\",\"shape\":[4096,4096],\"dtype\":\"float32\",\"axes\":[\"i\","
    "\"j\"],\"expr\":{\"op\":\"mul\",\"args\":[\"x\",2]}}],"
    "\"outputs\":[\"y\"]}]}";

/* The grid: a thread (of 256 per block) per element of the largest stage,
 * at most 8 blocks per multiprocessor. */
static void blocks_fill_the_device_and_no_more(void **state) {
  (void)state;
  /* 273 elements: 2 blocks. */
  assert_int_equal(blocks_of(case_ir(&cases[0]), "cuda", "f"), 2);
  /* 24 elements in the largest of four stages: 1 block. */
  assert_int_equal(blocks_of(softmax_ir, "cuda", "softmax"), 1);
  /* 16 Mi elements: 132 multiprocessors (the default) * 8, or 4 * 8. */
  assert_int_equal(blocks_of(big_ir, "cuda", "twice"), 1056);
  assert_int_equal(blocks_of(big_ir, "cuda -num_cores=4", "twice"), 32);
}

static void what_it_cannot_build_is_refused(void **state) {
  (void)state;
  bp_ir_module_t *module = NULL;
  assert_int_equal(bp_ir_module_parse(case_ir(&cases[0]), &module), BP_OK);
  bp_build_options_t options = {sizeof options, NULL, 1};
  bp_built_module_t *built = NULL;
  const char *const bad_arches[] = {"gfx90a", "sm_9", "compute_90", "sm_90ab"};
  for (size_t a = 0; a < sizeof bad_arches / sizeof *bad_arches; a++) {
    char text[64];
    snprintf(text, sizeof text, "cuda -arch=%s", bad_arches[a]);
    bp_target_t *target = NULL;
    assert_int_equal(bp_target_parse(text, &target), BP_OK);
    assert_int_equal(bp_build(module, target, &options, &built),
                     BP_ERR_INVALID_ARGUMENT);
    assert_null(built);
    assert_non_null(strstr(bp_last_error(), "sm_<major><minor>"));
    assert_non_null(strstr(bp_last_error(), bad_arches[a]));
    bp_target_destroy(target);
  }
  bp_ir_module_destroy(module);

  /* C source is host code: the cuda kind lowers tensor expressions only. */
  const char *const names[] = {"f", NULL};
  assert_int_equal(bp_ir_module_from_c("unsigned int f(void *p) { return 0; }",
                                       names, &module),
                   BP_OK);
  bp_target_t *target = NULL;
  assert_int_equal(bp_target_parse("cuda", &target), BP_OK);
  assert_int_equal(bp_build(module, target, &options, &built),
                   BP_ERR_UNSUPPORTED);
  assert_non_null(strstr(bp_last_error(), "'cuda'"));
  assert_non_null(strstr(bp_last_error(), "tensor-expression"));
  bp_target_destroy(target);
  bp_ir_module_destroy(module);

  /* The module is source for NVRTC, not host code to call. */
  built = build(case_ir(&cases[0]), "cuda");
  bp_generated_fn fn = NULL;
  assert_int_equal(bp_built_module_function(built, "f", &fn),
                   BP_ERR_UNSUPPORTED);
  assert_null(fn);
  assert_non_null(strstr(bp_last_error(), "bp_built_module_load"));
  bp_built_module_destroy(built);
}

static void expect_malformed(const char *source, const char *why) {
  cu_generated_module_t module;
  assert_int_equal(cu_generated_parse(source, strlen(source), &module),
                   C_ERROR);
  if (!strstr(cu_last_error(), why))
    fail_msg("expected '%s' in '%s'", why, cu_last_error());
  assert_int_equal(module.function_count, 0);
}

static void malformed_descriptors_are_refused(void **state) {
  (void)state;
  expect_malformed("//@bp generated-cuda 1\n"
                   "//@bp function f params 1 4 scratch 0 stages 1\n"
                   "//@bp stage f__s0 items 1\n",
                   "no //@bp arch line");
  expect_malformed("//@bp generated-cuda 1\n//@bp arch sm_90\n",
                   "no //@bp function line");
  expect_malformed("//@bp generated-cuda 1\n//@bp arch sm_90\n"
                   "//@bp function f params 1 4 scratch 0 stages 2\n"
                   "//@bp stage f__s0 items 1\n",
                   "function 'f' has fewer stage lines");
  expect_malformed("//@bp generated-cuda 1\n//@bp arch sm_90\n"
                   "//@bp function f params 17 scratch 0 stages 1\n",
                   "line 3 is malformed");
  expect_malformed("//@bp generated-cuda 1\n//@bp arch sm_90\n"
                   "//@bp function f params 1 4 scratch 0 stages 1\n"
                   "//@bp stage f__s0 items -1\n",
                   "line 4 is malformed");
  expect_malformed("//@bp generated-cuda 1\n//@bp arch sm_90\n"
                   "//@bp stage f__s0 items 1\n",
                   "line 3 is malformed");
  expect_malformed("//@bp generated-cuda 1\n//@bp arch sm_90\n"
                   "//@bp arch sm_80\n",
                   "line 3 is malformed");
}

static void expect_arch(const char *built_for, const char *device,
                        const char *expected) {
  char arch[32] = "";
  assert_int_equal(cu_generated_arch(built_for, device, arch, sizeof arch),
                   C_SUCCESS);
  assert_string_equal(arch, expected);
}

/* A cubin where the module was built for the device's architecture, PTX
 * the driver compiles where it was built for an older one. */
static void the_device_runs_what_was_built_for_it_or_older(void **state) {
  (void)state;
  expect_arch("sm_90", "sm_90", "sm_90");
  expect_arch("sm_90a", "sm_90", "sm_90a");
  expect_arch("sm_80", "sm_90", "compute_80");
  expect_arch("sm_90", "sm_100", "compute_90");
  char arch[32];
  assert_int_equal(cu_generated_arch("sm_100", "sm_90", arch, sizeof arch),
                   C_ERROR);
  assert_int_equal(cu_last_status(), BP_ERR_UNSUPPORTED);
  assert_non_null(strstr(cu_last_error(), "built for sm_100"));
  assert_int_equal(cu_generated_arch("sm_90a", "sm_100", arch, sizeof arch),
                   C_ERROR);
  assert_int_equal(cu_last_status(), BP_ERR_UNSUPPORTED);
  assert_int_equal(cu_generated_arch("gfx90a", "sm_90", arch, sizeof arch),
                   C_ERROR);
  assert_non_null(strstr(cu_last_error(), "gfx90a"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_case_compiles_for_compute_90),
      cmocka_unit_test(descriptor_names_the_tensors_and_the_stage),
      cmocka_unit_test(stages_are_kernels_with_scratch),
      cmocka_unit_test(arch_comes_from_the_target),
      cmocka_unit_test(blocks_fill_the_device_and_no_more),
      cmocka_unit_test(what_it_cannot_build_is_refused),
      cmocka_unit_test(malformed_descriptors_are_refused),
      cmocka_unit_test(the_device_runs_what_was_built_for_it_or_older),
  };
  return cmocka_run_group_tests(tests, cuda_kind_register,
                                cuda_kind_unregister);
}
