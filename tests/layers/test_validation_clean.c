/* The validation layer on correct programs: the runtime's own paths (the
 * shared workload, twice, and a stream with queued work destroyed through
 * the framework face, which drains first) produce no report at all. */
#include <string.h>

#include "backplane/vendor_access.h"
#include "support/runtime_fixture.h"
#include "workload.h"

static void test_workload_is_clean(void **state) {
  (void)state;
  bp_layer_options_t options = fixture_layer_options("validation,fault", "");
  options.validation_abort = 1; /* any report fails the test loudly */
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  atomic_int ran = 0;
  outcome_t first = workload(runtime, &ran);
  outcome_t second = workload(runtime, &ran);
  assert_true(first.completed);
  assert_true(second.completed);
  assert_int_equal(fixture_layer_stats(runtime).validation_reports, 0);
  bp_runtime_destroy(runtime);
  assert_int_equal(atomic_load(&ran), 2);
}

static void test_misuse_is_counted(void **state) {
  (void)state;
  bp_layer_options_t options = fixture_layer_options("validation", "");
  options.validation_log = "/dev/null";
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  const C_DeviceInterface *d = bp_runtime_plugin_dispatch(runtime, 0);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  C_Device c = bp_device_c_handle(device);
  void *ptr = NULL;
  assert_int_equal(d->device_memory_allocate(c, &ptr, 256), C_SUCCESS);
  char host[512] = {0};
  /* Refused before reaching the plugin. */
  assert_int_equal(d->memory_copy_h2d(c, ptr, host, sizeof host), C_ERROR);
  assert_int_equal(d->memory_copy_h2d(c, ptr, host, 256), C_SUCCESS);
  assert_int_equal(d->device_memory_deallocate(c, ptr, 256), C_SUCCESS);
  assert_int_equal(d->device_memory_deallocate(c, ptr, 256), C_ERROR);
  assert_int_equal(fixture_layer_stats(runtime).validation_reports, 2);
  bp_runtime_destroy(runtime);
}

static void test_unopenable_log_rejects(void **state) {
  (void)state;
  bp_layer_options_t options = fixture_layer_options("validation", "");
  options.validation_log = "/nonexistent-dir/validation.log";
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  assert_int_equal(bp_device_count(runtime), 0);
  const char *path, *reason;
  assert_int_equal(bp_runtime_rejected_info(runtime, 0, &path, &reason), BP_OK);
  assert_non_null(strstr(reason, "BACKPLANE_VALIDATION_LOG"));
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_workload_is_clean),
      cmocka_unit_test(test_misuse_is_counted),
      cmocka_unit_test(test_unopenable_log_rejects),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
