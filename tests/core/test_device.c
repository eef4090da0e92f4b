/* Device handles, lookups, DLPack, attributes and memory info, against the
 * stub plugin (two devices). */
#include <dlfcn.h>

#include "backplane/vendor_access.h"
#include "plugins/corpus/stub_plugin.h"
#include "support/runtime_fixture.h"

static int setup(void **state) {
  *state = fixture_runtime(STUB_PLUGIN);
  return 0;
}

static int teardown(void **state) {
  bp_runtime_destroy(*state);
  return 0;
}

static void lookup(void **state) {
  bp_runtime_t *runtime = *state;
  assert_int_equal(bp_device_count(runtime), 2);
  assert_int_equal(bp_device_count(NULL), 0);
  bp_device_t *first, *second, *again;
  assert_int_equal(bp_device_at(runtime, 0, &first), BP_OK);
  assert_int_equal(bp_device_at(runtime, 1, &second), BP_OK);
  assert_ptr_not_equal(first, second);
  assert_int_equal(bp_device_get(runtime, "stub", 1, &again), BP_OK);
  assert_ptr_equal(again, second);
  assert_string_equal(bp_device_type(second), "stub");
  assert_int_equal(bp_device_index(second), 1);
  assert_int_equal(bp_device_ordinal(second), 1);
  assert_string_equal(bp_device_name(second), "stub:1");
  assert_string_equal(bp_device_name(first), "stub:0");
  assert_null(bp_device_type(NULL));
}

static void lookup_errors(void **state) {
  bp_runtime_t *runtime = *state;
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_at(runtime, 2, &device), BP_ERR_NOT_FOUND);
  assert_error_mentions("no device 2");
  assert_int_equal(bp_device_at(NULL, 0, &device), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_at(runtime, 0, NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_get(runtime, "nope", 0, &device),
                   BP_ERR_NOT_FOUND);
  assert_error_mentions("\"nope\"");
  assert_int_equal(bp_device_get(runtime, "stub", 2, &device),
                   BP_ERR_NOT_FOUND);
  assert_error_mentions("stub:2");
  assert_int_equal(bp_device_get(runtime, NULL, 0, &device),
                   BP_ERR_INVALID_ARGUMENT);
  assert_null(device);
}

static void dlpack(void **state) {
  bp_runtime_t *runtime = *state;
  bp_device_t *device, *back;
  assert_int_equal(bp_device_at(runtime, 1, &device), BP_OK);
  DLDevice dl = bp_device_to_dl(device);
  assert_int_equal(dl.device_type, kDLExtDev);
  assert_int_equal(dl.device_id, 1);
  assert_int_equal(bp_device_from_dl(runtime, dl, &back), BP_OK);
  assert_ptr_equal(back, device);
  DLDevice cpu = {kDLCPU, 0};
  assert_int_equal(bp_device_from_dl(runtime, cpu, &back),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("kDLExtDev");
  DLDevice far = {kDLExtDev, 7};
  assert_int_equal(bp_device_from_dl(runtime, far, &back), BP_ERR_NOT_FOUND);
  DLDevice negative = {kDLExtDev, -1};
  assert_int_equal(bp_device_from_dl(runtime, negative, &back),
                   BP_ERR_NOT_FOUND);
}

static void c_handle_is_initialized(void **state) {
  bp_runtime_t *runtime = *state;
  bp_device_t *device;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  C_Device handle = bp_device_c_handle(device);
  assert_non_null(handle);
  assert_int_equal(handle->id, 100); /* physical id from init_device */
  /* The handle works with the dispatch table directly. */
  const C_DeviceInterface *dispatch = bp_runtime_plugin_dispatch(runtime, 0);
  size_t total = 0, free_bytes = 0;
  assert_int_equal(dispatch->device_memory_stats(handle, &total, &free_bytes),
                   C_SUCCESS);
  assert_int_equal(total, STUB_MEMORY_LIMIT * 4);
  assert_null(bp_device_c_handle(NULL));
}

static void attributes(void **state) {
  bp_runtime_t *runtime = *state;
  bp_device_t *device;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  bp_device_attr_value_t value;
  /* From the device_attributes extension. */
  assert_int_equal(
      bp_device_attribute(device, BP_DEVICE_ATTR_WARP_SIZE, &value), BP_OK);
  assert_int_equal(value.kind, BP_DEVICE_ATTR_VALUE_INT);
  assert_int_equal(value.i64, 32);
  assert_int_equal(
      bp_device_attribute(device, BP_DEVICE_ATTR_DEVICE_NAME, &value), BP_OK);
  assert_int_equal(value.kind, BP_DEVICE_ATTR_VALUE_STRING);
  assert_string_equal(value.str, "stub-device");
  /* Derived from the base ABI. */
  assert_int_equal(bp_device_attribute(device, BP_DEVICE_ATTR_EXIST, &value),
                   BP_OK);
  assert_int_equal(value.i64, 1);
  assert_int_equal(
      bp_device_attribute(device, BP_DEVICE_ATTR_TOTAL_GLOBAL_MEMORY, &value),
      BP_OK);
  assert_int_equal(value.i64, (int64_t)(STUB_MEMORY_LIMIT * 4));
  assert_int_equal(bp_device_attribute(
                       device, BP_DEVICE_ATTR_AVAILABLE_GLOBAL_MEMORY, &value),
                   BP_OK);
  assert_int_equal(value.i64, (int64_t)(STUB_MEMORY_LIMIT * 2));
  assert_int_equal(
      bp_device_attribute(device, BP_DEVICE_ATTR_API_VERSION, &value), BP_OK);
  assert_int_equal(value.i64, STUB_RUNTIME_VERSION);
  /* Neither the extension nor the ABI can say: unsupported, not zero. */
  assert_int_equal(
      bp_device_attribute(device, BP_DEVICE_ATTR_DRIVER_VERSION, &value),
      BP_ERR_UNSUPPORTED);
  assert_error_mentions("get_driver_version");
  assert_int_equal(
      bp_device_attribute(device, BP_DEVICE_ATTR_MAX_THREADS_PER_BLOCK, &value),
      BP_ERR_UNSUPPORTED);
  assert_error_mentions("max_threads_per_block");
  assert_int_equal(bp_device_attribute(device, BP_DEVICE_ATTR_COUNT, &value),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_attribute(device, (bp_device_attr_t)-1, &value),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_attribute(NULL, BP_DEVICE_ATTR_EXIST, &value),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_attribute(device, BP_DEVICE_ATTR_EXIST, NULL),
                   BP_ERR_INVALID_ARGUMENT);
}

static void attribute_names(void **state) {
  (void)state;
  assert_string_equal(bp_device_attribute_name(BP_DEVICE_ATTR_EXIST), "exist");
  assert_string_equal(
      bp_device_attribute_name(BP_DEVICE_ATTR_MAX_THREADS_PER_BLOCK),
      "max_threads_per_block");
  assert_string_equal(
      bp_device_attribute_name(BP_DEVICE_ATTR_L2_CACHE_SIZE_BYTES),
      "l2_cache_size_bytes");
  assert_string_equal(
      bp_device_attribute_name(BP_DEVICE_ATTR_AVAILABLE_GLOBAL_MEMORY),
      "available_global_memory");
  assert_string_equal(
      bp_device_attribute_name(BP_DEVICE_ATTR_IMAGE_PITCH_ALIGNMENT),
      "image_pitch_alignment");
  for (int a = 0; a < BP_DEVICE_ATTR_COUNT; ++a)
    assert_non_null(bp_device_attribute_name((bp_device_attr_t)a));
  assert_null(bp_device_attribute_name(BP_DEVICE_ATTR_COUNT));
  assert_null(bp_device_attribute_name((bp_device_attr_t)-3));
}

static void memory_info(void **state) {
  bp_runtime_t *runtime = *state;
  bp_device_t *device;
  assert_int_equal(bp_device_at(runtime, 1, &device), BP_OK);
  size_t total = 0, free_bytes = 0;
  assert_int_equal(bp_device_memory_info(device, &total, &free_bytes), BP_OK);
  assert_int_equal(total, STUB_MEMORY_LIMIT * 4);
  assert_int_equal(free_bytes, STUB_MEMORY_LIMIT * 2);
  assert_int_equal(bp_device_memory_info(device, NULL, &free_bytes),
                   BP_ERR_INVALID_ARGUMENT);
}

static void synchronize(void **state) {
  bp_runtime_t *runtime = *state;
  bp_device_t *device;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  assert_int_equal(bp_device_synchronize(device), BP_OK);
  assert_int_equal(bp_device_synchronize(NULL), BP_ERR_INVALID_ARGUMENT);
}

/* set_device runs only when this thread's bound device changes. */
static void set_device_is_cached(void **state) {
  bp_runtime_t *runtime = *state;
  void *handle = dlopen(STUB_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(handle);
  void *symbol = dlsym(handle, "stub_counters");
  stub_counters_fn counters_fn;
  memcpy(&counters_fn, &symbol, sizeof counters_fn);
  stub_counters_t *counters = counters_fn();
  bp_device_t *a, *b;
  assert_int_equal(bp_device_at(runtime, 0, &a), BP_OK);
  assert_int_equal(bp_device_at(runtime, 1, &b), BP_OK);
  assert_int_equal(bp_device_synchronize(a), BP_OK);
  size_t before = counters->set_device;
  assert_int_equal(bp_device_synchronize(a), BP_OK);
  assert_int_equal(bp_device_synchronize(a), BP_OK);
  assert_int_equal(counters->set_device, before);
  assert_int_equal(bp_device_synchronize(b), BP_OK);
  assert_int_equal(counters->set_device, before + 1);
  assert_int_equal(bp_device_synchronize(a), BP_OK);
  assert_int_equal(counters->set_device, before + 2);
  dlclose(handle);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(lookup, setup, teardown),
      cmocka_unit_test_setup_teardown(lookup_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(dlpack, setup, teardown),
      cmocka_unit_test_setup_teardown(c_handle_is_initialized, setup, teardown),
      cmocka_unit_test_setup_teardown(attributes, setup, teardown),
      cmocka_unit_test_setup_teardown(attribute_names, setup, teardown),
      cmocka_unit_test_setup_teardown(memory_info, setup, teardown),
      cmocka_unit_test_setup_teardown(synchronize, setup, teardown),
      cmocka_unit_test_setup_teardown(set_device_is_cached, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
