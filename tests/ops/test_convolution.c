/* The argument checks of convolution2d and convolution3d, which share one
 * engine (their results are checked against PyTorch by `backplane optest`,
 * tests/data/ops/conv2d.bin and conv3d.bin): a kernel that reaches past the
 * padded input is refused at every stride (the output size is not rounded
 * up from a negative span), and conv3d names its own dims and groups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "ops_env.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;
typedef diopiSize_t Z;

static Z sizes(const int64_t *data, int64_t len) {
  return (Z){data, len};
}

static void expect_error(ops_env_t *e, diopiError_t err, const char *text) {
  assert_int_not_equal(err, diopiSuccess);
  const char *message = bp_ops_library_last_error(e->library);
  if (!strstr(message, text))
    fail_msg("message \"%s\" lacks \"%s\"", message, text);
}

/* (2 - 3) / 2 + 1 rounds toward zero to 1: once accepted with a 1x1
 * output, where PyTorch refuses the input as too small. */
static void conv2d_refuses_a_kernel_past_the_input_at_stride_2(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int64_t in_shape[4] = {1, 1, 2, 2}, w_shape[4] = {1, 1, 3, 3},
                out_shape[4] = {1, 1, 1, 1}, two[1] = {2}, zero[1] = {0},
                one[1] = {1};
  T in = ops_made_tensor(&m, diopi_dtype_float32, 4, in_shape, NULL, 0, NULL),
    w = ops_made_tensor(&m, diopi_dtype_float32, 4, w_shape, NULL, 0, NULL),
    out = ops_made_tensor(&m, diopi_dtype_float32, 4, out_shape, NULL, 0, NULL);
  __typeof__(&diopiConvolution2d) conv = ops_env_find(e, "diopiConvolution2d");
  expect_error(e,
               conv(e->ctx, out, in, w, NULL, sizes(two, 1), sizes(zero, 1),
                    sizes(one, 1), 1),
               "diopiConvolution2d: input: 2 in dim 2 is smaller than the "
               "kernel's reach 3 (padding 0)");
  ops_made_destroy(&m);
}

static void conv3d_names_its_dims_and_groups(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int64_t in_shape[5] = {1, 4, 3, 3, 3}, w4[4] = {2, 4, 1, 1},
                w5[5] = {3, 2, 1, 1, 1}, out_shape[5] = {1, 3, 3, 3, 3},
                one[1] = {1}, zero[1] = {0};
  T in = ops_made_tensor(&m, diopi_dtype_float32, 5, in_shape, NULL, 0, NULL),
    weight4 = ops_made_tensor(&m, diopi_dtype_float32, 4, w4, NULL, 0, NULL),
    weight5 = ops_made_tensor(&m, diopi_dtype_float32, 5, w5, NULL, 0, NULL),
    out = ops_made_tensor(&m, diopi_dtype_float32, 5, out_shape, NULL, 0, NULL);
  __typeof__(&diopiConvolution3d) conv = ops_env_find(e, "diopiConvolution3d");
  expect_error(e,
               conv(e->ctx, out, in, weight4, NULL, sizes(one, 1),
                    sizes(zero, 1), sizes(one, 1), 1),
               "diopiConvolution3d: weight: 4 dims, expected (C_out, "
               "C_in/groups, kD, kH, kW)");
  expect_error(e,
               conv(e->ctx, out, in, weight5, NULL, sizes(one, 1),
                    sizes(zero, 1), sizes(one, 1), 2),
               "diopiConvolution3d: groups: 2 does not divide C_in 4 and "
               "C_out 3");
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(conv2d_refuses_a_kernel_past_the_input_at_stride_2),
      cmocka_unit_test(conv3d_names_its_dims_and_groups),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
