/* The vendor ABI, checked at run time against numbers written here (Paddle's
 * layout B, LP64): sizes, slot offsets and enum values a binary plugin built
 * for Paddle depends on. The header's static assertions guard the build; this
 * test guards the header itself against a silent edit of both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "abi/abi_layout.h"
#include "backplane/device_ext.h"

#define SLOT(n) ((size_t)(n)*8u)

static void test_interface_is_912_bytes_with_slots_of_layout_b(void **state) {
  (void)state;
  assert_int_equal(sizeof(C_DeviceInterface), 912);
  assert_int_equal(offsetof(C_DeviceInterface, size), 0);
  assert_int_equal(offsetof(C_DeviceInterface, initialize), SLOT(1));
  assert_int_equal(offsetof(C_DeviceInterface, get_device), SLOT(5));
  assert_int_equal(offsetof(C_DeviceInterface, stream_add_callback), SLOT(10));
  assert_int_equal(offsetof(C_DeviceInterface, stream_wait_event), SLOT(18));
  assert_int_equal(offsetof(C_DeviceInterface, reserved_dev_api), SLOT(19));
  assert_int_equal(offsetof(C_DeviceInterface, device_memory_allocate),
                   SLOT(27));
  assert_int_equal(offsetof(C_DeviceInterface, memory_copy_h2d), SLOT(34));
  assert_int_equal(offsetof(C_DeviceInterface, async_memory_copy_p2p),
                   SLOT(41));
  assert_int_equal(offsetof(C_DeviceInterface, get_device_count), SLOT(50));
  assert_int_equal(offsetof(C_DeviceInterface, device_min_chunk_size),
                   SLOT(53));
  assert_int_equal(offsetof(C_DeviceInterface, get_driver_version), SLOT(61));
  assert_int_equal(offsetof(C_DeviceInterface, xccl_get_unique_id_size),
                   SLOT(70));
  assert_int_equal(offsetof(C_DeviceInterface, xccl_all_to_all), SLOT(83));
  assert_int_equal(offsetof(C_DeviceInterface, profiler_initialize), SLOT(92));
  assert_int_equal(offsetof(C_DeviceInterface, profiler_collect_trace_data),
                   SLOT(97));
  assert_int_equal(offsetof(C_DeviceInterface, blas_axpby), SLOT(106));
  assert_int_equal(offsetof(C_DeviceInterface, reserved_other_api), SLOT(107));
}

static void test_params_are_88_bytes(void **state) {
  (void)state;
  assert_int_equal(sizeof(CustomRuntimeParams), 88);
  assert_int_equal(sizeof(CustomRuntimeVersion), 24);
  assert_int_equal(offsetof(CustomRuntimeParams, size), 0);
  assert_int_equal(offsetof(CustomRuntimeParams, interface), 8);
  assert_int_equal(offsetof(CustomRuntimeParams, version), 16);
  assert_int_equal(offsetof(CustomRuntimeParams, device_type), 40);
  assert_int_equal(offsetof(CustomRuntimeParams, sub_device_type), 48);
  assert_int_equal(offsetof(CustomRuntimeParams, reserved), 56);
  assert_int_equal(sizeof(C_CCLRootId), 16);
  assert_int_equal(sizeof(((C_Device)0)->id), 4);
}

static void test_version_macros_are_0_1_1(void **state) {
  (void)state;
  assert_int_equal(PADDLE_CUSTOM_RUNTIME_MAJOR_VERSION, 0);
  assert_int_equal(PADDLE_CUSTOM_RUNTIME_MINOR_VERSION, 1);
  assert_int_equal(PADDLE_CUSTOM_RUNTIME_PATCH_VERSION, 1);
}

static void test_status_values(void **state) {
  (void)state;
  assert_int_equal(sizeof(C_Status), 4);
  assert_int_equal(C_SUCCESS, 0);
  assert_int_equal(C_WARNING, 1);
  assert_int_equal(C_FAILED, 2);
  assert_int_equal(C_ERROR, 3);
  assert_int_equal(C_INTERNAL_ERROR, 4);
}

static void test_data_type_values(void **state) {
  (void)state;
  assert_int_equal(sizeof(C_DataType), 4);
  assert_int_equal(UNDEFINED, 0);
  assert_int_equal(BOOL, 1);
  assert_int_equal(UINT8, 2);
  assert_int_equal(UINT64, 5);
  assert_int_equal(INT8, 6);
  assert_int_equal(INT64, 9);
  assert_int_equal(FLOAT16, 10);
  assert_int_equal(FLOAT32, 11);
  assert_int_equal(FLOAT64, 12);
  assert_int_equal(BFLOAT16, 13);
  assert_int_equal(COMPLEX64, 14);
  assert_int_equal(COMPLEX128, 15);
}

static void test_data_type_sizes(void **state) {
  (void)state;
  assert_int_equal(BP_DataTypeSize(UNDEFINED), 0);
  assert_int_equal(BP_DataTypeSize(BOOL), 1);
  assert_int_equal(BP_DataTypeSize(INT8), 1);
  assert_int_equal(BP_DataTypeSize(UINT16), 2);
  assert_int_equal(BP_DataTypeSize(FLOAT16), 2);
  assert_int_equal(BP_DataTypeSize(BFLOAT16), 2);
  assert_int_equal(BP_DataTypeSize(INT32), 4);
  assert_int_equal(BP_DataTypeSize(FLOAT32), 4);
  assert_int_equal(BP_DataTypeSize(UINT64), 8);
  assert_int_equal(BP_DataTypeSize(FLOAT64), 8);
  assert_int_equal(BP_DataTypeSize(COMPLEX64), 8);
  assert_int_equal(BP_DataTypeSize(COMPLEX128), 16);
  assert_int_equal(BP_DataTypeSize((C_DataType)99), 0);
}

static void test_layout_and_reduce_op_values(void **state) {
  (void)state;
  assert_int_equal(ANY, 0);
  assert_int_equal(NCHW, 2);
  assert_int_equal(STRIDED, 5);
  assert_int_equal(NUM_DATA_LAYOUTS, 6);
  assert_int_equal(ALL_LAYOUT, 0);
  assert_int_equal(sizeof(C_CCLReduceOp), 4);
  assert_int_equal(SUM, 0);
  assert_int_equal(AVG, 1);
  assert_int_equal(MAX, 2);
  assert_int_equal(MIN, 3);
  assert_int_equal(PRODUCT, 4);
}

static void test_extension_structs(void **state) {
  (void)state;
  assert_int_equal(BP_EXTENSION_DEVICE_ATTRIBUTES, 1);
  assert_int_equal(BP_EXTENSION_EVENT_TIMING, 2);
  assert_int_equal(sizeof(BP_ExtensionBase), 24);
  assert_int_equal(offsetof(BP_ExtensionBase, type), 8);
  assert_int_equal(offsetof(BP_ExtensionBase, next), 16);
  assert_int_equal(offsetof(BP_DeviceAttributesExtension, get_attribute), 24);
  assert_int_equal(sizeof(BP_DeviceAttributesExtension), 32);
  assert_int_equal(offsetof(BP_EventTimingExtension, event_elapsed_time), 24);
  assert_int_equal(sizeof(BP_EventTimingExtension), 32);
  assert_int_equal(sizeof(BP_AttrValue), 272);
  assert_int_equal(offsetof(BP_AttrValue, i64), 8);
  assert_int_equal(offsetof(BP_AttrValue, str), 16);
  assert_int_equal(BP_ATTR_VALUE_UNSUPPORTED, 0);
  assert_int_equal(BP_ATTR_VALUE_INT, 1);
  assert_int_equal(BP_ATTR_VALUE_STRING, 2);
}

static void test_attribute_numbers_follow_tvm(void **state) {
  (void)state;
  assert_int_equal(BP_ATTR_EXIST, 0);
  assert_int_equal(BP_ATTR_MAX_THREADS_PER_BLOCK, 1);
  assert_int_equal(BP_ATTR_WARP_SIZE, 2);
  assert_int_equal(BP_ATTR_DEVICE_NAME, 5);
  assert_int_equal(BP_ATTR_MULTI_PROCESSOR_COUNT, 7);
  assert_int_equal(BP_ATTR_DRIVER_VERSION, 12);
  assert_int_equal(BP_ATTR_TOTAL_GLOBAL_MEMORY, 14);
  assert_int_equal(BP_ATTR_IMAGE_PITCH_ALIGNMENT, 16);
  assert_int_equal(BP_ATTR_COUNT, 17);
}

static void test_trace_event_layout(void **state) {
  (void)state;
  assert_int_equal(sizeof(BP_TraceEvent), 80);
  assert_int_equal(offsetof(BP_TraceEvent, name), 8);
  assert_int_equal(offsetof(BP_TraceEvent, start_ns), 24);
  assert_int_equal(offsetof(BP_TraceEvent, device_id), 40);
  assert_int_equal(offsetof(BP_TraceEvent, stream_id), 48);
  assert_int_equal(offsetof(BP_TraceEvent, args_json), 72);
}

static void assert_layout_is_layout_b(const abi_layout_t *layout) {
  assert_int_equal(layout->interface_size, 912);
  assert_int_equal(layout->params_size, 88);
  assert_int_equal(layout->offset_initialize, SLOT(1));
  assert_int_equal(layout->offset_device_memory_allocate, SLOT(27));
  assert_int_equal(layout->offset_get_device_count, SLOT(50));
  assert_int_equal(layout->offset_xccl_get_unique_id_size, SLOT(70));
  assert_int_equal(layout->offset_profiler_initialize, SLOT(92));
  assert_int_equal(layout->offset_blas_axpby, SLOT(106));
  assert_int_equal(layout->offset_params_device_type, 40);
  assert_int_equal(layout->extension_base_size, 24);
  assert_int_equal(layout->trace_event_size, 80);
  assert_int_equal(layout->data_type_bfloat16, 13);
  assert_int_equal(layout->data_type_complex128, 15);
  /* The macro stamps 0.1.1 when the params size matches ... */
  assert_int_equal(layout->stamped_major, 0);
  assert_int_equal(layout->stamped_minor, 1);
  assert_int_equal(layout->stamped_patch, 1);
  /* ... and returns early, stamping nothing, when both sizes differ. */
  assert_false(layout->stamped_when_both_sizes_differ);
}

static void test_c11_unit_sees_layout_b(void **state) {
  (void)state;
  abi_layout_t layout = {0};
  abi_layout_from_c11(&layout);
  assert_layout_is_layout_b(&layout);
}

static void test_cxx17_unit_sees_layout_b(void **state) {
  (void)state;
  abi_layout_t layout = {0};
  abi_layout_from_cxx17(&layout);
  assert_layout_is_layout_b(&layout);
}

static void test_paddle_include_path_sees_layout_b(void **state) {
  (void)state;
  abi_layout_t layout = {0};
  abi_layout_from_paddle_path(&layout);
  assert_layout_is_layout_b(&layout);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_interface_is_912_bytes_with_slots_of_layout_b),
      cmocka_unit_test(test_params_are_88_bytes),
      cmocka_unit_test(test_version_macros_are_0_1_1),
      cmocka_unit_test(test_status_values),
      cmocka_unit_test(test_data_type_values),
      cmocka_unit_test(test_data_type_sizes),
      cmocka_unit_test(test_layout_and_reduce_op_values),
      cmocka_unit_test(test_extension_structs),
      cmocka_unit_test(test_attribute_numbers_follow_tvm),
      cmocka_unit_test(test_trace_event_layout),
      cmocka_unit_test(test_c11_unit_sees_layout_b),
      cmocka_unit_test(test_cxx17_unit_sees_layout_b),
      cmocka_unit_test(test_paddle_include_path_sees_layout_b),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
