/* Results PyTorch defines by its dtype rules and by sums over nothing, which
 * DIOPI's configured cases exercise: a scalar meets an integral tensor as
 * that dtype holds it (addcmul's value 2.5 is 2 and 0.5 adds nothing,
 * threshold -1 on uint8 is 255, remainder by -3 on uint8 divides by 253);
 * prod into an integral out casts each element first (1.5 * 1.4 is 1); and
 * group_norm's backward over an empty batch gives zero weight and bias
 * gradients; gather's backward to a 0-dim input adds every index element's
 * gradient; sign of bool is bool; float16 embedding gradients are summed
 * wider and rounded once; a floating scalar or 0-dim operand converts to
 * the op's result type first (float16 compares with 0.3 as float16's 0.3,
 * bfloat16's threshold_backward with bfloat16's), an integral tensor meets a
 * floating scalar in float32. Expected values are worked out by hand (the
 * float16 and bfloat16 bit patterns as numpy rounds them). */
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

static T half_tensor(ops_made_t *m, diopiDtype_t dtype, const uint16_t *bits,
                     int64_t n, uint16_t **data) {
  return ops_made_tensor(m, dtype, 1, &n, bits, bits ? sizeof *bits * n : 0,
                         (void **)data);
}

/* A float16 tensor against the scalar 0.3 meets float16's 0.3
 * (0x34CD = 0.300048828125): equal to it, not above it, as PyTorch
 * compares; 0x34CC (0.2998046875) is below both. */
static void float16_compares_with_the_scalar_as_float16(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  static const uint16_t x[2] = {0x34CD, 0x34CC};
  T tx = half_tensor(&m, diopi_dtype_float16, x, 2, NULL);
  int64_t two = 2;
  bool *y;
  T ty = ops_made_tensor(&m, diopi_dtype_bool, 1, &two, NULL, 0, (void **)&y);
  diopiScalar_t point3 = float_scalar(0.3);
  static const char *const names[3] = {"diopiGtScalar", "diopiEqScalar",
                                       "diopiGeScalar"};
  static const bool want[3][2] = {{false, false}, {true, false}, {true, false}};
  for (int i = 0; i < 3; i++) {
    diopiError_t (*cmp)(CTX, T, CT, S) =
        (diopiError_t(*)(CTX, T, CT, S))ops_env_find(e, names[i]);
    assert_int_equal(cmp(e->ctx, ty, tx, &point3), diopiSuccess);
    synchronize(e);
    for (int k = 0; k < 2; k++)
      if (y[k] != want[i][k])
        fail_msg("%s(0x%04X, 0.3) = %d, expected %d", names[i], x[k], y[k],
                 want[i][k]);
  }
  ops_made_destroy(&m);
}

/* float16 x - 0.1 where x is float16's 0.1 (0x2E66) is 0; 0x34CC * 0.1 is
 * 0x34CC * 0x2E66 = 0.029973..., float16 0x27AC (with 0.1 itself it would
 * round to 0x27AD). */
static void float16_arithmetic_takes_the_scalar_as_float16(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  static const uint16_t x[2] = {0x2E66, 0x34CC};
  uint16_t *y;
  T tx = half_tensor(&m, diopi_dtype_float16, x, 2, NULL),
    ty = half_tensor(&m, diopi_dtype_float16, NULL, 2, &y);
  diopiScalar_t point1 = float_scalar(0.1), one = float_scalar(1);
  diopiError_t (*sub)(CTX, T, CT, S, S) =
      (diopiError_t(*)(CTX, T, CT, S, S))ops_env_find(e, "diopiSubScalar");
  diopiError_t (*mul)(CTX, T, CT, S) =
      (diopiError_t(*)(CTX, T, CT, S))ops_env_find(e, "diopiMulScalar");
  assert_int_equal(sub(e->ctx, ty, tx, &point1, &one), diopiSuccess);
  synchronize(e);
  assert_int_equal(y[0], 0x0000);
  assert_int_equal(mul(e->ctx, ty, tx, &point1), diopiSuccess);
  synchronize(e);
  assert_int_equal(y[1], 0x27AC);
  ops_made_destroy(&m);
}

/* A float64 0-dim tensor operand converts to the other tensor's dtype
 * first (torch.result_type): 0.1 - float32(0.1) is 0 (not -1.49e-9), and a
 * float16 0x34CD equals 0.3. */
static void a_0dim_operand_converts_to_the_result_type(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  double point1 = 0.1, point3 = 0.3;
  float x32 = 0.1f, *y32;
  int64_t one = 1;
  T t01 = ops_made_tensor(&m, diopi_dtype_float64, 0, NULL, &point1,
                          sizeof point1, NULL),
    t03 = ops_made_tensor(&m, diopi_dtype_float64, 0, NULL, &point3,
                          sizeof point3, NULL),
    tx32 = ops_made_tensor(&m, diopi_dtype_float32, 1, &one, &x32, sizeof x32,
                           NULL),
    ty32 = ops_made_tensor(&m, diopi_dtype_float32, 1, &one, NULL, 0,
                           (void **)&y32);
  static const uint16_t x16[1] = {0x34CD};
  T tx16 = half_tensor(&m, diopi_dtype_float16, x16, 1, NULL);
  bool *eq;
  T teq = ops_made_tensor(&m, diopi_dtype_bool, 1, &one, NULL, 0, (void **)&eq);
  diopiScalar_t alpha = float_scalar(1);
  diopiError_t (*sub)(CTX, T, CT, CT, S) =
      (diopiError_t(*)(CTX, T, CT, CT, S))ops_env_find(e, "diopiSub");
  diopiError_t (*equal)(CTX, T, CT, CT) =
      (diopiError_t(*)(CTX, T, CT, CT))ops_env_find(e, "diopiEq");
  assert_int_equal(sub(e->ctx, ty32, t01, tx32, &alpha), diopiSuccess);
  assert_int_equal(equal(e->ctx, teq, tx16, t03), diopiSuccess);
  synchronize(e);
  assert_true(y32[0] == 0.0f);
  assert_true(eq[0]);
  ops_made_destroy(&m);
}

/* threshold_backward's threshold as the input's dtype holds it: bfloat16
 * 0.3 is 0x3E9A (0.30078125), so an input of exactly that is not above it
 * and passes no gradient. */
static void
bfloat16_threshold_backward_takes_its_threshold_as_bfloat16(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  static const uint16_t g[2] = {0x3F80, 0x3F80}, x[2] = {0x3E9A, 0x3E9B};
  uint16_t *y;
  T tg = half_tensor(&m, diopi_dtype_bfloat16, g, 2, NULL),
    tx = half_tensor(&m, diopi_dtype_bfloat16, x, 2, NULL),
    ty = half_tensor(&m, diopi_dtype_bfloat16, NULL, 2, &y);
  diopiScalar_t point3 = float_scalar(0.3);
  diopiError_t (*backward)(CTX, T, CT, CT, S) = (diopiError_t(*)(
      CTX, T, CT, CT, S))ops_env_find(e, "diopiThresholdBackward");
  assert_int_equal(backward(e->ctx, ty, tg, tx, &point3), diopiSuccess);
  synchronize(e);
  assert_int_equal(y[0], 0x0000);
  assert_int_equal(y[1], 0x3F80);
  ops_made_destroy(&m);
}

/* An integral tensor against a floating scalar computes in float32 (the
 * scalar is not truncated): 2 == 2.5 is false, 3 > 2.5 true. */
static void integral_tensor_against_a_floating_scalar(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int32_t x[2] = {2, 3};
  int64_t two = 2;
  bool *y;
  T tx = ops_made_tensor(&m, diopi_dtype_int32, 1, &two, x, sizeof x, NULL),
    ty = ops_made_tensor(&m, diopi_dtype_bool, 1, &two, NULL, 0, (void **)&y);
  diopiScalar_t v = float_scalar(2.5);
  diopiError_t (*eq)(CTX, T, CT, S) =
      (diopiError_t(*)(CTX, T, CT, S))ops_env_find(e, "diopiEqScalar");
  diopiError_t (*gt)(CTX, T, CT, S) =
      (diopiError_t(*)(CTX, T, CT, S))ops_env_find(e, "diopiGtScalar");
  assert_int_equal(eq(e->ctx, ty, tx, &v), diopiSuccess);
  synchronize(e);
  assert_false(y[0]);
  assert_false(y[1]);
  assert_int_equal(gt(e->ctx, ty, tx, &v), diopiSuccess);
  synchronize(e);
  assert_false(y[0]);
  assert_true(y[1]);
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
      cmocka_unit_test(float16_compares_with_the_scalar_as_float16),
      cmocka_unit_test(float16_arithmetic_takes_the_scalar_as_float16),
      cmocka_unit_test(a_0dim_operand_converts_to_the_result_type),
      cmocka_unit_test(
          bfloat16_threshold_backward_takes_its_threshold_as_bfloat16),
      cmocka_unit_test(integral_tensor_against_a_floating_scalar),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
