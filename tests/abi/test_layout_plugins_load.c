/* Plugins of each known layout of Paddle's table load into Backplane and are
 * read at their own slots: one built against layout A (904 bytes, whose
 * params size 88 is also B's: Paddle's macro would take a B host's call),
 * C (1040), D (1032), and one that checks only params->size (taken as B).
 * Each plugin (slot_plugin.c) answers xccl_get_unique_id_size with its
 * interface size and profiler_initialize with its params size, from the
 * slots Paddle's header of its layout gives them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/vendor_access.h"
#include "support/runtime_fixture.h"

static void assert_loads_as(const char *path, size_t interface_size,
                            size_t params_size) {
  bp_runtime_t *runtime = fixture_runtime(path);
  if (bp_runtime_rejected_count(runtime) != 0)
    fail_msg("%s rejected: %s", path, fixture_rejection(runtime, path));
  bp_plugin_info_t info;
  assert_int_equal(bp_runtime_plugin_info(runtime, 0, &info), BP_OK);
  assert_string_equal(info.device_type, "slots");
  assert_int_equal(info.interface_size, interface_size);
  const C_DeviceInterface *dispatch = bp_runtime_plugin_dispatch(runtime, 0);
  size_t id_size = 0;
  assert_non_null(dispatch->xccl_get_unique_id_size);
  assert_int_equal(dispatch->xccl_get_unique_id_size(&id_size), C_SUCCESS);
  assert_int_equal(id_size, interface_size);
  void *user_data = NULL;
  assert_non_null(dispatch->profiler_initialize);
  assert_int_equal(dispatch->profiler_initialize(NULL, &user_data), C_SUCCESS);
  assert_int_equal((uintptr_t)user_data, params_size);
  bp_device_t *device;
  assert_int_equal(bp_device_get(runtime, "slots", 0, &device), BP_OK);
  void *ptr = NULL;
  assert_int_equal(bp_device_malloc(device, 64, &ptr), BP_OK);
  assert_int_equal(bp_device_free(device, ptr), BP_OK);
  bp_runtime_destroy(runtime);
}

static void layout_a_plugin_loads(void **state) {
  (void)state;
  assert_loads_as(BP_SLOT_PLUGIN_DIR "/libbp_slot_plugin_a.so", 904, 88);
}

static void layout_c_plugin_loads(void **state) {
  (void)state;
  assert_loads_as(BP_SLOT_PLUGIN_DIR "/libbp_slot_plugin_c.so", 1040, 96);
}

static void layout_d_plugin_loads(void **state) {
  (void)state;
  assert_loads_as(BP_SLOT_PLUGIN_DIR "/libbp_slot_plugin_d.so", 1032, 96);
}

static void params_only_check_loads_as_b(void **state) {
  (void)state;
  assert_loads_as(BP_SLOT_PLUGIN_DIR "/libbp_slot_plugin_b_params_only.so", 912,
                  88);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(layout_a_plugin_loads),
      cmocka_unit_test(layout_c_plugin_loads),
      cmocka_unit_test(layout_d_plugin_loads),
      cmocka_unit_test(params_only_check_loads_as_b),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
