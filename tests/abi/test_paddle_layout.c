/* The layout table's column E is Paddle 3.3.1's own device_ext.h, read from
 * the installed wheel's header with offsetof: every function where the table
 * puts it, the sizes, and the params fields a plugin writes (version,
 * device_type, sub_device_type) where BP_CustomRuntimeExport writes them.
 * Built only when CMake found Paddle (BP_WITH_PADDLE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "abi/layout_columns.h"
#include "abi/layout_sizes.h"
#include "backplane/device_layouts.h"

static void e_column_is_paddles_header(void **state) {
  (void)state;
  long slots[LAYOUT_ROW_COUNT];
  declared_layout_t declared = {.slots = slots};
  declared_layout_of_paddle(&declared);
  assert_int_equal(declared.interface_size,
                   BP_DeviceLayoutInterfaceSize(BP_DEVICE_LAYOUT_E));
  assert_int_equal(declared.params_size, 96);
  assert_int_equal(BP_DeviceLayoutParamsSize(BP_DEVICE_LAYOUT_E), 96);
  assert_layout_column_matches(BP_DEVICE_LAYOUT_E, slots,
                               "Paddle's device_ext.h");
  /* BP_CustomRuntimeExport writes these through Backplane's params. */
  assert_int_equal(declared.params_version,
                   offsetof(CustomRuntimeParams, version));
  assert_int_equal(declared.params_device_type,
                   offsetof(CustomRuntimeParams, device_type));
  assert_int_equal(declared.params_sub_device_type,
                   offsetof(CustomRuntimeParams, sub_device_type));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(e_column_is_paddles_header),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
