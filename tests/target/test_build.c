/* bp_build through the public API: C source and tensor-expression modules
 * built for targets with no device present, run by calling the generated
 * functions directly (one block; bp_launch is test_codegen_crosscheck's);
 * compiler diagnostics; malformed IR named; the disk cache (hits, corrupt
 * entries rebuilt, two processes building at once). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backplane/build.h"

static char cache_dir[256];

static bp_target_t *target_of(const char *text) {
  bp_target_t *target = NULL;
  assert_int_equal(bp_target_parse(text, &target), BP_OK);
  return target;
}

static bp_build_options_t options(void) {
  bp_build_options_t result = {sizeof(result), cache_dir, 0};
  return result;
}

static bp_built_module_t *build_ok(const bp_ir_module_t *module,
                                   const char *target_text) {
  bp_target_t *target = target_of(target_text);
  bp_build_options_t build_options = options();
  bp_built_module_t *built = NULL;
  bp_status_t status = bp_build(module, target, &build_options, &built);
  if (status != BP_OK)
    fail_msg("bp_build: %s", bp_last_error());
  bp_target_destroy(target);
  return built;
}

static const char c_source[] = "#include <stdint.h>\n"
                               "typedef struct { void *t[16]; } p_t;\n"
                               "__attribute__((visibility(\"default\")))\n"
                               "unsigned int fill(void *param) {\n"
                               "  p_t *p = param;\n"
                               "  int *out = p->t[0];\n"
                               "  out[0] = BP_NUM_CORES;\n"
                               "  out[1] = BP_VECTOR_WIDTH;\n"
                               "  return 0;\n"
                               "}\n";

static void test_c_source(void **state) {
  (void)state;
  const char *names[] = {"fill", NULL};
  bp_ir_module_t *module;
  assert_int_equal(bp_ir_module_from_c(c_source, names, &module), BP_OK);
  assert_int_equal(bp_ir_module_function_count(module), 1);
  assert_string_equal(bp_ir_module_function_name(module, 0), "fill");
  bp_built_module_t *built = build_ok(module, "c -num_cores=3 -vector_width=4");
  assert_int_equal(bp_built_module_blocks(built, "fill"), 3);
  bp_generated_fn fn;
  assert_int_equal(bp_built_module_function(built, "fill", &fn), BP_OK);
  int out[2] = {0, 0};
  bp_generated_params_t params = {{out}};
  assert_int_equal(fn(&params), 0);
  assert_int_equal(out[0], 3);
  assert_int_equal(out[1], 4);
  assert_int_equal(bp_built_module_function(built, "nope", &fn),
                   BP_ERR_NOT_FOUND);
  bp_built_module_destroy(built);
  bp_ir_module_destroy(module);
}

static void test_compiler_diagnostics(void **state) {
  (void)state;
  const char *names[] = {"broken", NULL};
  bp_ir_module_t *module;
  assert_int_equal(
      bp_ir_module_from_c("unsigned int broken(void *p) { return nope; }\n",
                          names, &module),
      BP_OK);
  bp_target_t *target = target_of("c");
  bp_build_options_t build_options = options();
  bp_built_module_t *built = (bp_built_module_t *)0x1;
  assert_int_equal(bp_build(module, target, &build_options, &built),
                   BP_ERR_PLUGIN);
  assert_ptr_equal(built, (bp_built_module_t *)0x1);
  assert_non_null(strstr(bp_last_error(), "nope"));
  assert_non_null(strstr(bp_last_error(), "error"));
  /* -march from mcpu reaches the compiler. */
  bp_target_destroy(target);
  target = target_of("c -mcpu=no-such-cpu");
  assert_int_equal(bp_build(module, target, &build_options, &built),
                   BP_ERR_PLUGIN);
  assert_non_null(strstr(bp_last_error(), "no-such-cpu"));
  bp_target_destroy(target);
  bp_ir_module_destroy(module);
}

static void test_missing_compiler(void **state) {
  (void)state;
  const char *names[] = {"f", NULL};
  bp_ir_module_t *module;
  assert_int_equal(bp_ir_module_from_c("int x;\n", names, &module), BP_OK);
  bp_target_t *target = target_of("c");
  bp_build_options_t build_options = options();
  bp_built_module_t *built;
  setenv("BACKPLANE_CC", "/nonexistent/cc", 1);
  bp_status_t status = bp_build(module, target, &build_options, &built);
  unsetenv("BACKPLANE_CC");
  assert_int_equal(status, BP_ERR_UNSUPPORTED);
  assert_non_null(strstr(bp_last_error(), "/nonexistent/cc"));
  bp_target_destroy(target);
  bp_ir_module_destroy(module);
}

/* Fused bias + GELU: y[i, j] = gelu(x[i, j] + b[j]). */
static const char bias_gelu_ir[] =
    "{\"functions\": [{\"name\": \"bias_gelu\","
    " \"inputs\": [{\"name\": \"x\", \"shape\": [37, 19], \"dtype\": "
    "\"float32\"},"
    "              {\"name\": \"b\", \"shape\": [19], \"dtype\": \"float32\"}],"
    " \"stages\": ["
    "  {\"name\": \"h\", \"shape\": [37, 19], \"dtype\": \"float32\","
    "   \"axes\": [\"i\", \"j\"], \"expr\": {\"op\": \"add\", \"args\": "
    "[\"x\", \"b\"]}},"
    "  {\"name\": \"y\", \"shape\": [37, 19], \"dtype\": \"float32\","
    "   \"axes\": [\"i\", \"j\"], \"expr\": {\"op\": \"mul\", \"args\": ["
    "     {\"op\": \"mul\", \"args\": [0.5, \"h\"]},"
    "     {\"op\": \"add\", \"args\": [1.0, {\"op\": \"erf\", \"args\": ["
    "       {\"op\": \"mul\", \"args\": [\"h\", 0.7071067811865476]}]}]}]}}],"
    " \"outputs\": [\"y\"]}]}";

static void test_bias_gelu_no_device(void **state) {
  (void)state;
  bp_ir_module_t *module;
  if (bp_ir_module_parse(bias_gelu_ir, &module) != BP_OK)
    fail_msg("%s", bp_last_error());
  bp_built_module_t *built = build_ok(module, "vcpu -num_cores=3");
  assert_int_equal(bp_built_module_blocks(built, "bias_gelu"), 3);
  bp_generated_fn fn;
  assert_int_equal(bp_built_module_function(built, "bias_gelu", &fn), BP_OK);
  float x[37 * 19], b[19], y[37 * 19];
  for (int i = 0; i < 37 * 19; i++)
    x[i] = (float)((i * 7919) % 200 - 100) / 25.0f;
  for (int j = 0; j < 19; j++)
    b[j] = (float)j / 10.0f - 1.0f;
  bp_generated_params_t params = {{x, b, y}};
  assert_int_equal(fn(&params), 0); /* outside a launch: all blocks at once */
  for (int i = 0; i < 37; i++)
    for (int j = 0; j < 19; j++) {
      double h = (double)x[i * 19 + j] + b[j];
      double expected = 0.5 * h * (1.0 + erf(h / sqrt(2.0)));
      assert_float_equal(y[i * 19 + j], expected, 1e-5);
    }
  bp_built_module_destroy(built);
  bp_ir_module_destroy(module);
}

/* ---- malformed IR ------------------------------------------------------ */

/* A one-stage function around `stage_expr`, over x[4, 8], reduce axis k. */
static void ir_fails(const char *stage_expr, const char *needle) {
  char ir[2048];
  snprintf(ir, sizeof(ir),
           "{\"functions\": [{\"name\": \"f\", \"inputs\": [{\"name\": \"x\","
           " \"shape\": [4, 8], \"dtype\": \"float32\"}], \"stages\": "
           "[{\"name\": \"y\", \"shape\": [4, 8], \"dtype\": \"float32\","
           " \"axes\": [\"i\", \"j\"], \"reduce_axes\": {\"k\": 8}, \"expr\": "
           "%s}], \"outputs\": [\"y\"]}]}",
           stage_expr);
  bp_ir_module_t *module = (bp_ir_module_t *)0x1;
  assert_int_equal(bp_ir_module_parse(ir, &module), BP_ERR_INVALID_ARGUMENT);
  assert_ptr_equal(module, (bp_ir_module_t *)0x1);
  if (!strstr(bp_last_error(), needle))
    fail_msg("%s: message '%s' lacks '%s'", stage_expr, bp_last_error(),
             needle);
}

static void test_malformed_ir_named(void **state) {
  (void)state;
  ir_fails("{\"op\": \"frobnicate\", \"args\": [\"x\"]}",
           "stage 'y' expr: unknown op 'frobnicate'");
  ir_fails("{\"op\": \"add\", \"args\": [\"x\", {\"op\": \"exp\", \"args\": "
           "[\"q\"]}]}",
           "stage 'y' expr.args[1].args[0]: undefined tensor 'q'");
  ir_fails("{\"load\": \"x\", \"index\": [\"i\"]}",
           "shape mismatch: 'x' has rank 2");
  ir_fails("{\"load\": \"x\", \"index\": [\"j\", \"i\"]}",
           "shape mismatch: axis 'j' (extent 8)");
  ir_fails("{\"reduce\": \"sum\", \"axes\": [\"m\"], \"arg\": \"x\"}",
           "reduction over missing axis 'm'");
  ir_fails("{\"load\": \"x\", \"index\": [\"i\", \"k\"]}",
           "reduce axis 'k' used outside a reduction");
  ir_fails("{\"reduce\": \"prod\", \"axes\": [\"k\"], \"arg\": \"x\"}",
           "unknown reduction 'prod'");
  ir_fails("{\"op\": \"select\", \"args\": [\"x\", 1]}",
           "op 'select' takes 3 arguments");
  ir_fails("{\"op\": \"cast\", \"dtype\": \"float64\", \"args\": [\"x\"]}",
           "dtype must be one of");
  ir_fails("{\"load\": \"x\", \"index\": [\"i\", 8]}",
           "index 8 out of bounds for 'x' dimension 1");
  ir_fails("\"y\"", "cyclic stages: stage 'y'");
  ir_fails("{\"axis\": \"z\"}", "unknown axis 'z'");
  ir_fails("[1, 2]", "not an expression");
  ir_fails("{\"reduce\": \"sum\", \"axes\": [\"k\"], \"arg\": {\"reduce\": "
           "\"max\", \"axes\": [\"k\"], \"arg\": 1}}",
           "nested reductions");

  /* Cycles over two stages, broadcast mismatch, bad outputs, bad JSON. */
  const char *cases[][2] = {
      {"{\"functions\": [{\"name\": \"f\", \"inputs\": [], \"stages\": ["
       "{\"name\": \"a\", \"shape\": [2], \"dtype\": \"float32\", \"axes\": "
       "[\"i\"], \"expr\": \"b\"},"
       "{\"name\": \"b\", \"shape\": [2], \"dtype\": \"float32\", \"axes\": "
       "[\"i\"], \"expr\": \"a\"}], \"outputs\": [\"a\"]}]}",
       "cyclic stages"},
      {"{\"functions\": [{\"name\": \"f\", \"inputs\": [{\"name\": \"x\", "
       "\"shape\": [3], \"dtype\": \"float32\"}], \"stages\": [{\"name\": "
       "\"a\", \"shape\": [2, 4], \"dtype\": \"float32\", \"axes\": [\"i\", "
       "\"j\"], \"expr\": \"x\"}], \"outputs\": [\"a\"]}]}",
       "shape mismatch: cannot broadcast 'x' dimension 0 (3)"},
      {"{\"functions\": [{\"name\": \"f\", \"inputs\": [], \"stages\": ["
       "{\"name\": \"a\", \"shape\": [2], \"dtype\": \"float32\", \"axes\": "
       "[\"i\"], \"expr\": 1.0}], \"outputs\": [\"x\"]}]}",
       "output 'x' is not a stage"},
      {"{\"functions\": [{\"name\": \"f\", \"inputs\": [], \"stages\": ["
       "{\"name\": \"a\", \"shape\": [2, 2], \"dtype\": \"float32\", \"axes\": "
       "[\"i\"], \"expr\": 1.0}], \"outputs\": [\"a\"]}]}",
       "shape mismatch: \"axes\""},
      {"{\"functions\": [{\"name\": \"f\", \"inputs\": [{\"name\": \"x\", "
       "\"shape\": [0], \"dtype\": \"float32\"}], \"stages\": [], \"outputs\": "
       "[]}]}",
       "non-empty \"stages\""},
      {"{\"functions\": []}", "\"functions\" array"},
      {"{\"functions\": [", "malformed JSON"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    bp_ir_module_t *module;
    assert_int_equal(bp_ir_module_parse(cases[i][0], &module),
                     BP_ERR_INVALID_ARGUMENT);
    if (!strstr(bp_last_error(), cases[i][1]))
      fail_msg("case %zu: message '%s' lacks '%s'", i, bp_last_error(),
               cases[i][1]);
  }
  bp_ir_module_t *module;
  assert_int_equal(bp_ir_module_parse(NULL, &module), BP_ERR_INVALID_ARGUMENT);
}

/* ---- cache ------------------------------------------------------------- */

static void test_cache_hit_and_corrupt_entry(void **state) {
  (void)state;
  bp_ir_module_t *module;
  assert_int_equal(bp_ir_module_parse(bias_gelu_ir, &module), BP_OK);
  bp_built_module_t *first = build_ok(module, "vcpu -num_cores=2 -tag=cache");
  assert_false(bp_built_module_from_cache(first));
  assert_non_null(bp_built_module_source(first));
  assert_non_null(strstr(bp_built_module_path(first), cache_dir));
  bp_built_module_t *second = build_ok(module, "vcpu -num_cores=2 -tag=cache");
  assert_true(bp_built_module_from_cache(second));
  assert_string_equal(bp_built_module_path(first),
                      bp_built_module_path(second));
  /* Another target: another entry. */
  bp_built_module_t *other = build_ok(module, "vcpu -num_cores=3 -tag=cache");
  assert_false(bp_built_module_from_cache(other));
  assert_string_not_equal(bp_built_module_path(first),
                          bp_built_module_path(other));
  bp_built_module_destroy(other);
  bp_built_module_destroy(second);

  /* Corrupt the entry: the next build rebuilds instead of loading it. */
  char path[4300];
  snprintf(path, sizeof(path), "%s", bp_built_module_path(first));
  FILE *file = fopen(path, "r+b");
  assert_non_null(file);
  fseek(file, 64, SEEK_SET);
  fputs("garbage", file);
  fclose(file);
  /* The already-built module refuses the changed bytes too. */
  bp_generated_fn fn;
  assert_int_equal(bp_built_module_function(first, "bias_gelu", &fn),
                   BP_ERR_PLUGIN);
  assert_non_null(strstr(bp_last_error(), "changed"));
  bp_built_module_destroy(first);
  bp_built_module_t *rebuilt = build_ok(module, "vcpu -num_cores=2 -tag=cache");
  assert_false(bp_built_module_from_cache(rebuilt));
  assert_int_equal(bp_built_module_function(rebuilt, "bias_gelu", &fn), BP_OK);
  bp_built_module_destroy(rebuilt);

  /* A truncated entry is rebuilt as well. */
  assert_int_equal(truncate(path, 10), 0);
  rebuilt = build_ok(module, "vcpu -num_cores=2 -tag=cache");
  assert_false(bp_built_module_from_cache(rebuilt));
  bp_built_module_destroy(rebuilt);
  bp_ir_module_destroy(module);
}

static void test_two_processes_build_at_once(void **state) {
  (void)state;
  bp_ir_module_t *module;
  assert_int_equal(bp_ir_module_parse(bias_gelu_ir, &module), BP_OK);
  pid_t children[2];
  for (int c = 0; c < 2; c++) {
    children[c] = fork();
    assert_true(children[c] >= 0);
    if (children[c] == 0) {
      bp_target_t *target;
      bp_built_module_t *built;
      bp_generated_fn fn;
      bp_build_options_t build_options = options();
      int ok = bp_target_parse("vcpu -tag=race", &target) == BP_OK &&
               bp_build(module, target, &build_options, &built) == BP_OK &&
               bp_built_module_function(built, "bias_gelu", &fn) == BP_OK;
      _exit(ok ? 0 : 1);
    }
  }
  for (int c = 0; c < 2; c++) {
    int status;
    assert_int_equal(waitpid(children[c], &status, 0), children[c]);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
  }
  bp_built_module_t *built = build_ok(module, "vcpu -tag=race");
  assert_true(bp_built_module_from_cache(built));
  bp_built_module_destroy(built);
  bp_ir_module_destroy(module);
}

static void test_no_cache_and_bad_arguments(void **state) {
  (void)state;
  bp_ir_module_t *module;
  assert_int_equal(bp_ir_module_parse(bias_gelu_ir, &module), BP_OK);
  bp_target_t *target = target_of("vcpu -tag=private");
  bp_build_options_t build_options = {sizeof(build_options), NULL, 1};
  bp_built_module_t *built;
  assert_int_equal(bp_build(module, target, &build_options, &built), BP_OK);
  assert_false(bp_built_module_from_cache(built));
  char path[4300];
  snprintf(path, sizeof(path), "%s", bp_built_module_path(built));
  assert_int_equal(access(path, R_OK), 0);
  bp_built_module_destroy(built);
  assert_int_not_equal(access(path, F_OK), 0); /* removed with the module */
  assert_int_equal(bp_build(NULL, target, NULL, &built),
                   BP_ERR_INVALID_ARGUMENT);
  build_options.struct_size = 1;
  assert_int_equal(bp_build(module, target, &build_options, &built),
                   BP_ERR_INVALID_ARGUMENT);
  bp_target_destroy(target);
  bp_ir_module_destroy(module);
}

static int make_cache_dir(void **state) {
  (void)state;
  snprintf(cache_dir, sizeof(cache_dir), "/tmp/bp-test-build.XXXXXX");
  return mkdtemp(cache_dir) ? 0 : -1;
}

static int remove_cache_dir(void **state) {
  (void)state;
  char command[512];
  snprintf(command, sizeof(command), "rm -rf '%s'", cache_dir);
  return system(command);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_c_source),
      cmocka_unit_test(test_compiler_diagnostics),
      cmocka_unit_test(test_missing_compiler),
      cmocka_unit_test(test_bias_gelu_no_device),
      cmocka_unit_test(test_malformed_ir_named),
      cmocka_unit_test(test_cache_hit_and_corrupt_entry),
      cmocka_unit_test(test_two_processes_build_at_once),
      cmocka_unit_test(test_no_cache_and_bad_arguments),
  };
  return cmocka_run_group_tests(tests, make_cache_dir, remove_cache_dir);
}
