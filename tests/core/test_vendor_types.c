/* Every value of every framework-face enumeration converts to the vendor
 * ABI's value written here by hand (device_ext.h, comm_ext.h), and every
 * value outside an enumeration is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/vendor_types.h"

static void every_dtype_converts_to_its_vendor_value(void **state) {
  (void)state;
  static const struct {
    bp_dtype_t dtype;
    int vendor; /* Paddle's C_DataType numbering */
  } cases[] = {
      {BP_DTYPE_BOOL, 1},        {BP_DTYPE_UINT8, 2},
      {BP_DTYPE_UINT16, 3},      {BP_DTYPE_UINT32, 4},
      {BP_DTYPE_UINT64, 5},      {BP_DTYPE_INT8, 6},
      {BP_DTYPE_INT16, 7},       {BP_DTYPE_INT32, 8},
      {BP_DTYPE_INT64, 9},       {BP_DTYPE_FLOAT16, 10},
      {BP_DTYPE_FLOAT32, 11},    {BP_DTYPE_FLOAT64, 12},
      {BP_DTYPE_BFLOAT16, 13},   {BP_DTYPE_COMPLEX64, 14},
      {BP_DTYPE_COMPLEX128, 15},
  };
  assert_int_equal(sizeof cases / sizeof cases[0], BP_DTYPE_COUNT - 1);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    C_DataType c = UNDEFINED;
    assert_true(bp_dtype_to_c(cases[i].dtype, &c));
    assert_int_equal(c, cases[i].vendor);
  }
  const bp_dtype_t refused[] = {BP_DTYPE_UNDEFINED, BP_DTYPE_COUNT,
                                (bp_dtype_t)-1, (bp_dtype_t)200};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    C_DataType c = FLOAT32;
    assert_false(bp_dtype_to_c(refused[i], &c));
    assert_int_equal(c, FLOAT32); /* untouched */
  }
}

static void every_reduce_op_converts_to_its_vendor_value(void **state) {
  (void)state;
  static const struct {
    bp_reduce_op_t op;
    int vendor; /* Paddle's C_CCLReduceOp numbering */
  } cases[] = {{BP_REDUCE_SUM, 0},
               {BP_REDUCE_AVG, 1},
               {BP_REDUCE_MAX, 2},
               {BP_REDUCE_MIN, 3},
               {BP_REDUCE_PRODUCT, 4}};
  assert_int_equal(sizeof cases / sizeof cases[0], BP_REDUCE_OP_COUNT);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    C_CCLReduceOp c = PRODUCT;
    assert_true(bp_reduce_op_to_c(cases[i].op, &c));
    assert_int_equal(c, cases[i].vendor);
  }
  C_CCLReduceOp c = MIN;
  assert_false(bp_reduce_op_to_c(BP_REDUCE_OP_COUNT, &c));
  assert_false(bp_reduce_op_to_c((bp_reduce_op_t)-1, &c));
  assert_int_equal(c, MIN);
}

static void every_attribute_converts_to_its_tvm_number(void **state) {
  (void)state;
  static const struct {
    bp_device_attr_t attr;
    int vendor; /* TVM's DeviceAttrKind numbering */
  } cases[] = {
      {BP_DEVICE_ATTR_EXIST, 0},
      {BP_DEVICE_ATTR_MAX_THREADS_PER_BLOCK, 1},
      {BP_DEVICE_ATTR_WARP_SIZE, 2},
      {BP_DEVICE_ATTR_MAX_SHARED_MEMORY_PER_BLOCK, 3},
      {BP_DEVICE_ATTR_COMPUTE_VERSION, 4},
      {BP_DEVICE_ATTR_DEVICE_NAME, 5},
      {BP_DEVICE_ATTR_MAX_CLOCK_RATE, 6},
      {BP_DEVICE_ATTR_MULTI_PROCESSOR_COUNT, 7},
      {BP_DEVICE_ATTR_MAX_THREAD_DIMENSIONS, 8},
      {BP_DEVICE_ATTR_MAX_REGISTERS_PER_BLOCK, 9},
      {BP_DEVICE_ATTR_GCN_ARCH, 10},
      {BP_DEVICE_ATTR_API_VERSION, 11},
      {BP_DEVICE_ATTR_DRIVER_VERSION, 12},
      {BP_DEVICE_ATTR_L2_CACHE_SIZE_BYTES, 13},
      {BP_DEVICE_ATTR_TOTAL_GLOBAL_MEMORY, 14},
      {BP_DEVICE_ATTR_AVAILABLE_GLOBAL_MEMORY, 15},
      {BP_DEVICE_ATTR_IMAGE_PITCH_ALIGNMENT, 16},
  };
  assert_int_equal(sizeof cases / sizeof cases[0], BP_DEVICE_ATTR_COUNT);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    BP_DeviceAttr c = BP_ATTR_COUNT;
    assert_true(bp_device_attr_to_c(cases[i].attr, &c));
    assert_int_equal(c, cases[i].vendor);
  }
  BP_DeviceAttr c = BP_ATTR_WARP_SIZE;
  assert_false(bp_device_attr_to_c(BP_DEVICE_ATTR_COUNT, &c));
  assert_false(bp_device_attr_to_c((bp_device_attr_t)-1, &c));
  assert_int_equal(c, BP_ATTR_WARP_SIZE);
}

static void attribute_values_keep_int_and_string_answers(void **state) {
  (void)state;
  BP_AttrValue in;
  bp_device_attr_value_t out;
  memset(&in, 0, sizeof in);
  in.kind = BP_ATTR_VALUE_INT;
  in.i64 = -42;
  assert_true(bp_device_attr_value_from_c(&in, &out));
  assert_int_equal(out.kind, BP_DEVICE_ATTR_VALUE_INT);
  assert_int_equal(out.i64, -42);

  in.kind = BP_ATTR_VALUE_STRING;
  memset(in.str, 'x', sizeof in.str); /* not terminated by the plugin */
  assert_true(bp_device_attr_value_from_c(&in, &out));
  assert_int_equal(out.kind, BP_DEVICE_ATTR_VALUE_STRING);
  assert_int_equal(strlen(out.str), sizeof out.str - 1);

  memset(&out, 0x5a, sizeof out);
  in.kind = BP_ATTR_VALUE_UNSUPPORTED;
  assert_false(bp_device_attr_value_from_c(&in, &out));
  in.kind = 3; /* no such kind */
  assert_false(bp_device_attr_value_from_c(&in, &out));
  assert_int_equal((unsigned char)out.str[0], 0x5a); /* untouched */
}

static void
every_comm_extension_status_maps_to_a_framework_status(void **state) {
  (void)state;
  static const struct {
    int32_t ext;
    bp_status_t status;
  } cases[] = {
      {BP_COMM_EXT_OK, BP_OK},
      {BP_COMM_EXT_INVALID_USAGE, BP_ERR_INVALID_ARGUMENT},
      {BP_COMM_EXT_OUT_OF_MEMORY, BP_ERR_OUT_OF_MEMORY},
      {BP_COMM_EXT_UNSUPPORTED, BP_ERR_UNSUPPORTED},
      {BP_COMM_EXT_SYSTEM_ERROR, BP_ERR_PLUGIN},
      {BP_COMM_EXT_TIMEOUT, BP_ERR_TIMEOUT},
      {BP_COMM_EXT_ABORTED, BP_ERR_ABORTED},
      {BP_COMM_EXT_INTERNAL, BP_ERR_INTERNAL},
      {BP_COMM_EXT_PEER_LOST, BP_ERR_PEER_LOST},
      {2, BP_ERR_PLUGIN}, /* values the extension does not define */
      {5, BP_ERR_PLUGIN},
      {-1, BP_ERR_PLUGIN},
      {1000, BP_ERR_PLUGIN},
  };
  /* The extension's values are ABI: pinned here independently. */
  assert_int_equal(BP_COMM_EXT_INVALID_USAGE, 1);
  assert_int_equal(BP_COMM_EXT_OUT_OF_MEMORY, 3);
  assert_int_equal(BP_COMM_EXT_UNSUPPORTED, 4);
  assert_int_equal(BP_COMM_EXT_SYSTEM_ERROR, 6);
  assert_int_equal(BP_COMM_EXT_TIMEOUT, 7);
  assert_int_equal(BP_COMM_EXT_ABORTED, 8);
  assert_int_equal(BP_COMM_EXT_INTERNAL, 9);
  assert_int_equal(BP_COMM_EXT_PEER_LOST, 10);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_int_equal(bp_status_from_comm_ext(cases[i].ext), cases[i].status);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_dtype_converts_to_its_vendor_value),
      cmocka_unit_test(every_reduce_op_converts_to_its_vendor_value),
      cmocka_unit_test(every_attribute_converts_to_its_tvm_number),
      cmocka_unit_test(attribute_values_keep_int_and_string_answers),
      cmocka_unit_test(every_comm_extension_status_maps_to_a_framework_status),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
