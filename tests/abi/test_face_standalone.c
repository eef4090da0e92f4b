/* The framework face (<backplane/backplane.h>) stands alone: it compiles in
 * C11 and C++17 beside <jpeglib.h> and beside headers that claim the vendor
 * ABI's unprefixed names (BOOL, SUM, MAX, ANY, ...) as macros or as
 * enumerators, in either include order, and each side keeps its own values.
 * The compile is most of the test; the run checks that every unit saw the
 * same, intended, names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "abi/face_names.h"

static void expect_both_sides(const face_names_t *names) {
  assert_int_equal(names->jpeg_uint8_size, 1);
  assert_int_equal(names->jpeg_int16_size, 2);
  assert_int_equal(names->vendor_bool, 1001);
  assert_int_equal(names->vendor_sum, 1012);
  assert_int_equal(names->vendor_max, 1014);
  assert_int_equal(names->vendor_any, 1017);
  assert_int_equal(names->face_float32, 11);
  assert_int_equal(names->face_sum, 0);
  assert_int_equal(names->face_max, 2);
  assert_int_equal(names->face_warp_size, 2);
  assert_int_equal(names->face_float32_size, 4);
}

static void c11_with_vendor_macros_defined_first(void **state) {
  (void)state;
  face_names_t names = {0};
  face_names_c11_macros_first(&names);
  expect_both_sides(&names);
}

static void c11_with_vendor_enumerators_after_the_face(void **state) {
  (void)state;
  face_names_t names = {0};
  face_names_c11_face_first(&names);
  expect_both_sides(&names);
}

static void cxx17_with_vendor_macros_defined_first(void **state) {
  (void)state;
  face_names_t names = {0};
  face_names_cxx17_macros_first(&names);
  expect_both_sides(&names);
}

static void cxx17_with_vendor_enumerators_after_the_face(void **state) {
  (void)state;
  face_names_t names = {0};
  face_names_cxx17_face_first(&names);
  expect_both_sides(&names);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(c11_with_vendor_macros_defined_first),
      cmocka_unit_test(c11_with_vendor_enumerators_after_the_face),
      cmocka_unit_test(cxx17_with_vendor_macros_defined_first),
      cmocka_unit_test(cxx17_with_vendor_enumerators_after_the_face),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
