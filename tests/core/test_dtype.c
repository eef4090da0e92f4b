/* bp_dtype_t through the public API: sizes, names and both directions of
 * the DLPack conversion for every data type, and refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"

typedef struct dtype_case {
  bp_dtype_t dtype;
  const char *name;
  size_t size;
  uint8_t dl_code;
  uint8_t dl_bits;
} dtype_case_t;

static const dtype_case_t cases[] = {
    {BP_DTYPE_BOOL, "bool", 1, 6, 8}, /* DLPack 0.8's kDLBool */
    {BP_DTYPE_UINT8, "uint8", 1, kDLUInt, 8},
    {BP_DTYPE_UINT16, "uint16", 2, kDLUInt, 16},
    {BP_DTYPE_UINT32, "uint32", 4, kDLUInt, 32},
    {BP_DTYPE_UINT64, "uint64", 8, kDLUInt, 64},
    {BP_DTYPE_INT8, "int8", 1, kDLInt, 8},
    {BP_DTYPE_INT16, "int16", 2, kDLInt, 16},
    {BP_DTYPE_INT32, "int32", 4, kDLInt, 32},
    {BP_DTYPE_INT64, "int64", 8, kDLInt, 64},
    {BP_DTYPE_FLOAT16, "float16", 2, kDLFloat, 16},
    {BP_DTYPE_FLOAT32, "float32", 4, kDLFloat, 32},
    {BP_DTYPE_FLOAT64, "float64", 8, kDLFloat, 64},
    {BP_DTYPE_BFLOAT16, "bfloat16", 2, kDLBfloat, 16},
    {BP_DTYPE_COMPLEX64, "complex64", 8, kDLComplex, 64},
    {BP_DTYPE_COMPLEX128, "complex128", 16, kDLComplex, 128},
};
enum { CASES = sizeof cases / sizeof cases[0] };

static void every_dtype_has_its_size_and_name(void **state) {
  (void)state;
  assert_int_equal(CASES, BP_DTYPE_COUNT - 1);
  for (size_t i = 0; i < CASES; i++) {
    assert_int_equal(bp_dtype_size(cases[i].dtype), cases[i].size);
    assert_string_equal(bp_dtype_name(cases[i].dtype), cases[i].name);
  }
  assert_int_equal(bp_dtype_size(BP_DTYPE_UNDEFINED), 0);
  assert_int_equal(bp_dtype_size(BP_DTYPE_COUNT), 0);
  assert_int_equal(bp_dtype_size((bp_dtype_t)-1), 0);
  assert_string_equal(bp_dtype_name(BP_DTYPE_UNDEFINED), "undefined");
  assert_null(bp_dtype_name(BP_DTYPE_COUNT));
  assert_null(bp_dtype_name((bp_dtype_t)-1));
}

static void every_dtype_goes_to_dlpack_and_back(void **state) {
  (void)state;
  for (size_t i = 0; i < CASES; i++) {
    DLDataType dl = {0, 0, 0};
    assert_int_equal(bp_dtype_to_dl(cases[i].dtype, &dl), BP_OK);
    assert_int_equal(dl.code, cases[i].dl_code);
    assert_int_equal(dl.bits, cases[i].dl_bits);
    assert_int_equal(dl.lanes, 1);
    bp_dtype_t back = BP_DTYPE_UNDEFINED;
    assert_int_equal(bp_dtype_from_dl(dl, &back), BP_OK);
    assert_int_equal(back, cases[i].dtype);
  }
}

static void dlpack_types_without_a_dtype_are_refused(void **state) {
  (void)state;
  const DLDataType refused[] = {
      {kDLFloat, 32, 4},        /* a vector */
      {kDLInt, 4, 1},           /* odd width */
      {kDLOpaqueHandle, 64, 1}, /* not data */
      {kDLBfloat, 32, 1},       {kDLFloat, 32, 0},
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    bp_dtype_t out = BP_DTYPE_INT8;
    assert_int_equal(bp_dtype_from_dl(refused[i], &out), BP_ERR_UNSUPPORTED);
    assert_int_equal(out, BP_DTYPE_INT8); /* untouched */
    assert_non_null(strstr(bp_last_error(), "bp_dtype_from_dl"));
  }
  DLDataType f32 = {kDLFloat, 32, 1};
  assert_int_equal(bp_dtype_from_dl(f32, NULL), BP_ERR_INVALID_ARGUMENT);
}

static void
undefined_and_out_of_range_dtypes_have_no_dlpack_form(void **state) {
  (void)state;
  const bp_dtype_t refused[] = {BP_DTYPE_UNDEFINED, BP_DTYPE_COUNT,
                                (bp_dtype_t)-1};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    DLDataType dl = {9, 9, 9};
    assert_int_equal(bp_dtype_to_dl(refused[i], &dl), BP_ERR_INVALID_ARGUMENT);
    assert_int_equal(dl.code, 9); /* untouched */
    assert_non_null(strstr(bp_last_error(), "bp_dtype_to_dl"));
  }
  assert_int_equal(bp_dtype_to_dl(BP_DTYPE_FLOAT32, NULL),
                   BP_ERR_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_dtype_has_its_size_and_name),
      cmocka_unit_test(every_dtype_goes_to_dlpack_and_back),
      cmocka_unit_test(dlpack_types_without_a_dtype_are_refused),
      cmocka_unit_test(undefined_and_out_of_range_dtypes_have_no_dlpack_form),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
