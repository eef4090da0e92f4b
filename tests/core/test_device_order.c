/* The runtime's device order (include/backplane/device.h): vcpu first, then
 * the other device types by name, whatever order the plugins load in; and
 * BACKPLANE_VISIBLE_DEVICES (or bp_runtime_options_t.visible_devices)
 * selecting and ordering the devices every lookup sees, renumbering each
 * type's devices as CUDA_VISIBLE_DEVICES does, with an error naming any
 * entry that is malformed or names no loaded device. */
#include <stdio.h>
#include <stdlib.h>

#include "backplane/vendor_access.h"
#include "support/runtime_fixture.h"

#define EXTENSIONS_PLUGIN BP_CORPUS_DIR "/libbp_extensions.so"
/* Loaded in this order: the order the runtime shows must not follow it. */
#define ALL_PLUGINS STUB_PLUGIN ":" EXTENSIONS_PLUGIN ":" BP_VCPU_PLUGIN

/* The names of the runtime's devices by ordinal, comma-separated, each with
 * the plugin's own id of the device: "vcpu:0=0,vcpu:1=1" (the stub plugin
 * numbers its devices from 100). Checks that each
 * device's ordinal, DLPack id and lookup by type and index agree. */
static const char *listing(bp_runtime_t *runtime) {
  static char text[512];
  size_t used = 0;
  text[0] = '\0';
  for (size_t i = 0; i < bp_device_count(runtime); ++i) {
    bp_device_t *device = NULL, *same = NULL;
    assert_int_equal(bp_device_at(runtime, i, &device), BP_OK);
    assert_int_equal(bp_device_ordinal(device), i);
    assert_int_equal(bp_device_to_dl(device).device_id, (int32_t)i);
    assert_int_equal(bp_device_get(runtime, bp_device_type(device),
                                   bp_device_index(device), &same),
                     BP_OK);
    assert_ptr_equal(same, device);
    used += (size_t)snprintf(text + used, sizeof text - used, "%s%s=%d",
                             i ? "," : "", bp_device_name(device),
                             bp_device_c_handle(device)->id);
  }
  return text;
}

/* A runtime over ALL_PLUGINS with `visible` as the option (NULL: none) and
 * the environment read or not; *status gets bp_runtime_create's result. */
static bp_runtime_t *create(const char *visible, int read_environment,
                            bp_status_t *status) {
  bp_runtime_options_t options = fixture_options(ALL_PLUGINS);
  options.visible_devices = visible;
  options.ignore_environment = !read_environment;
  bp_runtime_t *runtime = NULL;
  *status = bp_runtime_create(&options, &runtime);
  assert_true((*status == BP_OK) == (runtime != NULL));
  return runtime;
}

static bp_runtime_t *created(const char *visible, int read_environment) {
  bp_status_t status;
  bp_runtime_t *runtime = create(visible, read_environment, &status);
  if (status != BP_OK)
    fail_msg("bp_runtime_create: %s", bp_last_error());
  return runtime;
}

static int clean_environment(void **state) {
  (void)state;
  unsetenv("BACKPLANE_VISIBLE_DEVICES");
  unsetenv("BACKPLANE_PLUGIN_PATH");
  unsetenv("CUSTOM_DEVICE_ROOT");
  return 0;
}

static void default_order_is_vcpu_then_types_by_name(void **state) {
  (void)state;
  bp_runtime_t *runtime = created(NULL, 0);
  assert_string_equal(listing(runtime),
                      "vcpu:0=0,vcpu:1=1,extensions:0=0,stub:0=100,stub:1=101");
  /* The device named by no type is the first vcpu one. */
  bp_device_t *active = NULL, *first = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &first), BP_OK);
  assert_int_equal(bp_device_get_active(runtime, NULL, &active), BP_OK);
  assert_ptr_equal(active, first);
  bp_runtime_destroy(runtime);
}

static void visible_devices_select_order_and_renumber(void **state) {
  (void)state;
  bp_runtime_t *runtime = created("stub:1, vcpu:1,vcpu:0", 0);
  /* stub:1 and vcpu:1 are each their type's first now. */
  assert_string_equal(listing(runtime), "stub:0=101,vcpu:0=1,vcpu:1=0");
  assert_int_equal(bp_runtime_plugin_count(runtime), 2);
  const char *reason = fixture_rejection(runtime, EXTENSIONS_PLUGIN);
  assert_non_null(reason);
  assert_contains(reason,
                  "visible_devices lists none of the plugin's 1 extensions");
  bp_runtime_destroy(runtime);

  runtime = created("vcpu,extensions", 0); /* bare types: all, in order */
  assert_string_equal(listing(runtime), "vcpu:0=0,vcpu:1=1,extensions:0=0");
  bp_runtime_destroy(runtime);

  runtime = created("", 0); /* empty: every device */
  assert_int_equal(bp_device_count(runtime), 5);
  bp_runtime_destroy(runtime);
}

static void visible_devices_variable_applies_unless_overridden(void **state) {
  (void)state;
  assert_int_equal(setenv("BACKPLANE_VISIBLE_DEVICES", "vcpu:1", 1), 0);
  bp_runtime_t *runtime = created(NULL, 1);
  assert_string_equal(listing(runtime), "vcpu:0=1");
  bp_runtime_destroy(runtime);
  /* The option wins; ignore_environment ignores the variable. */
  runtime = created("stub", 1);
  assert_string_equal(listing(runtime), "stub:0=100,stub:1=101");
  bp_runtime_destroy(runtime);
  runtime = created(NULL, 0);
  assert_int_equal(bp_device_count(runtime), 5);
  bp_runtime_destroy(runtime);
  unsetenv("BACKPLANE_VISIBLE_DEVICES");
}

/* bp_runtime_create fails with `expected`, naming `entry` and `source`. */
static void refused(const char *variable, const char *option,
                    bp_status_t expected, const char *entry,
                    const char *source) {
  if (variable)
    assert_int_equal(setenv("BACKPLANE_VISIBLE_DEVICES", variable, 1), 0);
  bp_status_t status;
  assert_null(create(option, variable != NULL, &status));
  assert_int_equal(status, expected);
  assert_error_mentions("bp_runtime_create");
  assert_error_mentions(entry);
  assert_error_mentions(source);
  unsetenv("BACKPLANE_VISIBLE_DEVICES");
}

static void visible_devices_errors_name_the_entry(void **state) {
  (void)state;
  refused("vcpu:0,acme:0", NULL, BP_ERR_NOT_FOUND, "\"acme:0\"",
          "BACKPLANE_VISIBLE_DEVICES");
  assert_error_mentions("no plugin provides device type \"acme\" (found: "
                        "stub, extensions, vcpu)");
  refused("acme", NULL, BP_ERR_NOT_FOUND, "\"acme\"",
          "BACKPLANE_VISIBLE_DEVICES");
  refused(NULL, "vcpu:7", BP_ERR_NOT_FOUND, "\"vcpu:7\"", "visible_devices");
  assert_error_mentions("vcpu has no device 7 (it has 2");
  refused(NULL, "vcpu:x", BP_ERR_INVALID_ARGUMENT, "\"vcpu:x\"",
          "visible_devices");
  refused(NULL, "vcpu:-1", BP_ERR_INVALID_ARGUMENT, "\"vcpu:-1\"",
          "visible_devices");
  refused(NULL, ":0", BP_ERR_INVALID_ARGUMENT, "\":0\"", "visible_devices");
  refused(NULL, "vcpu,,stub", BP_ERR_INVALID_ARGUMENT, "empty entry",
          "visible_devices");
  refused(NULL, "vcpu:0,vcpu", BP_ERR_INVALID_ARGUMENT, "\"vcpu\"",
          "visible_devices");
  assert_error_mentions("twice");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(default_order_is_vcpu_then_types_by_name,
                             clean_environment),
      cmocka_unit_test_setup(visible_devices_select_order_and_renumber,
                             clean_environment),
      cmocka_unit_test_setup(visible_devices_variable_applies_unless_overridden,
                             clean_environment),
      cmocka_unit_test_setup(visible_devices_errors_name_the_entry,
                             clean_environment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
