/* Kernel variants: a manifest listing several kernels for one op, each for
 * the targets a predicate describes; loading picks the best match for the
 * device's canonical target. vcpu devices report BACKPLANE_VCPU_CORES cores,
 * so each test's runtime has the num_cores it needs. Through the public API. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance_kernels.h"
#include "kernel_fixture.h"

static char g_dir[64];
static char g_path[256];

static const char *in_dir(const char *name) {
  snprintf(g_path, sizeof g_path, "%s/%s", g_dir, name);
  return g_path;
}

static void write_manifest(const char *text) {
  FILE *file = fopen(in_dir("ops.json"), "wb");
  assert_non_null(file);
  fputs(text, file);
  assert_int_equal(fclose(file), 0);
  assert_int_equal(chmod(in_dir("ops.json"), 0644), 0);
}

static int open_folder(void **state) {
  (void)state;
  strcpy(g_dir, "/tmp/bp_variant_test_XXXXXX");
  assert_non_null(mkdtemp(g_dir));
  char command[1024];
  snprintf(command, sizeof command,
           "cp '%s' '%s/libk.so' && chmod 755 '%s/libk.so'", BP_TEST_KERNELS,
           g_dir, g_dir);
  assert_int_equal(system(command), 0);
  return 0;
}

static int close_folder(void **state) {
  (void)state;
  unsetenv("BACKPLANE_VCPU_CORES");
  char command[128];
  snprintf(command, sizeof command, "rm -rf %s", g_dir);
  assert_int_equal(system(command), 0);
  return 0;
}

/* A runtime over vcpu whose devices report `cores` cores. The variable is
 * changed only while no runtime exists (no thread of one can read the
 * environment meanwhile) and cleared by the group's teardown. */
static bp_runtime_t *runtime_with_cores(const char *cores) {
  assert_int_equal(setenv("BACKPLANE_VCPU_CORES", cores, 1), 0);
  return fixture_runtime(BP_VCPU_PLUGIN);
}

/* ops.json loaded on vcpu:0 of a runtime whose devices report `cores`. */
typedef struct loaded {
  bp_runtime_t *runtime;
  bp_device_t *device;
  bp_module_t *module;
} loaded_t;

static loaded_t load_ops(const char *cores) {
  loaded_t l = {runtime_with_cores(cores), NULL, NULL};
  assert_int_equal(bp_device_at(l.runtime, 0, &l.device), BP_OK);
  if (bp_module_load(l.device, in_dir("ops.json"), &l.module) != BP_OK)
    fail_msg("%s", bp_last_error());
  return l;
}

static bp_function_t *op_of(const loaded_t *l, const char *name) {
  bp_function_t *function = NULL;
  assert_int_equal(bp_module_function(l->module, name, &function), BP_OK);
  return function;
}

static void unload_ops(loaded_t *l) {
  assert_int_equal(bp_module_unload(l->module), BP_OK);
  bp_runtime_destroy(l->runtime);
}

/* Three variants: one for 4+ cores with the `cpu` key (3 clauses), one for
 * exactly 2 or 3 cores (3 clauses), a default (opInfo). A second op without
 * variants (seed 004's form) rides along. */
static const char k_three[] =
    "{\"Op\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "
    "\"kernelSo\": \"libk.so\", \"functionName\": \"empty_kernel\"},"
    " \"variants\": ["
    "  {\"target\": {\"kind\": \"vcpu\", \"min_num_cores\": 4, "
    "\"keys\": [\"cpu\"]}, \"kernelSo\": \"libk.so\", "
    "\"functionName\": \"block_kernel\"},"
    "  {\"target\": {\"kind\": \"vcpu\", \"min_num_cores\": 2, "
    "\"max_num_cores\": 3}, \"kernelSo\": \"libk.so\", "
    "\"functionName\": \"append_kernel\"}]},"
    " \"Plain\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "
    "\"kernelSo\": \"libk.so\", \"functionName\": \"fail_kernel\"}}}";

typedef struct expected {
  const char *cores;
  const char *function;
  int32_t variant;
  const char *target; /* NULL: the default */
} expected_t;

static void each_core_count_gets_its_variant(void **state) {
  (void)state;
  write_manifest(k_three);
  const expected_t cases[] = {
      {"1", "empty_kernel", -1, NULL},
      {"2", "append_kernel", 1,
       "{\"kind\":\"vcpu\",\"max_num_cores\":3,\"min_num_cores\":2}"},
      {"3", "append_kernel", 1,
       "{\"kind\":\"vcpu\",\"max_num_cores\":3,\"min_num_cores\":2}"},
      {"4", "block_kernel", 0,
       "{\"keys\":[\"cpu\"],\"kind\":\"vcpu\",\"min_num_cores\":4}"},
      {"16", "block_kernel", 0,
       "{\"keys\":[\"cpu\"],\"kind\":\"vcpu\",\"min_num_cores\":4}"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    loaded_t l = load_ops(cases[i].cores);
    bp_function_t *op = op_of(&l, "Op");
    assert_string_equal(bp_function_op(op), "Op");
    assert_string_equal(bp_function_name(op), cases[i].function);
    assert_int_equal(bp_function_variant(op), cases[i].variant);
    if (cases[i].target)
      assert_string_equal(bp_function_variant_target(op), cases[i].target);
    else
      assert_null(bp_function_variant_target(op));
    /* The reason names the device's target and the losers' failed clause. */
    const char *reason = bp_function_variant_reason(op);
    assert_non_null(reason);
    char cores_clause[64];
    snprintf(cores_clause, sizeof cores_clause, "\"num_cores\":%s",
             cases[i].cores);
    if (!strstr(reason, cores_clause) || !strstr(reason, "vcpu:0") ||
        !strstr(reason, "not chosen"))
      fail_msg("reason \"%s\" (%s cores)", reason, cases[i].cores);
    if (cases[i].variant != 0 && !strstr(reason, "below min_num_cores 4"))
      fail_msg("reason \"%s\" lacks variant 0's failed clause", reason);
    bp_function_t *plain = op_of(&l, "Plain");
    assert_int_equal(bp_function_variant(plain), -1);
    assert_null(bp_function_variant_reason(plain));
    assert_null(bp_function_variant_target(plain));
    unload_ops(&l);
  }
}

/* The function found by op name is the chosen kernel: launched, it does
 * what block_kernel does. */
static void launch_by_op_runs_the_chosen_variant(void **state) {
  (void)state;
  write_manifest(k_three);
  loaded_t l = load_ops("4");
  bp_device_t *device = l.device;
  bp_function_t *op = op_of(&l, "Op");
  void *memory = NULL;
  assert_int_equal(bp_device_malloc(device, 3 * sizeof(int), &memory), BP_OK);
  int *seen = memory;
  memset(seen, 0, 3 * sizeof *seen);
  bp_stream_t *stream = NULL;
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  block_param param = {seen};
  assert_int_equal(bp_launch(op, 3, &param, sizeof param, NULL, stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(seen[0], 3000);
  assert_int_equal(seen[1], 3001);
  assert_int_equal(seen[2], 3002);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  assert_int_equal(bp_device_free(device, seen), BP_OK);
  unload_ops(&l);
}

/* Equal clause counts: the earlier variant wins; a variant without
 * "target" is the default. */
static void ties_go_to_the_earlier_variant(void **state) {
  (void)state;
  write_manifest(
      "{\"Op\": {\"variants\": ["
      " {\"kernelSo\": \"libk.so\", \"functionName\": \"empty_kernel\"},"
      " {\"target\": {\"kind\": \"vcpu\", \"min_num_cores\": 2}, "
      "\"kernelSo\": \"libk.so\", \"functionName\": \"append_kernel\"},"
      " {\"target\": {\"kind\": \"vcpu\", \"min_num_cores\": 1}, "
      "\"kernelSo\": \"libk.so\", \"functionName\": \"block_kernel\"}]}}");
  loaded_t l = load_ops("2");
  bp_function_t *op = op_of(&l, "Op");
  assert_string_equal(bp_function_name(op), "append_kernel");
  assert_int_equal(bp_function_variant(op), 1);
  unload_ops(&l);
}

static void expect_load_error(const char *cores, const char *manifest,
                              bp_status_t status, const char *const *words) {
  write_manifest(manifest);
  bp_runtime_t *runtime = runtime_with_cores(cores);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  bp_module_t *module = NULL;
  assert_int_equal(bp_module_load(device, in_dir("ops.json"), &module), status);
  assert_null(module);
  const char *message = bp_last_error();
  for (size_t i = 0; words[i]; ++i)
    if (!strstr(message, words[i]))
      fail_msg("message \"%s\" lacks \"%s\"", message, words[i]);
  bp_runtime_destroy(runtime);
}

static void no_match_names_op_target_and_each_predicate(void **state) {
  (void)state;
  expect_load_error(
      "1",
      "{\"Softmax\": {\"variants\": ["
      " {\"target\": {\"kind\": \"vcpu\", \"min_num_cores\": 4}, "
      "\"kernelSo\": \"libk.so\", \"functionName\": \"block_kernel\"},"
      " {\"target\": {\"kind\": \"vcpu\", \"keys\": [\"gpu\"]}, "
      "\"kernelSo\": \"libk.so\", \"functionName\": \"append_kernel\"},"
      " {\"target\": {\"kind\": \"c\"}, "
      "\"kernelSo\": \"libk.so\", \"functionName\": \"empty_kernel\"}]}}",
      BP_ERR_NOT_FOUND,
      (const char *[]){"ops.json", "op \"Softmax\"", "vcpu:0",
                       "\"num_cores\":1", "variant 0",
                       "num_cores is 1, below min_num_cores 4", "variant 1",
                       "keys [\"vcpu\",\"cpu\"] lacks \"gpu\"", "variant 2",
                       "kind is 'vcpu', not 'c'", NULL});
}

static void malformed_predicates_name_op_and_variant(void **state) {
  (void)state;
#define VARIANTS(second)                                                       \
  "{\"Op\": {\"variants\": [{\"kernelSo\": \"libk.so\", \"functionName\": "    \
  "\"empty_kernel\"}, " second "]}}"
#define WITH_TARGET(target)                                                    \
  VARIANTS("{\"target\": " target ", \"kernelSo\": \"libk.so\", "              \
           "\"functionName\": \"empty_kernel\"}")
  const struct {
    const char *manifest;
    const char *why;
  } cases[] = {
      {WITH_TARGET("{\"kind\": \"vcpu\", \"num_corez\": 2}"),
       "unknown attribute 'num_corez' for kind 'vcpu'"},
      {WITH_TARGET("{\"kind\": \"vcpu\", \"min_mcpu\": 2}"),
       "'min_mcpu' bounds 'mcpu', which is not an integer attribute"},
      {WITH_TARGET("{\"kind\": \"vcpu\", \"min_num_cores\": \"2\"}"),
       "'min_num_cores' must be an integer"},
      {WITH_TARGET("{\"kind\": \"vcpu\", \"mcpu\": 7}"),
       "'mcpu' must be a string"},
      {WITH_TARGET("{\"kind\": \"vcpu\", \"keys\": \"cpu\"}"),
       "'keys' must be an array of strings"},
      {WITH_TARGET("{\"num_cores\": 2}"), "no \"kind\" string"},
      {WITH_TARGET("[\"vcpu\"]"), "\"target\" must be an object"},
      {VARIANTS("7"), "variant 1 is not an object"},
      {VARIANTS("{\"kernelSo\": \"libk.so\", \"functionName\": \"f\"}"),
       "2 defaults"},
      {"{\"Op\": {\"variants\": []}}", "\"variants\" must be an array"},
      {VARIANTS("{\"target\": {\"kind\": \"vcpu\"}, \"kernelSo\": "
                "\"../x.so\", \"functionName\": \"f\"}"),
       "leaves the manifest's folder"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    const char *variant = i == 8 || i == 9 ? "\"Op\"" : "variant 1";
    expect_load_error(
        "2", cases[i].manifest, BP_ERR_INVALID_ARGUMENT,
        (const char *[]){"ops.json", "op \"Op\"", variant, cases[i].why, NULL});
  }
#undef WITH_TARGET
#undef VARIANTS
}

/* A predicate of a kind nobody registered (a plugin that is not loaded)
 * is accepted and never matches; the default is chosen. */
static void unregistered_kind_matches_nothing(void **state) {
  (void)state;
  write_manifest("{\"Op\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "
                 "\"kernelSo\": \"libk.so\", \"functionName\": "
                 "\"empty_kernel\"}, \"variants\": [{\"target\": {\"kind\": "
                 "\"mychip\", \"arch\": \"v3\"}, \"kernelSo\": \"other.so\", "
                 "\"functionName\": \"chip_kernel\"}]}}");
  /* other.so does not exist: only the chosen variant's file is loaded. */
  loaded_t l = load_ops("2");
  bp_function_t *op = op_of(&l, "Op");
  assert_string_equal(bp_function_name(op), "empty_kernel");
  assert_non_null(
      strstr(bp_function_variant_reason(op), "not a registered kind"));
  unload_ops(&l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(each_core_count_gets_its_variant),
      cmocka_unit_test(launch_by_op_runs_the_chosen_variant),
      cmocka_unit_test(ties_go_to_the_earlier_variant),
      cmocka_unit_test(no_match_names_op_target_and_each_predicate),
      cmocka_unit_test(malformed_predicates_name_op_and_variant),
      cmocka_unit_test(unregistered_kind_matches_nothing),
  };
  return cmocka_run_group_tests(tests, open_folder, close_folder);
}
