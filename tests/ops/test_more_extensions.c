/* The extension ops bitwise xor, copysign, fmax/fmin, cumprod, log_sigmoid
 * and nan_to_num (ref_bitwise.c, ref_copysign.c, ref_fmax_fmin.c,
 * ref_scan.c, ref_extra_unary.c) as a caller meets them: hand-worked values
 * (signed zeros, NaNs, infinities, integers beyond 2^53 and wrapping int64
 * products), libm in double as the oracle for the floating loops, strided
 * views, and bad arguments named with op and argument. */
#include <float.h>
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
typedef diopiError_t (*unary_t)(CTX, T, CT);
typedef diopiError_t (*binary_t)(CTX, T, CT, CT);
typedef diopiError_t (*binary_inp_t)(CTX, T, CT);
typedef diopiError_t (*scalar_t)(CTX, T, CT, S);
typedef diopiError_t (*scalar_inp_t)(CTX, T, S);
typedef diopiError_t (*scan_t)(CTX, T, CT, int64_t);
typedef diopiError_t (*nan_to_num_t)(CTX, T, CT, S, S, S);
typedef diopiError_t (*nan_to_num_inp_t)(CTX, T, S, S, S);
typedef const char *(*last_error_t)(void);

#define F32 diopi_dtype_float32
#define F64 diopi_dtype_float64
#define I64 diopi_dtype_int64
#define I8 diopi_dtype_int8
#define BOOL diopi_dtype_bool

static T make(ops_made_t *m, diopiDtype_t dtype, size_t ndim,
              const int64_t *shape, const void *values, void *data) {
  int64_t numel = 1;
  for (size_t d = 0; d < ndim; d++)
    numel *= shape[d];
  size_t elem = dtype == F32 ? 4 : dtype == I8 || dtype == BOOL ? 1 : 8;
  return ops_made_tensor(m, dtype, ndim, shape, values, (size_t)numel * elem,
                         (void **)data);
}

static const char *last(ops_env_t *e) {
  return ((last_error_t)ops_env_find(e, "diopiGetLastErrorString"))();
}

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* Same value, NaN matching NaN, and the sign of a zero, infinity or NaN. */
static void assert_same(double got, double want, double tol) {
  assert_true(signbit(got) == signbit(want));
  if (isnan(want)) {
    assert_true(isnan(got));
    return;
  }
  if (isinf(want) || want == 0) {
    assert_true(got == want);
    return;
  }
  assert_float_equal(got, want, tol);
}

/* xor of int64 beyond 2^53 (tensor, scalar, both in place), of int8 bits
 * (-1 ^ 0x55 = ~0x55) and of bools (a logical xor). */
static void bitwise_xor_keeps_every_bit(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t xor_ = (binary_t)ops_env_find(e, "diopiBitwiseXor");
  binary_inp_t xor_inp = (binary_inp_t)ops_env_find(e, "diopiBitwiseXorInp");
  scalar_t xor_scalar = (scalar_t)ops_env_find(e, "diopiBitwiseXorScalar");
  scalar_inp_t xor_inp_scalar =
      (scalar_inp_t)ops_env_find(e, "diopiBitwiseXorInpScalar");
  int64_t s3[1] = {3};
  const int64_t big = ((int64_t)1 << 60) + 1;
  const int64_t a[3] = {big, -1, 12}, b[3] = {1, big, 10};
  int64_t *out, *aa, *by_scalar, *cc;
  T ta = make(&m, I64, 1, s3, a, &aa), tb = make(&m, I64, 1, s3, b, NULL),
    to = make(&m, I64, 1, s3, NULL, &out),
    ts = make(&m, I64, 1, s3, NULL, &by_scalar),
    tc = make(&m, I64, 1, s3, a, &cc);
  diopiScalar_t three = {.stype = I64, .ival = 3};
  assert_int_equal(xor_(e->ctx, to, ta, tb), diopiSuccess);
  assert_int_equal(xor_scalar(e->ctx, ts, ta, &three), diopiSuccess);
  assert_int_equal(xor_inp_scalar(e->ctx, tc, &three), diopiSuccess);
  assert_int_equal(xor_inp(e->ctx, ta, tb), diopiSuccess);
  synchronize(e);
  const int64_t want[3] = {(int64_t)1 << 60, ~big, 6};
  const int64_t want_scalar[3] = {big ^ 3, -4, 15};
  for (int i = 0; i < 3; i++) {
    assert_true(out[i] == want[i] && aa[i] == want[i]);
    assert_true(by_scalar[i] == want_scalar[i] && cc[i] == want_scalar[i]);
  }

  int64_t s4[1] = {4};
  const int8_t x8[4] = {-1, 0x55, -128, 7}, y8[4] = {0x55, 0x55, 1, -8};
  const uint8_t p[4] = {1, 1, 0, 0}, q[4] = {1, 0, 1, 0};
  int8_t *o8;
  uint8_t *ob;
  T tx = make(&m, I8, 1, s4, x8, NULL), ty = make(&m, I8, 1, s4, y8, NULL),
    t8 = make(&m, I8, 1, s4, NULL, &o8), tp = make(&m, BOOL, 1, s4, p, NULL),
    tq = make(&m, BOOL, 1, s4, q, NULL), tob = make(&m, BOOL, 1, s4, NULL, &ob);
  assert_int_equal(xor_(e->ctx, t8, tx, ty), diopiSuccess);
  assert_int_equal(xor_(e->ctx, tob, tp, tq), diopiSuccess);
  synchronize(e);
  assert_true(o8[0] == (int8_t)~0x55 && o8[1] == 0 && o8[2] == -127 &&
              o8[3] == -1);
  assert_true(ob[0] == 0 && ob[1] == 1 && ob[2] == 1 && ob[3] == 0);
  ops_made_destroy(&m);
}

/* copysign: the sign bit of other, a -0.0 and a NaN's included; float32
 * (contiguous and strided) as libm's copysignf; a scalar other; an
 * integral input converted into a floating out. */
static void copysign_takes_the_sign_bit(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t copysign_ = (binary_t)ops_env_find(e, "diopiCopysign");
  binary_inp_t copysign_inp = (binary_inp_t)ops_env_find(e, "diopiCopysignInp");
  scalar_t copysign_scalar = (scalar_t)ops_env_find(e, "diopiCopysignScalar");
  int64_t s6[1] = {6};
  const double a[6] = {2.5, -2.5, 0, INFINITY, NAN, 3},
               b[6] = {-0.0, 0.0, -1, -7, -1, -NAN};
  const double want[6] = {-2.5, 2.5, -0.0, -INFINITY, -NAN, -3};
  double *out, *by_scalar;
  T ta = make(&m, F64, 1, s6, a, NULL), tb = make(&m, F64, 1, s6, b, NULL),
    to = make(&m, F64, 1, s6, NULL, &out),
    ts = make(&m, F64, 1, s6, NULL, &by_scalar);
  diopiScalar_t minus_zero = {.stype = F64, .fval = -0.0};
  assert_int_equal(copysign_(e->ctx, to, ta, tb), diopiSuccess);
  assert_int_equal(copysign_scalar(e->ctx, ts, ta, &minus_zero), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 6; i++) {
    assert_same(out[i], want[i], 0);
    assert_same(by_scalar[i], -fabs(a[i]), 0);
  }

  int64_t s4[1] = {4}, s8[1] = {8}, stride2[1] = {2};
  const float x[4] = {1.5f, -3e38f, 0, 7}, y[4] = {-2, 1, -0.0f, -NAN};
  float *f, *wide;
  T tx = make(&m, F32, 1, s4, x, &f), ty = make(&m, F32, 1, s4, y, NULL);
  make(&m, F32, 1, s8, NULL, &wide);
  for (int j = 0; j < 4; j++)
    wide[2 * j] = x[j];
  T strided = ops_made_view(&m, wide, F32, 1, s4, stride2);
  assert_int_equal(copysign_inp(e->ctx, tx, ty), diopiSuccess);
  assert_int_equal(copysign_inp(e->ctx, strided, ty), diopiSuccess);
  synchronize(e);
  for (int j = 0; j < 4; j++) {
    assert_same(f[j], copysignf(x[j], y[j]), 0);
    assert_same(wide[2 * j], copysignf(x[j], y[j]), 0);
  }

  int64_t s2[1] = {2};
  const int64_t n[2] = {3, -4};
  double *fo;
  T tn = make(&m, I64, 1, s2, n, NULL), tfo = make(&m, F64, 1, s2, NULL, &fo);
  diopiScalar_t minus_one = {.stype = I64, .ival = -1};
  assert_int_equal(copysign_scalar(e->ctx, tfo, tn, &minus_one), diopiSuccess);
  synchronize(e);
  assert_true(fo[0] == -3 && fo[1] == -4);
  ops_made_destroy(&m);
}

/* fmax/fmin: a NaN loses to a number, NaN only where both are; int64
 * exact beyond 2^53; a [2, 1] column broadcast against a [3] row. */
static void fmax_fmin_ignore_nan(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t fmax_ = (binary_t)ops_env_find(e, "diopiFmax");
  binary_t fmin_ = (binary_t)ops_env_find(e, "diopiFmin");
  int64_t s4[1] = {4};
  const double a[4] = {1, NAN, NAN, -INFINITY}, b[4] = {NAN, -2, NAN, 5};
  double *hi, *lo;
  T ta = make(&m, F64, 1, s4, a, NULL), tb = make(&m, F64, 1, s4, b, NULL),
    thi = make(&m, F64, 1, s4, NULL, &hi),
    tlo = make(&m, F64, 1, s4, NULL, &lo);
  assert_int_equal(fmax_(e->ctx, thi, ta, tb), diopiSuccess);
  assert_int_equal(fmin_(e->ctx, tlo, ta, tb), diopiSuccess);
  synchronize(e);
  assert_true(hi[0] == 1 && hi[1] == -2 && isnan(hi[2]) && hi[3] == 5);
  assert_true(lo[0] == 1 && lo[1] == -2 && isnan(lo[2]) && lo[3] == -INFINITY);

  int64_t s21[2] = {2, 1}, s3[1] = {3}, s23[2] = {2, 3};
  const int64_t big = ((int64_t)1 << 60) + 1;
  const int64_t col[2] = {big, -big}, row[3] = {big - 1, 0, big + 1};
  int64_t *ihi;
  T tc = make(&m, I64, 2, s21, col, NULL), tr = make(&m, I64, 1, s3, row, NULL),
    tihi = make(&m, I64, 2, s23, NULL, &ihi);
  assert_int_equal(fmax_(e->ctx, tihi, tc, tr), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      assert_true(ihi[i * 3 + j] == (col[i] > row[j] ? col[i] : row[j]));
  ops_made_destroy(&m);
}

/* cumprod along either dim of a [2, 3] tensor, a zero staying; int64
 * products wrap as unsigned 64-bit multiplication does; a strided out. */
static void cumprod_multiplies_along_dim(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  scan_t cumprod = (scan_t)ops_env_find(e, "diopiCumprod");
  int64_t s23[2] = {2, 3};
  const double x[6] = {2, -0.5, 4, 3, 0, 1e300};
  double *rows, *cols;
  T tx = make(&m, F64, 2, s23, x, NULL),
    tr = make(&m, F64, 2, s23, NULL, &rows),
    tc = make(&m, F64, 2, s23, NULL, &cols);
  assert_int_equal(cumprod(e->ctx, tr, tx, 1), diopiSuccess);
  assert_int_equal(cumprod(e->ctx, tc, tx, 0), diopiSuccess);
  synchronize(e);
  const double want_rows[6] = {2, -1, -4, 3, 0, 0},
               want_cols[6] = {2, -0.5, 4, 6, -0.0, 4e300};
  for (int i = 0; i < 6; i++) {
    assert_same(rows[i], want_rows[i], 0);
    assert_same(cols[i], want_cols[i], 1e286);
  }

  int64_t s4[1] = {4}, s8[1] = {8}, stride2[1] = {2};
  const int64_t v[4] = {3, (int64_t)1 << 40, -((int64_t)1 << 30), 7};
  int64_t *wide;
  T tv = make(&m, I64, 1, s4, v, NULL);
  make(&m, I64, 1, s8, NULL, &wide);
  T strided = ops_made_view(&m, wide, I64, 1, s4, stride2);
  assert_int_equal(cumprod(e->ctx, strided, tv, 0), diopiSuccess);
  synchronize(e);
  uint64_t p = 1;
  for (int i = 0; i < 4; i++) {
    p *= (uint64_t)v[i];
    assert_true(wide[2 * i] == (int64_t)p);
  }
  assert_true(wide[6] == 0); /* 3 * 7 * -(2^70) wraps to 0 */
  ops_made_destroy(&m);
}

/* log_sigmoid against log(1 / (1 + exp(-x))) in double where that does not
 * overflow, x itself far below 0, 0 far above; its backward
 * grad / (1 + exp(x)); float32 within a rounding of the double. */
static void log_sigmoid_and_its_gradient(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  unary_t log_sigmoid = (unary_t)ops_env_find(e, "diopiLogSigmoid");
  typedef diopiError_t (*backward_t)(CTX, T, CT, CT);
  backward_t grad = (backward_t)ops_env_find(e, "diopiLogSigmoidBackward");
  int64_t s6[1] = {6};
  const double x[6] = {-800, -3, 0, 0.5, 30, 800}, g[6] = {1, 2, 1, -1, 1, 3};
  double *out, *gi;
  T tx = make(&m, F64, 1, s6, x, NULL), tg = make(&m, F64, 1, s6, g, NULL),
    to = make(&m, F64, 1, s6, NULL, &out),
    tgi = make(&m, F64, 1, s6, NULL, &gi);
  assert_int_equal(log_sigmoid(e->ctx, to, tx), diopiSuccess);
  assert_int_equal(grad(e->ctx, tgi, tg, tx), diopiSuccess);
  synchronize(e);
  assert_true(out[0] == -800 && out[5] == 0);
  for (int i = 1; i < 5; i++)
    assert_float_equal(out[i], log(1 / (1 + exp(-x[i]))), 1e-15);
  for (int i = 0; i < 6; i++)
    assert_float_equal(gi[i], g[i] / (1 + exp(x[i])), 1e-15);

  int64_t s4[1] = {4};
  const float y[4] = {-20, -0.25f, 2, 17};
  float *f;
  T ty = make(&m, F32, 1, s4, y, NULL), tf = make(&m, F32, 1, s4, NULL, &f);
  assert_int_equal(log_sigmoid(e->ctx, tf, ty), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 4; i++) {
    double want = -log1p(exp(-(double)y[i]));
    assert_float_equal(f[i], want, fabs(want) * 2 * FLT_EPSILON);
  }
  ops_made_destroy(&m);
}

/* nan_to_num: NaN, +inf and -inf replaced by the scalars given, numbers
 * kept; in place on float32 with float32's largest values; an integral
 * tensor copied. */
static void nan_to_num_replaces_each_kind(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  nan_to_num_t nan_to_num = (nan_to_num_t)ops_env_find(e, "diopiNanToNum");
  nan_to_num_inp_t nan_to_num_inp =
      (nan_to_num_inp_t)ops_env_find(e, "diopiNanToNumInp");
  int64_t s5[1] = {5};
  const double x[5] = {NAN, INFINITY, -INFINITY, -0.0, 1e300};
  double *out;
  T tx = make(&m, F64, 1, s5, x, NULL), to = make(&m, F64, 1, s5, NULL, &out);
  diopiScalar_t nan = {.stype = F64, .fval = 1.5},
                pos = {.stype = F64, .fval = 2e300},
                neg = {.stype = I64, .ival = -7};
  assert_int_equal(nan_to_num(e->ctx, to, tx, &nan, &pos, &neg), diopiSuccess);
  synchronize(e);
  const double want[5] = {1.5, 2e300, -7, -0.0, 1e300};
  for (int i = 0; i < 5; i++)
    assert_same(out[i], want[i], 0);

  const float y[5] = {NAN, INFINITY, -INFINITY, 2.5f, -FLT_MAX};
  float *f;
  T ty = make(&m, F32, 1, s5, y, &f);
  diopiScalar_t zero = {.stype = F64, .fval = 0},
                big = {.stype = F64, .fval = FLT_MAX},
                low = {.stype = F64, .fval = -FLT_MAX};
  assert_int_equal(nan_to_num_inp(e->ctx, ty, &zero, &big, &low), diopiSuccess);
  const int64_t n[5] = {INT64_MIN, -1, 0, 1, INT64_MAX};
  int64_t *ni;
  T tn = make(&m, I64, 1, s5, n, NULL), tni = make(&m, I64, 1, s5, NULL, &ni);
  assert_int_equal(nan_to_num(e->ctx, tni, tn, &zero, &big, &low),
                   diopiSuccess);
  synchronize(e);
  assert_true(f[0] == 0 && f[1] == FLT_MAX && f[2] == -FLT_MAX &&
              f[3] == 2.5f && f[4] == -FLT_MAX);
  for (int i = 0; i < 5; i++)
    assert_true(ni[i] == n[i]);
  ops_made_destroy(&m);
}

static void bad_arguments_name_op_and_argument(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t xor_ = (binary_t)ops_env_find(e, "diopiBitwiseXor");
  binary_t copysign_ = (binary_t)ops_env_find(e, "diopiCopysign");
  scalar_t copysign_scalar = (scalar_t)ops_env_find(e, "diopiCopysignScalar");
  scan_t cumprod = (scan_t)ops_env_find(e, "diopiCumprod");
  int64_t s2[1] = {2}, s3[1] = {3};
  T a = make(&m, F64, 1, s2, NULL, NULL), b = make(&m, F64, 1, s3, NULL, NULL),
    i = make(&m, I64, 1, s2, NULL, NULL);
  assert_int_equal(xor_(e->ctx, i, a, i), diopiErrorOccurred);
  assert_string_equal(last(e), "diopiBitwiseXor: input: expected an integer "
                               "or bool dtype, got dtype 10");
  assert_int_equal(copysign_(e->ctx, i, a, a), diopiErrorOccurred);
  assert_string_equal(
      last(e), "diopiCopysign: out: expected a floating dtype, got dtype 6");
  assert_int_equal(copysign_scalar(e->ctx, a, a, NULL), diopiErrorOccurred);
  assert_string_equal(
      last(e), "diopiCopysignScalar: other: expected a scalar, got NULL");
  assert_int_equal(cumprod(e->ctx, b, a, 0), diopiErrorOccurred);
  assert_non_null(strstr(last(e), "diopiCumprod: out"));
  synchronize(e);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bitwise_xor_keeps_every_bit),
      cmocka_unit_test(copysign_takes_the_sign_bit),
      cmocka_unit_test(fmax_fmin_ignore_nan),
      cmocka_unit_test(cumprod_multiplies_along_dim),
      cmocka_unit_test(log_sigmoid_and_its_gradient),
      cmocka_unit_test(nan_to_num_replaces_each_kind),
      cmocka_unit_test(bad_arguments_name_op_and_argument),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
