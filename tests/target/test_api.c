/* Targets through the public API: parsing both forms, defaults, validation
 * messages, canonical JSON round trip, equality and hash, plugin kinds and
 * canonicalization from a live device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/target.h"
#include "backplane/target_ext.h"

static bp_target_t *parse_ok(const char *text) {
  bp_target_t *target = NULL;
  bp_status_t status = bp_target_parse(text, &target);
  if (status != BP_OK)
    print_error("parse '%s': %s\n", text, bp_last_error());
  assert_int_equal(status, BP_OK);
  return target;
}

static char *json_of(const bp_target_t *target) {
  char *json = NULL;
  assert_int_equal(bp_target_to_json(target, &json), BP_OK);
  return json;
}

/* Parsing must fail with `status` and a message holding `needle`. */
static void parse_fails(const char *text, bp_status_t status,
                        const char *needle) {
  bp_target_t *target = (bp_target_t *)0x1;
  assert_int_equal(bp_target_parse(text, &target), status);
  assert_ptr_equal(target, (bp_target_t *)0x1); /* untouched on failure */
  if (!strstr(bp_last_error(), needle))
    fail_msg("'%s': message '%s' lacks '%s'", text, bp_last_error(), needle);
}

static void test_defaults(void **state) {
  (void)state;
  bp_target_t *target = parse_ok("{\"kind\": \"vcpu\", \"num_cores\": 2}");
  assert_string_equal(bp_target_kind(target), "vcpu");
  int64_t value = 0;
  assert_int_equal(bp_target_get_int(target, "num_cores", &value), BP_OK);
  assert_int_equal(value, 2);
  assert_int_equal(bp_target_get_int(target, "vector_width", &value), BP_OK);
  assert_int_equal(value, 8);
  assert_int_equal(bp_target_get_int(target, "warp_size", &value), BP_OK);
  assert_int_equal(value, 1);
  const char *const *keys = NULL;
  assert_int_equal(bp_target_get_strings(target, "keys", &keys), BP_OK);
  assert_string_equal(keys[0], "vcpu");
  assert_string_equal(keys[1], "cpu");
  assert_null(keys[2]);
  const char *mcpu = NULL;
  /* No default: absent until given. */
  assert_int_equal(bp_target_get_string(target, "mcpu", &mcpu),
                   BP_ERR_NOT_FOUND);
  assert_int_equal(bp_target_get_string(target, "num_cores", &mcpu),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_target_get_int(target, "nonsense", &value),
                   BP_ERR_NOT_FOUND);
  assert_null(bp_target_host(target));
  bp_target_destroy(target);
}

static void test_canonical_json(void **state) {
  (void)state;
  bp_target_t *target =
      parse_ok("c -num_cores=4 -mcpu=x86-64-v2 -keys=cpu,simd -libs=");
  char *json = json_of(target);
  /* The exact canonical text, written out by hand. */
  assert_string_equal(json, "{\"keys\":[\"cpu\",\"simd\"],\"kind\":\"c\","
                            "\"libs\":[],\"max_num_threads\":1,"
                            "\"max_shared_memory_per_block\":0,"
                            "\"mcpu\":\"x86-64-v2\",\"num_cores\":4,"
                            "\"vector_width\":8,\"warp_size\":1}");
  bp_target_t *again = parse_ok(json);
  char *json_again = json_of(again);
  assert_string_equal(json, json_again);
  assert_true(bp_target_equal(target, again));
  assert_true(bp_target_hash(target) == bp_target_hash(again));
  free(json);
  free(json_again);
  bp_target_destroy(target);
  bp_target_destroy(again);
}

static void test_short_form_equals_json(void **state) {
  (void)state;
  bp_target_t *a = parse_ok("vcpu -num_cores=2 -keys=cpu");
  bp_target_t *b =
      parse_ok("{\"kind\":\"vcpu\",\"keys\":[\"cpu\"],\"num_cores\":2}");
  bp_target_t *c = parse_ok("vcpu -num_cores=3 -keys=cpu");
  bp_target_t *d = parse_ok("c -num_cores=2 -keys=cpu");
  assert_true(bp_target_equal(a, b));
  assert_true(bp_target_hash(a) == bp_target_hash(b));
  assert_false(bp_target_equal(a, c));
  assert_false(bp_target_hash(a) == bp_target_hash(c));
  assert_false(bp_target_equal(a, d));
  bp_target_destroy(a);
  bp_target_destroy(b);
  bp_target_destroy(c);
  bp_target_destroy(d);
}

static void test_host(void **state) {
  (void)state;
  bp_target_t *target =
      parse_ok("{\"kind\":\"vcpu\",\"host\":\"c -num_cores=4\"}");
  const bp_target_t *host = bp_target_host(target);
  assert_non_null(host);
  assert_string_equal(bp_target_kind(host), "c");
  int64_t cores = 0;
  assert_int_equal(bp_target_get_int(host, "num_cores", &cores), BP_OK);
  assert_int_equal(cores, 4);
  char *json = json_of(target);
  assert_non_null(strstr(json, "\"host\":{\"keys\":[\"cpu\"],\"kind\":\"c\""));
  bp_target_t *again = parse_ok(json);
  assert_true(bp_target_equal(target, again));
  bp_target_t *other =
      parse_ok("{\"kind\":\"vcpu\",\"host\":{\"kind\":\"c\"}}");
  assert_false(bp_target_equal(target, other));
  free(json);
  bp_target_destroy(target);
  bp_target_destroy(again);
  bp_target_destroy(other);
}

static void test_errors_name_the_problem(void **state) {
  (void)state;
  parse_fails("{\"kind\": \"tpu9\"}", BP_ERR_NOT_FOUND, "'tpu9'");
  parse_fails("tpu9 -num_cores=1", BP_ERR_NOT_FOUND, "'tpu9'");
  parse_fails("{\"kind\": \"vcpu\", \"num_corez\": 2}", BP_ERR_INVALID_ARGUMENT,
              "'num_corez'");
  parse_fails("vcpu -num_corez=2", BP_ERR_INVALID_ARGUMENT, "'num_corez'");
  parse_fails("{\"kind\": \"vcpu\", \"num_cores\": \"2\"}",
              BP_ERR_INVALID_ARGUMENT,
              "'num_cores' of kind 'vcpu' must be an "
              "integer");
  parse_fails("vcpu -num_cores=two", BP_ERR_INVALID_ARGUMENT, "'two'");
  parse_fails("{\"kind\": \"vcpu\", \"num_cores\": 0}", BP_ERR_INVALID_ARGUMENT,
              "below its minimum 1");
  parse_fails("{\"kind\": \"vcpu\", \"keys\": [\"a\", 3]}",
              BP_ERR_INVALID_ARGUMENT, "'keys'");
  parse_fails("{\"kind\": \"vcpu\", \"mcpu\": 7}", BP_ERR_INVALID_ARGUMENT,
              "'mcpu' of kind 'vcpu' must be a string");
  parse_fails("{\"kind\": \"vcpu\",", BP_ERR_INVALID_ARGUMENT,
              "malformed JSON");
  parse_fails("{\"num_cores\": 2}", BP_ERR_INVALID_ARGUMENT, "\"kind\"");
  parse_fails("vcpu num_cores=2", BP_ERR_INVALID_ARGUMENT, "-name=value");
  parse_fails("vcpu -num_cores=1 -num_cores=2", BP_ERR_INVALID_ARGUMENT,
              "given twice");
  parse_fails("   ", BP_ERR_INVALID_ARGUMENT, "empty target");
  parse_fails("{\"kind\":\"vcpu\",\"host\":{\"kind\":\"c\",\"x\":1}}",
              BP_ERR_INVALID_ARGUMENT, "'x'");
  parse_fails("{\"kind\":\"vcpu\",\"host\":7}", BP_ERR_INVALID_ARGUMENT,
              "\"host\"");
  parse_fails("{\"kind\":\"c\",\"host\":{\"kind\":\"c\",\"host\":{\"kind\":"
              "\"c\",\"host\":{\"kind\":\"c\",\"host\":{\"kind\":\"c\","
              "\"host\":\"c\"}}}}}",
              BP_ERR_INVALID_ARGUMENT, "nested deeper");
  bp_target_t *target;
  assert_int_equal(bp_target_parse(NULL, &target), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_target_parse("c", NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_target_to_json(NULL, NULL), BP_ERR_INVALID_ARGUMENT);
  bp_target_destroy(NULL);
}

/* ---- plugin kinds ------------------------------------------------------ */

static const BP_TargetAttrSchema chip_attrs[] = {
    {"arch", BP_TARGET_ATTR_STRING, 1, 0, 0, "v1"},
    {"warp_size", BP_TARGET_ATTR_INT, 1, 16, 1, NULL},
    {"lanes", BP_TARGET_ATTR_INT, 0, 0, 1, NULL},
};

static C_Status chip_from_device(const C_Device device, char *json,
                                 size_t capacity) {
  (void)device;
  snprintf(json, capacity, "{\"lanes\": 64}");
  return C_SUCCESS;
}

static BP_TargetKindExtension chip_kind(void) {
  BP_TargetKindExtension kind = {
      {sizeof(BP_TargetKindExtension), BP_EXTENSION_TARGET_KIND, 0, NULL},
      "stubchip",
      "stub",
      chip_attrs,
      sizeof(chip_attrs) / sizeof(chip_attrs[0]),
      "stubchip,gpu",
      chip_from_device,
      NULL};
  return kind;
}

static void test_plugin_kind(void **state) {
  (void)state;
  BP_TargetKindExtension kind = chip_kind();
  assert_int_equal(bp_target_kind_register(&kind), BP_OK);
  assert_int_equal(bp_target_kind_register(&kind), BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "exists already"));
  const char **names = NULL;
  assert_int_equal(bp_target_kind_list(&names), BP_OK);
  assert_string_equal(names[0], "vcpu");
  assert_string_equal(names[1], "c");
  assert_string_equal(names[2], "stubchip");
  assert_null(names[3]);
  free(names);

  bp_target_t *target = parse_ok("stubchip -lanes=32");
  const char *arch = NULL;
  assert_int_equal(bp_target_get_string(target, "arch", &arch), BP_OK);
  assert_string_equal(arch, "v1");
  char *json = json_of(target);
  assert_string_equal(json, "{\"arch\":\"v1\",\"keys\":[\"stubchip\",\"gpu\"],"
                            "\"kind\":\"stubchip\",\"lanes\":32,\"libs\":[],"
                            "\"warp_size\":16}");
  free(json);
  parse_fails("stubchip -num_cores=2", BP_ERR_INVALID_ARGUMENT,
              "'num_cores' for kind 'stubchip'");
  bp_target_destroy(target);

  /* A live stub device: warp size 32 from the device, lanes from the hook. */
  bp_runtime_options_t options = {.struct_size = sizeof(options),
                                  .plugin_path = BP_CORPUS_DIR "/libbp_stub.so",
                                  .ignore_environment = 1,
                                  .skip_builtin_plugins = 1};
  bp_runtime_t *runtime;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  bp_device_t *device;
  assert_int_equal(bp_device_get(runtime, "stub", 0, &device), BP_OK);
  assert_int_equal(bp_target_from_device(device, &target), BP_OK);
  json = json_of(target);
  assert_string_equal(json, "{\"arch\":\"v1\",\"keys\":[\"stubchip\",\"gpu\"],"
                            "\"kind\":\"stubchip\",\"lanes\":64,\"libs\":[],"
                            "\"warp_size\":32}");
  free(json);
  bp_target_destroy(target);
  bp_runtime_destroy(runtime);

  assert_int_equal(bp_target_kind_unregister("stubchip"), BP_OK);
  parse_fails("stubchip", BP_ERR_NOT_FOUND, "'stubchip'");
  assert_int_equal(bp_target_kind_unregister("vcpu"), BP_ERR_NOT_FOUND);
  assert_int_equal(bp_target_kind_unregister("stubchip"), BP_ERR_NOT_FOUND);
}

static void test_malformed_kinds_rejected(void **state) {
  (void)state;
  BP_TargetKindExtension kind = chip_kind();
  kind.base.struct_size = 8;
  assert_int_equal(bp_target_kind_register(&kind), BP_ERR_INVALID_ARGUMENT);
  kind = chip_kind();
  kind.name = "Bad Name";
  assert_int_equal(bp_target_kind_register(&kind), BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "'Bad Name'"));
  static const BP_TargetAttrSchema repeated[] = {
      {"keys", BP_TARGET_ATTR_STRING, 0, 0, 0, NULL}};
  kind = chip_kind();
  kind.attrs = repeated;
  kind.attr_count = 1;
  assert_int_equal(bp_target_kind_register(&kind), BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "'keys'"));
  static const BP_TargetAttrSchema bad_type[] = {{"x", 9, 0, 0, 0, NULL}};
  kind.attrs = bad_type;
  assert_int_equal(bp_target_kind_register(&kind), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_target_kind_register(NULL), BP_ERR_INVALID_ARGUMENT);
  parse_fails("stubchip", BP_ERR_NOT_FOUND, "'stubchip'");
}

#ifdef BP_VCPU_PLUGIN
static void test_from_vcpu_device(void **state) {
  (void)state;
  bp_runtime_options_t options = {.struct_size = sizeof(options),
                                  .plugin_path = BP_VCPU_PLUGIN,
                                  .ignore_environment = 1,
                                  .skip_builtin_plugins = 1};
  bp_runtime_t *runtime;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  bp_device_t *device;
  assert_int_equal(bp_device_get(runtime, "vcpu", 1, &device), BP_OK);
  bp_target_t *target;
  assert_int_equal(bp_target_from_device(device, &target), BP_OK);
  assert_string_equal(bp_target_kind(target), "vcpu");
  int64_t cores = 0;
  assert_int_equal(bp_target_get_int(target, "num_cores", &cores), BP_OK);
  assert_int_equal(cores, sysconf(_SC_NPROCESSORS_ONLN));
  char *json = json_of(target);
  bp_target_t *again = parse_ok(json);
  assert_true(bp_target_equal(target, again));
  free(json);
  bp_target_destroy(again);
  bp_target_destroy(target);
  assert_int_equal(bp_target_from_device(NULL, &target),
                   BP_ERR_INVALID_ARGUMENT);
  bp_runtime_destroy(runtime);
}
#endif

static int kind_listed(const char *name) {
  const char **names = NULL;
  assert_int_equal(bp_target_kind_list(&names), BP_OK);
  int found = 0;
  for (size_t i = 0; names[i]; i++)
    found |= !strcmp(names[i], name);
  free(names);
  return found;
}

static bp_runtime_t *runtime_with(const char *plugin_path) {
  bp_runtime_options_t options = {.struct_size = sizeof(options),
                                  .plugin_path = plugin_path,
                                  .ignore_environment = 1,
                                  .skip_builtin_plugins = 1};
  bp_runtime_t *runtime;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  return runtime;
}

/* A plugin's target-kind extension registers its kind while the plugin is
 * loaded (in any runtime), without the host's help. */
static void test_plugin_extension_kind_lives_with_plugin(void **state) {
  (void)state;
  const char *path = BP_CORPUS_DIR "/libbp_extensions.so";
  assert_false(kind_listed("extchip"));
  bp_runtime_t *first = runtime_with(path);
  assert_int_equal(bp_runtime_plugin_count(first), 1);
  assert_true(kind_listed("extchip"));
  bp_target_t *target = parse_ok("extchip");
  char *json = json_of(target);
  assert_string_equal(json, "{\"keys\":[\"extchip\"],\"kind\":\"extchip\","
                            "\"lanes\":16,\"libs\":[]}");
  free(json);
  bp_target_destroy(target);
  /* The host cannot take away a loaded plugin's kind. */
  assert_int_equal(bp_target_kind_unregister("extchip"),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "loaded plugin"));

  /* A second runtime loading the same plugin shares the kind. */
  bp_runtime_t *second = runtime_with(path);
  assert_int_equal(bp_runtime_plugin_count(second), 1);
  bp_runtime_destroy(first);
  assert_true(kind_listed("extchip"));
  bp_runtime_destroy(second);
  assert_false(kind_listed("extchip"));
  parse_fails("extchip", BP_ERR_NOT_FOUND, "'extchip'");
}

/* A kind the host already holds under that name rejects the plugin, with
 * the name in the reason; the host's kind stays. */
static void test_plugin_extension_kind_conflict_rejects(void **state) {
  (void)state;
  BP_TargetKindExtension kind = chip_kind();
  kind.name = "extchip";
  assert_int_equal(bp_target_kind_register(&kind), BP_OK);
  bp_runtime_t *runtime = runtime_with(BP_CORPUS_DIR "/libbp_extensions.so");
  assert_int_equal(bp_runtime_plugin_count(runtime), 0);
  assert_int_equal(bp_runtime_rejected_count(runtime), 1);
  const char *path, *reason;
  assert_int_equal(bp_runtime_rejected_info(runtime, 0, &path, &reason), BP_OK);
  assert_non_null(strstr(reason, "kind 'extchip' exists already"));
  bp_runtime_destroy(runtime);
  assert_true(kind_listed("extchip"));
  assert_int_equal(bp_target_kind_unregister("extchip"), BP_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_canonical_json),
      cmocka_unit_test(test_short_form_equals_json),
      cmocka_unit_test(test_host),
      cmocka_unit_test(test_errors_name_the_problem),
      cmocka_unit_test(test_plugin_kind),
      cmocka_unit_test(test_plugin_extension_kind_lives_with_plugin),
      cmocka_unit_test(test_plugin_extension_kind_conflict_rejects),
      cmocka_unit_test(test_malformed_kinds_rejected),
#ifdef BP_VCPU_PLUGIN
      cmocka_unit_test(test_from_vcpu_device),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
