/* Splicing: no layer leaves the dispatch table byte-identical; the fault
 * layer replaces exactly the slots it has rules for and fails exactly the
 * chosen calls; bad configuration rejects the plugin with the reason. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/vendor_access.h"
#include "support/runtime_fixture.h"

/* The plugin's own table, as InitPlugin fills it. */
static C_DeviceInterface native_table(void) {
  void *handle = dlopen(BP_VCPU_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(handle);
  void *symbol = dlsym(handle, "InitPlugin");
  assert_non_null(symbol);
  void (*init)(CustomRuntimeParams *);
  memcpy(&init, &symbol, sizeof init);
  C_DeviceInterface table;
  memset(&table, 0, sizeof table);
  table.size = sizeof table;
  CustomRuntimeParams params = {.size = sizeof params, .interface = &table};
  init(&params);
  dlclose(handle);
  return table;
}

static void test_no_layer_is_byte_identical(void **state) {
  (void)state;
  unsetenv("BACKPLANE_LAYERS");
  bp_runtime_t *plain = fixture_layered_runtime(BP_VCPU_PLUGIN, NULL);
  bp_layer_options_t none = fixture_layer_options("", "");
  bp_runtime_t *explicit_none = fixture_layered_runtime(BP_VCPU_PLUGIN, &none);
  const C_DeviceInterface *a = bp_runtime_plugin_dispatch(plain, 0);
  const C_DeviceInterface *b = bp_runtime_plugin_dispatch(explicit_none, 0);
  assert_non_null(a);
  assert_non_null(b);
  assert_memory_equal(a, b, sizeof *a);
  /* Every native function is called directly: nothing in between. */
  C_DeviceInterface native = native_table();
  assert_ptr_equal(a->query_stream, native.query_stream);
  assert_ptr_equal(a->device_memory_allocate, native.device_memory_allocate);
  assert_ptr_equal(a->record_event, native.record_event);
  assert_ptr_equal(a->async_memory_copy_h2d, native.async_memory_copy_h2d);
  bp_layer_stats_t stats = fixture_layer_stats(plain);
  assert_int_equal(stats.faults_injected, 0);
  bp_runtime_destroy(explicit_none);
  bp_runtime_destroy(plain);
}

static void test_environment_enables_layers(void **state) {
  (void)state;
  setenv("BACKPLANE_LAYERS", "fault", 1);
  setenv("BACKPLANE_FAULT", "query_stream:1", 1);
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, NULL);
  unsetenv("BACKPLANE_LAYERS");
  unsetenv("BACKPLANE_FAULT");
  C_DeviceInterface native = native_table();
  const C_DeviceInterface *d = bp_runtime_plugin_dispatch(runtime, 0);
  assert_ptr_not_equal(d->query_stream, native.query_stream);
  assert_ptr_equal(d->query_event, native.query_event);
  bp_runtime_destroy(runtime);
}

static void test_fault_fails_the_nth_call(void **state) {
  (void)state;
  bp_layer_options_t options = fixture_layer_options(
      "fault", "device_memory_allocate:2,memory_copy_h2d:1="
               "C_ERROR");
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  const C_DeviceInterface *d = bp_runtime_plugin_dispatch(runtime, 0);
  C_DeviceInterface native = native_table();
  assert_ptr_not_equal(d->device_memory_allocate,
                       native.device_memory_allocate);
  assert_ptr_equal(d->device_memory_deallocate,
                   native.device_memory_deallocate);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  C_Device c = bp_device_c_handle(device);
  void *p[3] = {NULL, NULL, NULL};
  assert_int_equal(d->device_memory_allocate(c, &p[0], 64), C_SUCCESS);
  assert_int_equal(d->device_memory_allocate(c, &p[1], 64), C_FAILED);
  assert_null(p[1]); /* the plugin was never called */
  assert_int_equal(d->device_memory_allocate(c, &p[2], 64), C_SUCCESS);
  char host[64] = {0};
  assert_int_equal(d->memory_copy_h2d(c, p[0], host, sizeof host), C_ERROR);
  assert_int_equal(d->memory_copy_h2d(c, p[0], host, sizeof host), C_SUCCESS);
  assert_int_equal(fixture_layer_stats(runtime).faults_injected, 2);
  assert_int_equal(d->device_memory_deallocate(c, p[0], 64), C_SUCCESS);
  assert_int_equal(d->device_memory_deallocate(c, p[2], 64), C_SUCCESS);
  bp_runtime_destroy(runtime);
}

/* Which of 256 device_memory_stats calls fail under p=0.5 and `seed`. */
static void failure_pattern(const char *fault, unsigned char *out) {
  bp_layer_options_t options = fixture_layer_options("fault", fault);
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  const C_DeviceInterface *d = bp_runtime_plugin_dispatch(runtime, 0);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  for (int i = 0; i < 256; ++i) {
    size_t total = 0, free_bytes = 0;
    out[i] = d->device_memory_stats(bp_device_c_handle(device), &total,
                                    &free_bytes) != C_SUCCESS;
  }
  bp_runtime_destroy(runtime);
}

static void test_fault_probability_is_seeded(void **state) {
  (void)state;
  unsigned char a[256], b[256], c[256];
  failure_pattern("device_memory_stats:p=0.5,seed=7", a);
  failure_pattern("seed=7,device_memory_stats:p=0.5", b);
  failure_pattern("device_memory_stats:p=0.5,seed=8", c);
  assert_memory_equal(a, b, sizeof a);
  assert_memory_not_equal(a, c, sizeof a);
  int failures = 0;
  for (int i = 0; i < 256; ++i)
    failures += a[i];
  assert_in_range(failures, 80, 176);
  unsigned char never[256];
  failure_pattern("device_memory_stats:p=0", never);
  for (int i = 0; i < 256; ++i)
    assert_int_equal(never[i], 0);
}

/* Layer options are read once, by bp_runtime_create: a bad one fails it
 * (rather than rejecting every plugin), with a message naming it. */
static void assert_create_fails_because(const bp_layer_options_t *options,
                                        const char *needle) {
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create_layered(NULL, options, &runtime),
                   BP_ERR_INVALID_ARGUMENT);
  assert_null(runtime);
  if (!strstr(bp_last_error(), needle))
    fail_msg("error \"%s\" does not mention \"%s\"", bp_last_error(), needle);
}

static void test_bad_configuration_fails_create(void **state) {
  (void)state;
  bp_layer_options_t bad_layer = fixture_layer_options("fault,tracing", "");
  assert_create_fails_because(&bad_layer, "unknown layer \"tracing\"");
  bp_layer_options_t bad_fn = fixture_layer_options("fault", "no_such_fn:1");
  assert_create_fails_because(&bad_fn, "\"no_such_fn:1\": unknown function");
  bp_layer_options_t bad_n = fixture_layer_options("fault", "query_event:0");
  assert_create_fails_because(&bad_n, "N must be a call number");
  bp_layer_options_t bad_p =
      fixture_layer_options("fault", "query_event:p=1.5");
  assert_create_fails_because(&bad_p, "p must be a number in [0, 1]");
  bp_layer_options_t bad_status =
      fixture_layer_options("fault", "query_event:1=C_OK");
  assert_create_fails_because(&bad_status, "status must be");
  /* The same typo in the environment fails plain bp_runtime_create. */
  setenv("BACKPLANE_LAYERS", "validation,tracing", 1);
  bp_runtime_t *runtime = NULL;
  bp_status_t status = bp_runtime_create(NULL, &runtime);
  unsetenv("BACKPLANE_LAYERS");
  assert_int_equal(status, BP_ERR_INVALID_ARGUMENT);
  assert_null(runtime);
  assert_non_null(strstr(bp_last_error(), "unknown layer \"tracing\""));
}

static void test_bad_arguments(void **state) {
  (void)state;
  bp_layer_options_t small = {.struct_size = 4};
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create_layered(NULL, &small, &runtime),
                   BP_ERR_INVALID_ARGUMENT);
  assert_null(runtime);
  assert_non_null(strstr(bp_last_error(), "struct_size"));
  bp_layer_stats_t stats = {.struct_size = sizeof stats};
  assert_int_equal(bp_runtime_layer_stats(NULL, &stats),
                   BP_ERR_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_layer_is_byte_identical),
      cmocka_unit_test(test_environment_enables_layers),
      cmocka_unit_test(test_fault_fails_the_nth_call),
      cmocka_unit_test(test_fault_probability_is_seeded),
      cmocka_unit_test(test_bad_configuration_fails_create),
      cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
