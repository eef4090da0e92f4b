/* `backplane target`, `backplane info`'s targets and `backplane build`, run
 * as a program: canonical output, JSON, --device, bad targets, and a built
 * module that loads and launches through the public API. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/build.h"
#include "tool_runner.h"

/* The canonical vcpu target with num_cores 2, written out by hand: the
 * kind's defaults (docs/framework-guide.md, Targets), keys sorted. */
#define VCPU2                                                                  \
  "{\"keys\":[\"vcpu\",\"cpu\"],\"kind\":\"vcpu\",\"libs\":[],"                \
  "\"max_num_threads\":1,\"max_shared_memory_per_block\":0,\"num_cores\":2,"   \
  "\"vector_width\":8,\"warp_size\":1}"

static tool_run_t run_ok(const char *const *args) {
  tool_run_t run;
  assert_int_equal(tool_run(args, NULL, &run), 0);
  if (run.exit_code != 0)
    fail_msg("exit %d: %s", run.exit_code, run.err);
  return run;
}

static void expect_failure(const char *const *args, int exit_code,
                           const char *word1, const char *word2) {
  tool_run_t run;
  assert_int_equal(tool_run(args, NULL, &run), 0);
  assert_int_equal(run.exit_code, exit_code);
  assert_int_equal(run.out_size, 0);
  if (!strstr(run.err, word1) || (word2 && !strstr(run.err, word2)))
    fail_msg("stderr \"%s\" lacks \"%s\" / \"%s\"", run.err, word1,
             word2 ? word2 : "");
  tool_run_release(&run);
}

/* The same target in the short form, as `backplane target` prints it:
 * every attribute, sorted; an empty list as `-libs=`. */
#define VCPU2_TEXT                                                             \
  "vcpu -keys=vcpu,cpu -libs= -max_num_threads=1 "                             \
  "-max_shared_memory_per_block=0 -num_cores=2 -vector_width=8 -warp_size=1"

/* Runs `target TEXT` and returns what it printed, without the newline. */
static char *target_of(const char *text) {
  tool_run_t run = run_ok((const char *[]){"target", text, NULL});
  size_t length = strlen(run.out);
  assert_true(length > 1 && run.out[length - 1] == '\n');
  assert_null(memchr(run.out, '\n', length - 1)); /* one line */
  run.out[length - 1] = '\0';
  char *printed = strdup(run.out);
  tool_run_release(&run);
  return printed;
}

static void test_target_canonical_text(void **state) {
  (void)state;
  const char *const *const forms[] = {
      (const char *[]){"target", "vcpu", "-num_cores=2", NULL},
      (const char *[]){"target", "vcpu -num_cores=2", NULL},
      (const char *[]){"target", "{\"kind\": \"vcpu\", \"num_cores\": 2}",
                       NULL},
      (const char *[]){"target", VCPU2, NULL},
      (const char *[]){"target", VCPU2_TEXT, NULL}, /* its own output */
  };
  for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
    tool_run_t run = run_ok(forms[i]);
    assert_string_equal(run.out, VCPU2_TEXT "\n");
    tool_run_release(&run);
  }
}

/* What `target` prints parses back to itself, as TVM's str(Target): for a
 * device's target, a parsed one, and one with a host (which the short form
 * cannot say, so it prints as canonical JSON). */
static void test_target_output_parses_back_to_itself(void **state) {
  (void)state;
  tool_run_t run =
      run_ok((const char *[]){"target", "--device", "vcpu:0", NULL});
  run.out[strcspn(run.out, "\n")] = '\0';
  const char *given[] = {run.out, "vcpu -num_cores=3 -keys=cpu",
                         "{\"kind\": \"vcpu\", \"host\": \"c\"}", "c"};
  for (size_t i = 0; i < sizeof given / sizeof *given; i++) {
    char *once = target_of(given[i]);
    char *twice = target_of(once);
    assert_string_equal(once, twice);
    if (i == 0)
      assert_string_equal(once, given[0]);
    if (i == 2)
      assert_true(once[0] == '{' && strstr(once, "\"host\":{"));
    else
      assert_null(strchr(once, '{'));
    free(once);
    free(twice);
  }
  tool_run_release(&run);
}

static void test_target_json(void **state) {
  (void)state;
  tool_run_t run = run_ok(
      (const char *[]){"target", "--json", "vcpu", "-num_cores=2", NULL});
  json_error_t error;
  json_t *printed = json_loads(run.out, 0, &error);
  json_t *expected = json_loads(VCPU2, 0, &error);
  assert_non_null(printed);
  assert_non_null(expected);
  assert_true(json_equal(printed, expected));
  json_decref(printed);
  json_decref(expected);
  tool_run_release(&run);
}

/* A device's target: num_cores is the host's online CPUs (vcpu's
 * multiprocessor count). */
static void test_target_of_a_device(void **state) {
  (void)state;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  char cores[64];
  snprintf(cores, sizeof(cores), " -num_cores=%ld ", cpus);
  tool_run_t run =
      run_ok((const char *[]){"target", "--device", "vcpu:1", NULL});
  assert_int_equal(strncmp(run.out, "vcpu -keys=vcpu,cpu ", 20), 0);
  assert_non_null(strstr(run.out, cores));
  assert_int_equal(tool_count_lines(run.out, "vcpu"), 1);
  tool_run_release(&run);

  run =
      run_ok((const char *[]){"target", "--device", "vcpu:0", "--json", NULL});
  json_error_t error;
  json_t *root = json_loads(run.out, 0, &error);
  assert_true(json_is_array(root));
  assert_int_equal(json_array_size(root), 1);
  json_t *entry = json_array_get(root, 0);
  assert_string_equal(json_string_value(json_object_get(entry, "device")),
                      "vcpu:0");
  json_t *target = json_object_get(entry, "target");
  assert_string_equal(json_string_value(json_object_get(target, "kind")),
                      "vcpu");
  assert_int_equal(json_integer_value(json_object_get(target, "num_cores")),
                   cpus);
  json_decref(root);
  tool_run_release(&run);

  /* No TARGET, no --device: every device, vcpu's two among them, each
   * after its name. */
  run = run_ok((const char *[]){"target", NULL});
  assert_int_equal(tool_count_lines(run.out, "vcpu:"), 2);
  assert_non_null(strstr(run.out, "vcpu:1     vcpu -keys=vcpu,cpu "));
  tool_run_release(&run);
}

static void test_target_errors(void **state) {
  (void)state;
  expect_failure((const char *[]){"target", "nochip", NULL}, 1, "'nochip'",
                 "kind");
  expect_failure((const char *[]){"target", "vcpu", "-num_corez=2", NULL}, 1,
                 "'num_corez'", "unknown attribute");
  expect_failure((const char *[]){"target",
                                  "{\"kind\":\"vcpu\",\"num_cores\":\"2\"}",
                                  NULL},
                 1, "'num_cores'", "integer");
  expect_failure((const char *[]){"target", "vcpu", "-num_cores=two", NULL}, 1,
                 "'two'", NULL);
  expect_failure(
      (const char *[]){"target", "--json", "{\"kind\":\"vcpu\",", NULL}, 1,
      "target", NULL);
  expect_failure((const char *[]){"target", "--device", "vcpu:9", NULL}, 1,
                 "vcpu:9", NULL);
  expect_failure((const char *[]){"target", "--device", "vcpu:0", "vcpu", NULL},
                 2, "not both", NULL);
}

static void test_info_shows_each_devices_target(void **state) {
  (void)state;
  tool_run_t run = run_ok((const char *[]){"info", NULL});
  const char *targets = strstr(run.out, "\nTargets:\n");
  assert_non_null(targets);
  assert_int_equal(tool_count_lines(targets, "vcpu:"), 2);
  assert_non_null(strstr(targets, "vcpu:1"));
  assert_non_null(strstr(targets, "\"kind\":\"vcpu\""));
  tool_run_release(&run);

  run = run_ok((const char *[]){"info", "--json", NULL});
  json_error_t error;
  json_t *root = json_loads(run.out, 0, &error);
  assert_non_null(root);
  size_t i, vcpus = 0;
  json_t *device;
  json_array_foreach(json_object_get(root, "devices"), i, device) {
    const char *name = json_string_value(json_object_get(device, "name"));
    if (!name || strncmp(name, "vcpu:", 5))
      continue;
    json_t *target = json_object_get(device, "target");
    assert_string_equal(json_string_value(json_object_get(target, "kind")),
                        "vcpu");
    assert_true(json_integer_value(json_object_get(target, "num_cores")) >= 1);
    vcpus++;
  }
  assert_int_equal(vcpus, 2);
  json_decref(root);
  tool_run_release(&run);
}

/* A scratch folder (also the build cache, through BACKPLANE_CACHE_DIR). */
static char g_dir[64];

static const char *in_dir(const char *name, char *path, size_t size) {
  snprintf(path, size, "%s/%s", g_dir, name);
  return path;
}

static void write_text(const char *name, const char *text) {
  char path[128];
  FILE *file = fopen(in_dir(name, path, sizeof(path)), "w");
  assert_non_null(file);
  fputs(text, file);
  assert_int_equal(fclose(file), 0);
}

enum { ROWS = 7, COLS = 3 };
static const char k_add_one[] =
    "{\"functions\":[{\"name\":\"add_one\",\"inputs\":[{\"name\":\"x\","
    "\"shape\":[7,3],\"dtype\":\"float32\"}],\"stages\":[{\"name\":\"y\","
    "\"shape\":[7,3],\"dtype\":\"float32\",\"axes\":[\"i\",\"j\"],\"expr\":"
    "{\"op\":\"add\",\"args\":[\"x\",1.0]}}],\"outputs\":[\"y\"]}]}";

/* Loads `so` on vcpu:0 and launches add_one with `blocks` blocks. */
static void launch_add_one(const char *so, uint32_t blocks) {
  bp_runtime_options_t options = {.struct_size = sizeof(options),
                                  .plugin_path = BP_VCPU_PLUGIN,
                                  .ignore_environment = 1,
                                  .skip_builtin_plugins = 1};
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  bp_device_t *device;
  assert_int_equal(bp_device_get(runtime, "vcpu", 0, &device), BP_OK);
  bp_module_t *module = NULL;
  if (bp_module_load(device, so, &module) != BP_OK)
    fail_msg("bp_module_load %s: %s", so, bp_last_error());
  bp_function_t *function;
  assert_int_equal(bp_module_function(module, "add_one", &function), BP_OK);
  void *x, *y;
  assert_int_equal(bp_device_malloc(device, ROWS * COLS * 4, &x), BP_OK);
  assert_int_equal(bp_device_malloc(device, ROWS * COLS * 4, &y), BP_OK);
  float *xs = x, *ys = y; /* vcpu memory is host-addressable */
  for (int k = 0; k < ROWS * COLS; k++) {
    xs[k] = (float)k * 0.5f - 4.0f;
    ys[k] = -1000.0f;
  }
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  bp_generated_params_t params = {{x, y}};
  assert_int_equal(
      bp_launch(function, blocks, &params, sizeof(params), NULL, stream),
      BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  for (int k = 0; k < ROWS * COLS; k++)
    assert_float_equal(ys[k], (float)k * 0.5f - 3.0f, 0);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  assert_int_equal(bp_device_free(device, x), BP_OK);
  assert_int_equal(bp_device_free(device, y), BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
  bp_runtime_destroy(runtime);
}

static void test_build_makes_a_loadable_module(void **state) {
  (void)state;
  char ir[128], so[128], so_json[128];
  write_text("add_one.json", k_add_one);
  in_dir("add_one.json", ir, sizeof(ir));
  in_dir("add_one.so", so, sizeof(so));
  tool_run_t run = run_ok((const char *[]){
      "build", ir, "--target", "vcpu -num_cores=2", "-o", so, NULL});
  char line[256];
  snprintf(line, sizeof(line), "built %s", so);
  assert_non_null(strstr(run.out, line));
  assert_non_null(strstr(run.out, "target " VCPU2));
  assert_non_null(strstr(run.out, "function add_one: unsigned int "
                                  "add_one(void *param), 2 block(s)"));
  tool_run_release(&run);
  launch_add_one(so, 2);

  /* --json, a JSON target; the second build of the same module is cached. */
  in_dir("add_one_json.so", so_json, sizeof(so_json));
  run = run_ok((const char *[]){"build", ir, "--target",
                                "{\"kind\":\"vcpu\",\"num_cores\":2}", "-o",
                                so_json, "--json", NULL});
  json_error_t error;
  json_t *root = json_loads(run.out, 0, &error);
  assert_non_null(root);
  assert_string_equal(json_string_value(json_object_get(root, "module")),
                      so_json);
  assert_true(json_is_true(json_object_get(root, "from_cache")));
  json_t *expected = json_loads(VCPU2, 0, &error);
  assert_true(json_equal(json_object_get(root, "target"), expected));
  json_t *function = json_array_get(json_object_get(root, "functions"), 0);
  assert_string_equal(json_string_value(json_object_get(function, "name")),
                      "add_one");
  assert_int_equal(json_integer_value(json_object_get(function, "blocks")), 2);
  json_decref(expected);
  json_decref(root);
  tool_run_release(&run);
  launch_add_one(so_json, 1); /* one block computes every row */
}

/* A one-stage IR module y[i] = `expr` over x[4]. */
static void write_ir(const char *name, const char *expr) {
  char text[512];
  snprintf(text, sizeof(text),
           "{\"functions\":[{\"name\":\"f\",\"inputs\":[{\"name\":\"x\","
           "\"shape\":[4],\"dtype\":\"float32\"}],\"stages\":[{\"name\":"
           "\"y\",\"shape\":[4],\"dtype\":\"float32\",\"axes\":[\"i\"],"
           "\"expr\":%s}],\"outputs\":[\"y\"]}]}",
           expr);
  write_text(name, text);
}

static void test_build_rejects_bad_input(void **state) {
  (void)state;
  char ir[128], so[128];
  in_dir("never.so", so, sizeof(so));
  write_ir("undefined.json", "{\"op\":\"add\",\"args\":[\"x\",\"q\"]}");
  expect_failure((const char *[]){"build",
                                  in_dir("undefined.json", ir, sizeof(ir)),
                                  "--target", "vcpu", "-o", so, NULL},
                 1, "stage 'y'", "undefined tensor 'q'");
  write_ir("unknown_op.json", "{\"op\":\"frobnicate\",\"args\":[\"x\"]}");
  expect_failure((const char *[]){"build",
                                  in_dir("unknown_op.json", ir, sizeof(ir)),
                                  "--target", "vcpu", NULL},
                 1, "stage 'y'", "'frobnicate'");
  write_text("add_one.json", k_add_one);
  expect_failure((const char *[]){"build",
                                  in_dir("add_one.json", ir, sizeof(ir)),
                                  "--target", "vcpu -num_corez=2", NULL},
                 1, "--target", "'num_corez'");
  expect_failure((const char *[]){"build",
                                  in_dir("absent.json", ir, sizeof(ir)),
                                  "--target", "vcpu", NULL},
                 1, "absent.json", NULL);
  expect_failure((const char *[]){"build", "--target", "vcpu", NULL}, 2,
                 "input file", NULL);
  assert_int_not_equal(access(so, F_OK), 0); /* nothing written */
}

static int setup(void **state) {
  (void)state;
  strcpy(g_dir, "/tmp/bp-tools-build.XXXXXX");
  if (!mkdtemp(g_dir))
    return -1;
  return setenv("BACKPLANE_CACHE_DIR", g_dir, 1);
}

static int teardown(void **state) {
  (void)state;
  char command[128];
  snprintf(command, sizeof(command), "rm -rf '%s'", g_dir);
  return system(command);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_target_canonical_text),
      cmocka_unit_test(test_target_output_parses_back_to_itself),
      cmocka_unit_test(test_target_json),
      cmocka_unit_test(test_target_of_a_device),
      cmocka_unit_test(test_target_errors),
      cmocka_unit_test(test_info_shows_each_devices_target),
      cmocka_unit_test(test_build_makes_a_loadable_module),
      cmocka_unit_test(test_build_rejects_bad_input),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
