/* The extension ops polygamma (and digamma's backward), xlogy and the
 * add-a-product ops addmv and addbmm (and their backwards), as a caller
 * meets them: values worked
 * out by hand (zeta values, recurrences, small products) including the
 * poles, zeros and NaNs PyTorch defines, broadcasting, and bad arguments
 * failing with a message naming the op, the argument, what was expected and
 * what was given. Values against PyTorch on many shapes and strides are the
 * conformance cases' (tests/data/ops: polygamma, xlogy, addmv, addbmm). */
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
typedef const char *(*last_error_t)(void);

#define F64 diopi_dtype_float64
#define PI2 (M_PI * M_PI)

/* A contiguous float64-sized tensor kept in `m`, holding `values` (NULL:
 * left unset). */
static T make(ops_made_t *m, diopiDtype_t dtype, size_t ndim,
              const int64_t *shape, const double *values, double **data) {
  int64_t numel = 1;
  for (size_t d = 0; d < ndim; d++)
    numel *= shape[d];
  return ops_made_tensor(m, dtype, ndim, shape, values,
                         (size_t)numel * sizeof(double), (void **)data);
}

static const char *last(ops_env_t *e) {
  return ((last_error_t)ops_env_find(e, "diopiGetLastErrorString"))();
}

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* psi_n at values whose results are known in closed form: zeta(2) = pi^2/6,
 * psi_1(1/2) = pi^2/2, psi_2(1/2) = -14 zeta(3), psi_3(1) = pi^4/15, the
 * recurrence psi_n(x) = psi_n(x + 1) - (-1)^n n! / x^(n+1) for negative
 * arguments, +inf (odd n) and -inf (even n) at the poles, NaN for NaN. */
static void polygamma_matches_closed_forms_and_poles(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*polygamma)(CTX, T, CT, int64_t) =
      (diopiError_t(*)(CTX, T, CT, int64_t))ops_env_find(e, "diopiPolygamma");
  const double zeta3 = 1.2020569031595942;
  int64_t s6[1] = {6};
  const double x[6] = {1.0, 0.5, -0.5, 0.0, -2.0, NAN};
  double *y1, *y2, *y3;
  T tx = make(&m, F64, 1, s6, x, NULL), t1 = make(&m, F64, 1, s6, NULL, &y1),
    t2 = make(&m, F64, 1, s6, NULL, &y2), t3 = make(&m, F64, 1, s6, NULL, &y3);
  assert_int_equal(polygamma(e->ctx, t1, tx, 1), diopiSuccess);
  assert_int_equal(polygamma(e->ctx, t2, tx, 2), diopiSuccess);
  assert_int_equal(polygamma(e->ctx, t3, tx, 3), diopiSuccess);
  synchronize(e);
  assert_float_equal(y1[0], PI2 / 6, 1e-12);
  assert_float_equal(y1[1], PI2 / 2, 1e-12);
  assert_float_equal(y1[2], PI2 / 2 + 4, 1e-12); /* + 1 / (-1/2)^2 */
  assert_float_equal(y2[0], -2 * zeta3, 1e-12);
  assert_float_equal(y2[1], -14 * zeta3, 1e-11);
  assert_float_equal(y2[2], -14 * zeta3 + 16, 1e-11); /* - 2 / (-1/2)^3 */
  assert_float_equal(y3[0], PI2 * PI2 / 15, 1e-11);
  assert_true(y1[3] == INFINITY && y1[4] == INFINITY);
  assert_true(y2[3] == -INFINITY && y2[4] == -INFINITY);
  assert_true(y3[3] == INFINITY && isnan(y1[5]) && isnan(y2[5]));

  /* n = 0 is digamma: psi(1) = -Euler's gamma */
  assert_int_equal(polygamma(e->ctx, t1, tx, 0), diopiSuccess);
  synchronize(e);
  assert_float_equal(y1[0], -0.5772156649015329, 1e-12);

  /* digamma's backward: grad * psi_1(x) */
  diopiError_t (*digamma_backward)(CTX, T, CT, CT) =
      (diopiError_t(*)(CTX, T, CT, CT))ops_env_find(e, "diopiDigammaBackward");
  const double grads[6] = {2, 1, 1, 1, 1, 1};
  T tg = make(&m, F64, 1, s6, grads, NULL);
  assert_int_equal(digamma_backward(e->ctx, t2, tg, tx), diopiSuccess);
  synchronize(e);
  assert_float_equal(y2[0], PI2 / 3, 1e-12);
  ops_made_destroy(&m);
}

/* xlogy: 0 where x is 0 unless y is NaN, NaN for a NaN x, a row broadcast
 * against a column, the scalar forms, and the backward summing each
 * gradient over the dims its operand was broadcast along. */
static void xlogy_broadcasts_and_keeps_pytorchs_zeros(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*xlogy)(CTX, T, CT, CT) =
      (diopiError_t(*)(CTX, T, CT, CT))ops_env_find(e, "diopiXlogy");
  diopiError_t (*xlogy_scalar_self)(CTX, T, S, CT) =
      (diopiError_t(*)(CTX, T, S, CT))ops_env_find(e, "diopiXlogyScalarSelf");
  diopiError_t (*backward)(CTX, T, T, CT, CT, CT) = (diopiError_t(*)(
      CTX, T, T, CT, CT, CT))ops_env_find(e, "diopiXlogyBackward");
  const double e1 = M_E, e2 = M_E * M_E;
  int64_t s21[2] = {2, 1}, s3[1] = {3}, s23[2] = {2, 3};
  const double x[2] = {2, 0}, y[3] = {1, e1, e2}, ones[6] = {1, 1, 1, 1, 1, 1};
  double *out, *gx, *gy;
  T tx = make(&m, F64, 2, s21, x, NULL), ty = make(&m, F64, 1, s3, y, NULL),
    to = make(&m, F64, 2, s23, NULL, &out),
    tgo = make(&m, F64, 2, s23, ones, NULL),
    tgx = make(&m, F64, 2, s21, NULL, &gx),
    tgy = make(&m, F64, 1, s3, NULL, &gy);
  assert_int_equal(xlogy(e->ctx, to, tx, ty), diopiSuccess);
  synchronize(e);
  const double want[6] = {0, 2, 4, 0, 0, 0};
  for (int i = 0; i < 6; i++)
    assert_float_equal(out[i], want[i], 1e-12);

  assert_int_equal(backward(e->ctx, tgx, tgy, tgo, tx, ty), diopiSuccess);
  synchronize(e);
  assert_float_equal(gx[0], 3, 1e-12); /* log 1 + log e + log e^2 */
  assert_float_equal(gx[1], 3, 1e-12); /* x = 0 < y: still log y */
  assert_float_equal(gy[0], 2, 1e-12); /* (2 + 0) / y */
  assert_float_equal(gy[1], 2 / e1, 1e-12);
  assert_float_equal(gy[2], 2 / e2, 1e-12);

  const double special_x[3] = {0, 0, NAN}, special_y[3] = {0, NAN, 1};
  double *sy_out;
  T sx = make(&m, F64, 1, s3, special_x, NULL),
    sy = make(&m, F64, 1, s3, special_y, NULL);
  assert_int_equal(xlogy(e->ctx, sx, sx, sy), diopiSuccess); /* in place */
  diopiScalar_t zero = {.stype = F64, .fval = 0};
  assert_int_equal(xlogy_scalar_self(e->ctx, ty, &zero, sy), diopiSuccess);
  synchronize(e);
  assert_int_equal(diopiGetTensorData(ty, (void **)&sy_out), diopiSuccess);
  assert_true(sy_out[0] == 0 && isnan(sy_out[1]) && sy_out[2] == 0);
  double *sx_out;
  assert_int_equal(diopiGetTensorData(sx, (void **)&sx_out), diopiSuccess);
  assert_true(sx_out[0] == 0 && isnan(sx_out[1]) && isnan(sx_out[2]));
  ops_made_destroy(&m);
}

/* addmv: [[1, 2], [3, 4]] @ [1, 1] = [3, 7], times alpha 2, plus beta 0.5
 * times a broadcast [10]; beta 0 ignores a NaN input. addbmm: the sum of
 * two 1x2 @ 2x1 products. */
static void add_product_ops_scale_and_sum(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*addmv)(CTX, T, CT, CT, CT, S, S) =
      (diopiError_t(*)(CTX, T, CT, CT, CT, S, S))ops_env_find(e, "diopiAddmv");
  diopiError_t (*addbmm)(CTX, T, CT, CT, CT, S, S) =
      (diopiError_t(*)(CTX, T, CT, CT, CT, S, S))ops_env_find(e, "diopiAddbmm");
  int64_t s22[2] = {2, 2}, s2[1] = {2}, s1[1] = {1}, s212[3] = {2, 1, 2},
          s221[3] = {2, 2, 1}, s11[2] = {1, 1};
  const double mat[4] = {1, 2, 3, 4}, vec[2] = {1, 1}, ten[1] = {10},
               nan2[2] = {NAN, NAN}, b1[4] = {1, 2, 3, 4}, b2[4] = {5, 6, 7, 8};
  double *out, *sum;
  T tm = make(&m, F64, 2, s22, mat, NULL), tv = make(&m, F64, 1, s2, vec, NULL),
    tc = make(&m, F64, 1, s1, ten, NULL), tn = make(&m, F64, 1, s2, nan2, NULL),
    to = make(&m, F64, 1, s2, NULL, &out),
    tb1 = make(&m, F64, 3, s212, b1, NULL),
    tb2 = make(&m, F64, 3, s221, b2, NULL),
    ts = make(&m, F64, 2, s11, NULL, &sum);
  diopiScalar_t half = {.stype = F64, .fval = 0.5},
                two = {.stype = F64, .fval = 2}, zero = {.stype = F64};
  assert_int_equal(addmv(e->ctx, to, tc, tm, tv, &half, &two), diopiSuccess);
  synchronize(e);
  assert_true(out[0] == 11 && out[1] == 19);
  assert_int_equal(addmv(e->ctx, to, tn, tm, tv, &zero, NULL), diopiSuccess);
  synchronize(e);
  assert_true(out[0] == 3 && out[1] == 7);
  /* [1 2].[5 6] + [3 4].[7 8] = 17 + 53 */
  assert_int_equal(addbmm(e->ctx, ts, tc, tb1, tb2, NULL, &two), diopiSuccess);
  synchronize(e);
  assert_true(sum[0] == 10 + 2 * 70);
  ops_made_destroy(&m);
}

/* baddbmm in float32 (its product starts from beta * input in the GEMM's
 * own C): batch1 [[1, 2], [3, 4]] and 2 x that, batch2 [[1, 0, 1], [0, 1,
 * 1]]: products [[1, 2, 3], [3, 4, 7]] and 2 x those. A broadcast [3]
 * input [10, 20, 30] with beta 0.5 and alpha 2; in place on a full input
 * (beta 1); beta 0 ignores a NaN input. */
static void baddbmm_starts_from_scaled_input(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*baddbmm)(CTX, T, CT, CT, CT, double, double) =
      ops_env_find(e, "diopiBaddbmm");
  diopiError_t (*baddbmm_inp)(CTX, T, CT, CT, double, double) =
      ops_env_find(e, "diopiBaddbmmInp");
  int64_t s3[1] = {3}, s222[3] = {2, 2, 2}, s223[3] = {2, 2, 3};
  const float row[3] = {10, 20, 30}, nan3[3] = {NAN, NAN, NAN},
              b1[8] = {1, 2, 3, 4, 2, 4, 6, 8},
              b2[12] = {1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1},
              ones[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const float product[12] = {1, 2, 3, 3, 4, 7, 2, 4, 6, 6, 8, 14};
  float *out, *acc;
  T in = ops_made_tensor(&m, diopi_dtype_float32, 1, s3, row, sizeof row, NULL);
  T nan =
      ops_made_tensor(&m, diopi_dtype_float32, 1, s3, nan3, sizeof nan3, NULL);
  T t1 = ops_made_tensor(&m, diopi_dtype_float32, 3, s222, b1, sizeof b1, NULL);
  T t2 = ops_made_tensor(&m, diopi_dtype_float32, 3, s223, b2, sizeof b2, NULL);
  T to =
      ops_made_tensor(&m, diopi_dtype_float32, 3, s223, NULL, 0, (void **)&out);
  T ta = ops_made_tensor(&m, diopi_dtype_float32, 3, s223, ones, sizeof ones,
                         (void **)&acc);
  assert_int_equal(baddbmm(e->ctx, to, in, t1, t2, 0.5, 2), diopiSuccess);
  assert_int_equal(baddbmm_inp(e->ctx, ta, t1, t2, 1, 1), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 12; i++) {
    assert_true(out[i] == 0.5f * row[i % 3] + 2 * product[i]);
    assert_true(acc[i] == 1 + product[i]);
  }
  assert_int_equal(baddbmm(e->ctx, to, nan, t1, t2, 0, 1), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 12; i++)
    assert_true(out[i] == product[i]);
  ops_made_destroy(&m);
}

/* addmv's backward with mat [[1, 2], [3, 4]], vec [1, 1], grad [1, 2],
 * beta 0.5, alpha 2 and a [1] input: grad_input 0.5 * (1 + 2), grad_mat
 * 2 * grad vec^T, grad_vec 2 * mat^T grad = [14, 20]; addbmm's with
 * batch1 [[[1, 2]]], [[[3, 4]]] (2x1x2), batch2 ones (2x2x1), grad [[3]]:
 * grad_batch1[b] = alpha * grad batch2[b]^T, grad_batch2[b] = alpha *
 * batch1[b]^T grad. */
static void add_product_backwards_sum_to_their_operands(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*addmv_backward)(CTX, T, T, T, CT, CT, CT, S, S) =
      (diopiError_t(*)(CTX, T, T, T, CT, CT, CT, S, S))ops_env_find(
          e, "diopiAddmvBackward");
  diopiError_t (*addbmm_backward)(CTX, T, T, T, CT, CT, CT, S, S) =
      (diopiError_t(*)(CTX, T, T, T, CT, CT, CT, S, S))ops_env_find(
          e, "diopiAddbmmBackward");
  int64_t s22[2] = {2, 2}, s2[1] = {2}, s1[1] = {1}, s212[3] = {2, 1, 2},
          s221[3] = {2, 2, 1}, s11[2] = {1, 1};
  const double mat[4] = {1, 2, 3, 4}, vec[2] = {1, 1}, grad[2] = {1, 2},
               b1[4] = {1, 2, 3, 4}, ones[4] = {1, 1, 1, 1}, three[1] = {3};
  double *gi, *gm, *gv, *g1, *g2;
  T tm = make(&m, F64, 2, s22, mat, NULL), tv = make(&m, F64, 1, s2, vec, NULL),
    tg = make(&m, F64, 1, s2, grad, NULL),
    tgi = make(&m, F64, 1, s1, NULL, &gi),
    tgm = make(&m, F64, 2, s22, NULL, &gm),
    tgv = make(&m, F64, 1, s2, NULL, &gv);
  diopiScalar_t half = {.stype = F64, .fval = 0.5},
                two = {.stype = F64, .fval = 2};
  assert_int_equal(
      addmv_backward(e->ctx, tgi, tgm, tgv, tg, tm, tv, &half, &two),
      diopiSuccess);
  synchronize(e);
  assert_true(gi[0] == 1.5);
  assert_true(gm[0] == 2 && gm[1] == 2 && gm[2] == 4 && gm[3] == 4);
  assert_true(gv[0] == 14 && gv[1] == 20);
  assert_int_equal(
      addmv_backward(e->ctx, NULL, tgv, NULL, tg, tm, tv, NULL, NULL),
      diopiErrorOccurred);
  assert_string_equal(last(e), "diopiAddmvBackward: grad_mat: expected shape "
                               "[2, 2], got [2]");
  ops_made_destroy(&m);

  ops_made_t n = {.e = e};
  T tb1 = make(&n, F64, 3, s212, b1, NULL),
    tb2 = make(&n, F64, 3, s221, ones, NULL),
    tgo = make(&n, F64, 2, s11, three, NULL),
    tg1 = make(&n, F64, 3, s212, NULL, &g1),
    tg2 = make(&n, F64, 3, s221, NULL, &g2);
  assert_int_equal(
      addbmm_backward(e->ctx, NULL, tg1, tg2, tgo, tb1, tb2, NULL, &two),
      diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 4; i++) {
    assert_true(g1[i] == 6);         /* 2 * 3 * 1 */
    assert_true(g2[i] == 6 * b1[i]); /* 2 * batch1 * 3 */
  }
  ops_made_destroy(&n);
}

static void bad_arguments_name_op_argument_and_values(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  int64_t s23[2] = {2, 3}, s3[1] = {3}, s2[1] = {2}, s232[3] = {2, 3, 2},
          s323[3] = {3, 2, 3};
  T a = make(&m, F64, 2, s23, NULL, NULL),
    row = make(&m, F64, 1, s3, NULL, NULL),
    col = make(&m, F64, 1, s2, NULL, NULL),
    b1 = make(&m, F64, 3, s232, NULL, NULL),
    b2 = make(&m, F64, 3, s323, NULL, NULL);
  T ints;
  assert_int_equal(bp_ops_tensor_create(e->device, e->stream, diopi_dtype_int32,
                                        2, s23, &ints),
                   BP_OK);

  diopiError_t (*polygamma)(CTX, T, CT, int64_t) =
      (diopiError_t(*)(CTX, T, CT, int64_t))ops_env_find(e, "diopiPolygamma");
  assert_int_equal(polygamma(e->ctx, a, a, -1), diopiErrorOccurred);
  assert_string_equal(last(e), "diopiPolygamma: n: expected n >= 0, got -1");
  assert_int_equal(polygamma(e->ctx, ints, a, 1), diopiErrorOccurred);
  assert_string_equal(last(e),
                      "diopiPolygamma: out: expected a floating dtype, got "
                      "dtype 4");

  diopiError_t (*xlogy)(CTX, T, CT, CT) =
      (diopiError_t(*)(CTX, T, CT, CT))ops_env_find(e, "diopiXlogy");
  assert_int_equal(xlogy(e->ctx, a, a, col), diopiErrorOccurred);
  assert_string_equal(last(e), "diopiXlogy: other: shape [2] does not "
                               "broadcast with the others");
  diopiError_t (*xlogy_scalar)(CTX, T, CT, S) =
      (diopiError_t(*)(CTX, T, CT, S))ops_env_find(e, "diopiXlogyScalar");
  assert_int_equal(xlogy_scalar(e->ctx, a, a, NULL), diopiErrorOccurred);
  assert_string_equal(last(e),
                      "diopiXlogyScalar: other: expected a scalar, got NULL");
  diopiError_t (*xlogy_backward)(CTX, T, T, CT, CT, CT) = (diopiError_t(*)(
      CTX, T, T, CT, CT, CT))ops_env_find(e, "diopiXlogyBackward");
  assert_int_equal(xlogy_backward(e->ctx, a, NULL, a, row, a),
                   diopiErrorOccurred);
  assert_string_equal(last(e), "diopiXlogyBackward: grad_input: expected "
                               "shape [3], got [2, 3]");

  diopiError_t (*addmv)(CTX, T, CT, CT, CT, S, S) =
      (diopiError_t(*)(CTX, T, CT, CT, CT, S, S))ops_env_find(e, "diopiAddmv");
  assert_int_equal(addmv(e->ctx, col, col, a, col, NULL, NULL),
                   diopiErrorOccurred);
  assert_string_equal(last(e), "diopiAddmv: vec: expected shape [3], got [2]");
  assert_int_equal(addmv(e->ctx, col, col, a, a, NULL, NULL),
                   diopiErrorOccurred);
  assert_string_equal(last(e), "diopiAddmv: mat, vec: expected 2 and 1 dims, "
                               "got 2 and 2");
  assert_int_equal(addmv(e->ctx, row, row, a, row, NULL, NULL),
                   diopiErrorOccurred);
  assert_string_equal(last(e), "diopiAddmv: out: expected shape [2], got [3]");

  diopiError_t (*addbmm)(CTX, T, CT, CT, CT, S, S) =
      (diopiError_t(*)(CTX, T, CT, CT, CT, S, S))ops_env_find(e, "diopiAddbmm");
  assert_int_equal(addbmm(e->ctx, a, a, b1, b1, NULL, NULL),
                   diopiErrorOccurred);
  assert_string_equal(last(e), "diopiAddbmm: batch2: expected shape [2, 2, "
                               "m], got [2, 3, 2]");
  assert_int_equal(addbmm(e->ctx, a, a, b2, b1, NULL, NULL),
                   diopiErrorOccurred);
  assert_string_equal(last(e), "diopiAddbmm: batch2: expected shape [3, 3, "
                               "m], got [2, 3, 2]");
  assert_int_equal(addbmm(e->ctx, a, a, a, b1, NULL, NULL), diopiErrorOccurred);
  assert_string_equal(last(e), "diopiAddbmm: batch1, batch2: expected 3 dims "
                               "each, got 2 and 3");
  synchronize(e);
  bp_ops_tensor_destroy(ints);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(polygamma_matches_closed_forms_and_poles),
      cmocka_unit_test(xlogy_broadcasts_and_keeps_pytorchs_zeros),
      cmocka_unit_test(add_product_ops_scale_and_sum),
      cmocka_unit_test(baddbmm_starts_from_scaled_input),
      cmocka_unit_test(add_product_backwards_sum_to_their_operands),
      cmocka_unit_test(bad_arguments_name_op_argument_and_values),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
