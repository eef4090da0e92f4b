/* A plugin built against Paddle 3.3.1's layout E (paddle3_plugin.c) loads
 * into Backplane through bp_runtime_create: the loader finds its layout by
 * probing, reports it, and translates its table to layout B, so every
 * function Backplane's layout has lands in its B slot (the collectives, the
 * profiler and blas_axpby moved), and E-only functions are left out. Memory
 * and copies then run through the plugin. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/vendor_access.h"
#include "support/runtime_fixture.h"

static void reports_layout_e(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_PADDLE3_PLUGIN);
  assert_int_equal(bp_runtime_rejected_count(runtime), 0);
  assert_int_equal(bp_runtime_plugin_count(runtime), 1);
  bp_plugin_info_t info;
  assert_int_equal(bp_runtime_plugin_info(runtime, 0, &info), BP_OK);
  assert_string_equal(info.device_type, "paddle3");
  assert_string_equal(info.sub_device_type, "layout-e");
  assert_int_equal(info.interface_size, 1128);
  assert_int_equal(info.abi_minor, 1);
  assert_int_equal(info.abi_patch, 1);
  assert_int_equal(info.device_count, 1);
  const char *native[] = {"device_memory_allocate", "memory_copy_h2d",
                          "xccl_get_unique_id_size", "profiler_initialize",
                          "blas_axpby"};
  for (size_t i = 0; i < sizeof native / sizeof *native; ++i)
    if (!fixture_lists(info.native_functions, native[i]))
      fail_msg("%s is not native", native[i]);
  /* E's get_compute_capability takes a device; B's does not. */
  assert_true(fixture_lists(info.missing_functions, "get_compute_capability"));
  assert_true(fixture_lists(info.missing_functions, "xccl_all_reduce"));
  bp_runtime_destroy(runtime);
}

static void moved_slots_reach_the_plugin(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_PADDLE3_PLUGIN);
  const C_DeviceInterface *dispatch = bp_runtime_plugin_dispatch(runtime, 0);
  assert_non_null(dispatch);
  bp_device_t *device;
  assert_int_equal(bp_device_get(runtime, "paddle3", 0, &device), BP_OK);
  C_Device handle = bp_device_c_handle(device);

  size_t id_size = 0;
  assert_non_null(dispatch->xccl_get_unique_id_size);
  assert_int_equal(dispatch->xccl_get_unique_id_size(&id_size), C_SUCCESS);
  assert_int_equal(id_size, 24);

  void *user_data = NULL;
  assert_non_null(dispatch->profiler_initialize);
  assert_int_equal(dispatch->profiler_initialize(NULL, &user_data), C_SUCCESS);
  assert_ptr_equal(user_data, (void *)(uintptr_t)0xE103);

  float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
  assert_non_null(dispatch->blas_axpby);
  assert_int_equal(
      dispatch->blas_axpby(handle, NULL, FLOAT32, 4, 2.0f, x, 1.0f, y),
      C_SUCCESS);
  const float want[4] = {12, 24, 36, 48};
  assert_memory_equal(y, want, sizeof want);
  assert_null(dispatch->get_compute_capability);
  bp_runtime_destroy(runtime);
}

static void memory_and_copies_run_through_it(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_PADDLE3_PLUGIN);
  bp_device_t *device;
  assert_int_equal(bp_device_get(runtime, "paddle3", 0, &device), BP_OK);
  const int32_t in[5] = {3, -1, 4, -1, 5};
  int32_t out[5] = {0};
  void *a = NULL, *b = NULL;
  assert_int_equal(bp_device_malloc(device, sizeof in, &a), BP_OK);
  assert_int_equal(bp_device_malloc(device, sizeof in, &b), BP_OK);
  assert_int_equal(bp_copy(device, a, NULL, in, sizeof in, NULL), BP_OK);
  assert_int_equal(bp_copy(device, b, device, a, sizeof in, NULL), BP_OK);
  assert_int_equal(bp_device_synchronize(device), BP_OK);
  assert_int_equal(bp_copy(NULL, out, device, b, sizeof out, NULL), BP_OK);
  assert_memory_equal(out, in, sizeof in);
  assert_int_equal(bp_device_free(device, a), BP_OK);
  assert_int_equal(bp_device_free(device, b), BP_OK);
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reports_layout_e),
      cmocka_unit_test(moved_slots_reach_the_plugin),
      cmocka_unit_test(memory_and_copies_run_through_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
