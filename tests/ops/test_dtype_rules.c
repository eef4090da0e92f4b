/* Results PyTorch defines by its dtype rules and by sums over nothing, which
 * DIOPI's configured cases exercise: a scalar meets an integral tensor as
 * that dtype holds it (addcmul's value 2.5 is 2 and 0.5 adds nothing,
 * threshold -1 on uint8 is 255, remainder by -3 on uint8 divides by 253);
 * prod into an integral out casts each element first (1.5 * 1.4 is 1); and
 * group_norm's backward over an empty batch gives zero weight and bias
 * gradients; gather's backward to a 0-dim input adds every index element's
 * gradient; sign of bool is bool; float16 embedding gradients are summed
 * wider and rounded once. Expected values are worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "ops_env.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;
typedef diopiContextHandle_t CTX;
typedef const diopiScalar_t *S;

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

static diopiScalar_t int_scalar(int64_t v) {
  diopiScalar_t s = {.stype = diopi_dtype_int64};
  s.ival = v;
  return s;
}
static diopiScalar_t float_scalar(double v) {
  diopiScalar_t s = {.stype = diopi_dtype_float64};
  s.fval = v;
  return s;
}

/* input + value * t1 * t2 on int16 with value 2.5 (as 2) and 0.5 (as 0). */
static void addcmul_truncates_value_for_integral_out(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*addcmul)(CTX, T, CT, CT, CT, S) =
      (diopiError_t(*)(CTX, T, CT, CT, CT, S))ops_env_find(e, "diopiAddcmul");
  int64_t s3[1] = {3};
  const int16_t x[3] = {2, 5, -3}, a[3] = {-3, 100, 7}, b[3] = {5, 3, 2};
  int16_t *y;
  T tx = ops_made_tensor(&m, diopi_dtype_int16, 1, s3, x, sizeof x, NULL),
    ta = ops_made_tensor(&m, diopi_dtype_int16, 1, s3, a, sizeof a, NULL),
    tb = ops_made_tensor(&m, diopi_dtype_int16, 1, s3, b, sizeof b, NULL),
    ty = ops_made_tensor(&m, diopi_dtype_int16, 1, s3, NULL, 0, (void **)&y);
  diopiScalar_t two_and_a_half = float_scalar(2.5), half = float_scalar(0.5);
  assert_int_equal(addcmul(e->ctx, ty, tx, ta, tb, &two_and_a_half),
                   diopiSuccess);
  synchronize(e);
  assert_int_equal(y[0], 2 + 2 * -15); /* not 2 + 2.5 * -15 = -35.5 */
  assert_int_equal(y[1], 5 + 2 * 300);
  assert_int_equal(y[2], -3 + 2 * 14);
  assert_int_equal(addcmul(e->ctx, ty, tx, ta, tb, &half), diopiSuccess);
  synchronize(e);
  assert_int_equal(y[0], 2); /* not 2 - 7.5 */
  assert_int_equal(y[1], 5);
  assert_int_equal(y[2], -3);
  ops_made_destroy(&m);
}

/* threshold -1 on uint8 is 255: nothing exceeds it, every element becomes
 * value; threshold 200 on int8 is -56. */
static void threshold_wraps_to_the_input_dtype(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*threshold)(CTX, T, CT, S, S) =
      (diopiError_t(*)(CTX, T, CT, S, S))ops_env_find(e, "diopiThreshold");
  int64_t s4[1] = {4};
  const uint8_t xu[4] = {0, 3, 200, 255};
  const int8_t xi[4] = {-100, -56, 0, 100};
  uint8_t *yu;
  int8_t *yi;
  T txu = ops_made_tensor(&m, diopi_dtype_uint8, 1, s4, xu, sizeof xu, NULL),
    tyu = ops_made_tensor(&m, diopi_dtype_uint8, 1, s4, NULL, 0, (void **)&yu),
    txi = ops_made_tensor(&m, diopi_dtype_int8, 1, s4, xi, sizeof xi, NULL),
    tyi = ops_made_tensor(&m, diopi_dtype_int8, 1, s4, NULL, 0, (void **)&yi);
  diopiScalar_t minus_one = int_scalar(-1), two_hundred = int_scalar(200),
                five = int_scalar(5), seven = int_scalar(7);
  assert_int_equal(threshold(e->ctx, tyu, txu, &minus_one, &five),
                   diopiSuccess);
  assert_int_equal(threshold(e->ctx, tyi, txi, &two_hundred, &seven),
                   diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 4; i++)
    assert_int_equal(yu[i], 5);
  assert_int_equal(yi[0], 7);
  assert_int_equal(yi[1], 7); /* -56 is not above -56 */
  assert_int_equal(yi[2], 0);
  assert_int_equal(yi[3], 100);
  ops_made_destroy(&m);
}

/* x % -3 on uint8 divides by 253. */
static void remainder_scalar_wraps_to_the_out_dtype(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*remainder)(CTX, T, CT, S) =
      (diopiError_t(*)(CTX, T, CT, S))ops_env_find(e, "diopiRemainderScalar");
  int64_t s6[1] = {6};
  const uint8_t x[6] = {0, 2, 252, 253, 254, 255};
  const uint8_t want[6] = {0, 2, 252, 0, 1, 2};
  uint8_t *y;
  T tx = ops_made_tensor(&m, diopi_dtype_uint8, 1, s6, x, sizeof x, NULL),
    ty = ops_made_tensor(&m, diopi_dtype_uint8, 1, s6, NULL, 0, (void **)&y);
  diopiScalar_t minus_three = int_scalar(-3);
  assert_int_equal(remainder(e->ctx, ty, tx, &minus_three), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 6; i++)
    assert_int_equal(y[i], want[i]);
  ops_made_destroy(&m);
}

/* float32 rows into int16: each element truncated before the product. */
static void prod_into_integral_out_truncates_each_element(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*prod)(CTX, T, CT, const int64_t *) =
      (diopiError_t(*)(CTX, T, CT, const int64_t *))ops_env_find(e,
                                                                 "diopiProd");
  int64_t s32[2] = {3, 2}, s3[1] = {3}, dim = 1;
  const float x[6] = {1.5f, 1.4f, -2.7f, 3.0f, 0.4f, 9.0f};
  int16_t *y;
  T tx = ops_made_tensor(&m, diopi_dtype_float32, 2, s32, x, sizeof x, NULL),
    ty = ops_made_tensor(&m, diopi_dtype_int16, 1, s3, NULL, 0, (void **)&y);
  assert_int_equal(prod(e->ctx, ty, tx, &dim), diopiSuccess);
  synchronize(e);
  assert_int_equal(y[0], 1);  /* 1 * 1, not 2.1 */
  assert_int_equal(y[1], -6); /* -2 * 3, not -8.1 */
  assert_int_equal(y[2], 0);  /* 0 * 9, not 3.6 */
  ops_made_destroy(&m);
}

/* input (0, 4), 2 groups: the weight and bias gradients sum over no
 * samples, so they are zeros (the outputs start as NaN). */
static void
group_norm_backward_of_empty_batch_zeroes_param_grads(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*backward)(CTX, T, T, T, CT, CT, CT, CT, CT, int64_t) =
      (diopiError_t(*)(CTX, T, T, T, CT, CT, CT, CT, CT, int64_t))ops_env_find(
          e, "diopiGroupNormBackward");
  int64_t s04[2] = {0, 4}, s02[2] = {0, 2}, s4[1] = {4};
  const float ones[4] = {1, 1, 1, 1}, nans[4] = {NAN, NAN, NAN, NAN};
  float *gw, *gb;
  T tx = ops_made_tensor(&m, diopi_dtype_float32, 2, s04, NULL, 0, NULL),
    tdy = ops_made_tensor(&m, diopi_dtype_float32, 2, s04, NULL, 0, NULL),
    tdx = ops_made_tensor(&m, diopi_dtype_float32, 2, s04, NULL, 0, NULL),
    tmean = ops_made_tensor(&m, diopi_dtype_float32, 2, s02, NULL, 0, NULL),
    trstd = ops_made_tensor(&m, diopi_dtype_float32, 2, s02, NULL, 0, NULL),
    tw = ops_made_tensor(&m, diopi_dtype_float32, 1, s4, ones, sizeof ones,
                         NULL),
    tgw = ops_made_tensor(&m, diopi_dtype_float32, 1, s4, nans, sizeof nans,
                          (void **)&gw),
    tgb = ops_made_tensor(&m, diopi_dtype_float32, 1, s4, nans, sizeof nans,
                          (void **)&gb);
  assert_int_equal(
      backward(e->ctx, tdx, tgw, tgb, tdy, tx, tw, tmean, trstd, 2),
      diopiSuccess);
  synchronize(e);
  for (int c = 0; c < 4; c++) {
    assert_true(gw[c] == 0.0f);
    assert_true(gb[c] == 0.0f);
  }
  ops_made_destroy(&m);
}

/* A 0-dim input gathered by an index of 5 zeros: its gradient is the sum
 * of the 5 gradients (it added only the first before). */
static void gather_backward_of_a_0dim_input_adds_every_index(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*backward)(CTX, T, CT, CT, int64_t, CT) = (diopiError_t(*)(
      CTX, T, CT, CT, int64_t, CT))ops_env_find(e, "diopiGatherBackward");
  int64_t s5[1] = {5};
  const float go[5] = {1, 2, 3, 4, 5}, two = 2;
  const int64_t zeros[5] = {0, 0, 0, 0, 0};
  float *gi;
  T tx = ops_made_tensor(&m, diopi_dtype_float32, 0, NULL, &two, sizeof two,
                         NULL),
    tgi = ops_made_tensor(&m, diopi_dtype_float32, 0, NULL, NULL, 0,
                          (void **)&gi),
    tgo = ops_made_tensor(&m, diopi_dtype_float32, 1, s5, go, sizeof go, NULL),
    tidx = ops_made_tensor(&m, diopi_dtype_int64, 1, s5, zeros, sizeof zeros,
                           NULL);
  assert_int_equal(backward(e->ctx, tgi, tgo, tx, 0, tidx), diopiSuccess);
  synchronize(e);
  assert_true(*gi == 15.0f);
  ops_made_destroy(&m);
}

/* sign and sgn of bool are bool (PyTorch: true stays true), into a bool
 * out. */
static void sign_of_bool_into_bool(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const char *names[2] = {"diopiSign", "diopiSgn"};
  int64_t s3[1] = {3};
  const bool x[3] = {true, false, true};
  for (int k = 0; k < 2; k++) {
    diopiError_t (*sign)(CTX, T, CT) =
        (diopiError_t(*)(CTX, T, CT))ops_env_find(e, names[k]);
    bool *y;
    T tx = ops_made_tensor(&m, diopi_dtype_bool, 1, s3, x, sizeof x, NULL),
      ty = ops_made_tensor(&m, diopi_dtype_bool, 1, s3, NULL, 0, (void **)&y);
    assert_int_equal(sign(e->ctx, ty, tx), diopiSuccess);
    synchronize(e);
    assert_true(y[0] && !y[1] && y[2]);
  }
  ops_made_destroy(&m);
}

/* float16 gradients of ones at 86 positions of row 1, scaled by frequency:
 * row 1's gradient is 86 * (1/86) = 1 exactly, accumulated wider than
 * float16 and rounded once (adding float16(1/86) in float16 gives 1.005);
 * rows 0 and 2 are 0. */
static void embedding_backward_of_float16_rounds_once(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*backward)(CTX, T, CT, CT, int64_t, int64_t, bool, bool) =
      (diopiError_t(*)(CTX, T, CT, CT, int64_t, int64_t, bool,
                       bool))ops_env_find(e, "diopiEmbeddingBackward");
  enum { N = 86 };
  int64_t s_idx[1] = {N}, s_grad[2] = {N, 2}, s_out[2] = {3, 2};
  int64_t rows[N];
  uint16_t ones[2 * N], *out;
  for (int i = 0; i < N; i++)
    rows[i] = 1;
  for (int i = 0; i < 2 * N; i++)
    ones[i] = 0x3C00; /* float16 1.0 */
  T ti = ops_made_tensor(&m, diopi_dtype_int64, 1, s_idx, rows, sizeof rows,
                         NULL),
    tg = ops_made_tensor(&m, diopi_dtype_float16, 2, s_grad, ones, sizeof ones,
                         NULL),
    tout = ops_made_tensor(&m, diopi_dtype_float16, 2, s_out, NULL, 0,
                           (void **)&out);
  assert_int_equal(backward(e->ctx, tout, tg, ti, 3, -1, true, false),
                   diopiSuccess);
  synchronize(e);
  const uint16_t want[6] = {0, 0, 0x3C00, 0x3C00, 0, 0};
  for (int i = 0; i < 6; i++)
    assert_int_equal(out[i], want[i]);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(addcmul_truncates_value_for_integral_out),
      cmocka_unit_test(threshold_wraps_to_the_input_dtype),
      cmocka_unit_test(remainder_scalar_wraps_to_the_out_dtype),
      cmocka_unit_test(prod_into_integral_out_truncates_each_element),
      cmocka_unit_test(group_norm_backward_of_empty_batch_zeroes_param_grads),
      cmocka_unit_test(gather_backward_of_a_0dim_input_adds_every_index),
      cmocka_unit_test(sign_of_bool_into_bool),
      cmocka_unit_test(embedding_backward_of_float16_rounds_once),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
