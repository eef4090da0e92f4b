/* diopiLinearBackward's grad_bias in the shape of a bias that broadcast in
 * the forward ([1, C], [N, 1], or empty as DIOPI's linear configuration
 * has one): grad_output summed over the broadcast dims, as PyTorch's
 * autograd gives it. Expected values are written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "ops_env.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;
typedef diopiContextHandle_t CTX;

static T make(ops_env_t *e, size_t ndim, int64_t d0, int64_t d1, float **data) {
  int64_t shape[2] = {d0, d1};
  T t;
  assert_int_equal(bp_ops_tensor_create(e->device, e->stream,
                                        diopi_dtype_float32, ndim, shape, &t),
                   BP_OK);
  assert_int_equal(diopiGetTensorData(t, (void **)data), diopiSuccess);
  return t;
}

static void linear_backward_sums_grad_bias_to_the_bias_shape(void **state) {
  ops_env_t *e = *state;
  float *x, *w, *go, *gi, *gw, *row_bias, *col_bias, *vector, *none;
  T tx = make(e, 2, 3, 2, &x), tw = make(e, 2, 4, 2, &w),
    tgo = make(e, 2, 3, 4, &go), tgi = make(e, 2, 3, 2, &gi),
    tgw = make(e, 2, 4, 2, &gw), trow = make(e, 2, 1, 4, &row_bias),
    tcol = make(e, 2, 3, 1, &col_bias), tvec = make(e, 1, 4, 0, &vector),
    tnone = make(e, 2, 3, 0, &none);
  for (int k = 0; k < 12; k++)
    go[k] = (float)k; /* rows {0..3}, {4..7}, {8..11} */
  for (int k = 0; k < 6; k++)
    x[k] = 1;
  for (int k = 0; k < 8; k++)
    w[k] = 1;
  diopiError_t (*backward)(CTX, T, T, T, CT, CT, CT) = (diopiError_t(*)(
      CTX, T, T, T, CT, CT, CT))ops_env_find(e, "diopiLinearBackward");
  assert_int_equal(backward(e->ctx, tgi, tgw, trow, tgo, tx, tw), diopiSuccess);
  assert_int_equal(backward(e->ctx, NULL, NULL, tcol, tgo, tx, tw),
                   diopiSuccess);
  assert_int_equal(backward(e->ctx, NULL, NULL, tvec, tgo, tx, tw),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  const float columns[4] = {12, 15, 18, 21}, rows[3] = {6, 22, 38};
  for (int j = 0; j < 4; j++) {
    assert_true(row_bias[j] == columns[j]);
    assert_true(vector[j] == columns[j]);
  }
  for (int i = 0; i < 3; i++)
    assert_true(col_bias[i] == rows[i]);
  /* a bias that does not broadcast to grad_output: refused */
  assert_int_equal(backward(e->ctx, NULL, NULL, tnone, tgo, tx, tw),
                   diopiErrorOccurred);
  const char *(*last)(void) =
      (const char *(*)(void))ops_env_find(e, "diopiGetLastErrorString");
  assert_string_equal(last(), "diopiLinearBackward: grad_bias: shape [3, 0] "
                              "does not broadcast to [3, 4]");
  T made[9] = {tx, tw, tgo, tgi, tgw, trow, tcol, tvec, tnone};
  for (int k = 0; k < 9; k++)
    bp_ops_tensor_destroy(made[k]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(linear_backward_sums_grad_bias_to_the_bias_shape),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
