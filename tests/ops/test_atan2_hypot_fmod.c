/* The extension ops atan2, hypot and fmod (ref_atan2_hypot.c, ref_fmod.c)
 * as a caller meets them: hand-worked values at the quadrants, signed
 * zeros, infinities and NaNs PyTorch defines, libm in double as the oracle
 * for the float32 loops (contiguous and strided), broadcasting, fmod's
 * exact integer path (C's truncation, the dividend's sign, the divisions
 * that trap in C), and bad arguments named with op, argument, expected and
 * actual. */
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
typedef diopiError_t (*binary_t)(CTX, T, CT, CT);
typedef diopiError_t (*binary_inp_t)(CTX, T, CT);
typedef diopiError_t (*scalar_t)(CTX, T, CT, S);
typedef diopiError_t (*scalar_inp_t)(CTX, T, S);
typedef const char *(*last_error_t)(void);

#define F32 diopi_dtype_float32
#define F64 diopi_dtype_float64
#define I64 diopi_dtype_int64

static T make(ops_made_t *m, diopiDtype_t dtype, size_t ndim,
              const int64_t *shape, const void *values, void *data) {
  int64_t numel = 1;
  for (size_t d = 0; d < ndim; d++)
    numel *= shape[d];
  size_t elem = dtype == F32 ? 4 : dtype == diopi_dtype_int8 ? 1 : 8;
  return ops_made_tensor(m, dtype, ndim, shape, values, (size_t)numel * elem,
                         (void **)data);
}

static const char *last(ops_env_t *e) {
  return ((last_error_t)ops_env_find(e, "diopiGetLastErrorString"))();
}

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* Same value, NaN matching NaN, and the sign of a zero or infinity. */
static void assert_same(double got, double want, double tol) {
  if (isnan(want)) {
    assert_true(isnan(got));
    return;
  }
  if (isinf(want) || want == 0) {
    assert_true(got == want && signbit(got) == signbit(want));
    return;
  }
  assert_float_equal(got, want, tol);
}

/* atan2(input, other) at each quadrant, on the axes (the sign of a zero
 * input picks pi or -pi), at infinities and NaN; in place. */
static void atan2_takes_the_quadrant_from_both_signs(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t atan2_ = (binary_t)ops_env_find(e, "diopiAtan2");
  binary_inp_t atan2_inp = (binary_inp_t)ops_env_find(e, "diopiAtan2Inp");
  int64_t s9[1] = {9};
  const double y[9] = {1, 1, -1, -1, 0, -0.0, 1, INFINITY, NAN},
               x[9] = {1, -1, -1, 1, -1, -1, 0, INFINITY, 1};
  const double want[9] = {M_PI / 4,  3 * M_PI / 4, -3 * M_PI / 4,
                          -M_PI / 4, M_PI,         -M_PI,
                          M_PI / 2,  M_PI / 4,     NAN};
  double *out, *yy;
  T ty = make(&m, F64, 1, s9, y, &yy), tx = make(&m, F64, 1, s9, x, NULL),
    to = make(&m, F64, 1, s9, NULL, &out);
  assert_int_equal(atan2_(e->ctx, to, ty, tx), diopiSuccess);
  assert_int_equal(atan2_inp(e->ctx, ty, tx), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 9; i++) {
    assert_same(out[i], want[i], 1e-15);
    assert_same(yy[i], want[i], 1e-15);
  }
  ops_made_destroy(&m);
}

/* hypot: 3-4-5, no overflow at 1e300 in double, +inf beside NaN, NaN
 * beside a finite value; in float32 (contiguous: the float loop; a strided
 * view: the double one) against libm's hypot rounded once, a [3, 1]
 * column broadcast against a [4] row, overflowing float only where the
 * true result does. */
static void hypot_matches_libm_without_overflow(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t hypot_ = (binary_t)ops_env_find(e, "diopiHypot");
  binary_inp_t hypot_inp = (binary_inp_t)ops_env_find(e, "diopiHypotInp");
  int64_t s5[1] = {5};
  const double a[5] = {3, 1e300, INFINITY, NAN, -5},
               b[5] = {-4, 1e300, NAN, 1, 12};
  const double want[5] = {5, M_SQRT2 * 1e300, INFINITY, NAN, 13};
  double *out;
  T ta = make(&m, F64, 1, s5, a, NULL), tb = make(&m, F64, 1, s5, b, NULL),
    to = make(&m, F64, 1, s5, NULL, &out);
  assert_int_equal(hypot_(e->ctx, to, ta, tb), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 5; i++)
    assert_same(out[i], want[i], 1e286);

  int64_t s31[2] = {3, 1}, s4[1] = {4}, s34[2] = {3, 4}, s8[1] = {8};
  const float col[3] = {0.1f, -3e38f, 7.25f},
              row[4] = {2.5f, -1e-30f, 3e38f, INFINITY};
  float *f, *wide, *g;
  T tc = make(&m, F32, 2, s31, col, NULL), tr = make(&m, F32, 1, s4, row, NULL),
    tf = make(&m, F32, 2, s34, NULL, &f);
  make(&m, F32, 1, s8, NULL, &wide);
  int64_t stride2[1] = {2};
  T strided = ops_made_view(&m, wide, F32, 1, s4, stride2);
  T tg = make(&m, F32, 1, s4, row, &g);
  assert_int_equal(hypot_(e->ctx, tf, tc, tr), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      assert_true(f[i * 4 + j] == (float)hypot(col[i], row[j]));
  for (int j = 0; j < 4; j++)
    wide[2 * j] = row[j];
  assert_int_equal(hypot_inp(e->ctx, strided, tr), diopiSuccess);
  assert_int_equal(hypot_inp(e->ctx, tg, tr), diopiSuccess);
  synchronize(e);
  for (int j = 0; j < 4; j++) {
    float want_j = (float)hypot(row[j], row[j]);
    assert_true(wide[2 * j] == want_j && g[j] == want_j);
  }
  assert_true(isinf(g[2]));
  ops_made_destroy(&m);
}

/* fmod in floating point: the dividend's sign (fmod(-5.5, 2) = -1.5 where
 * remainder gives 0.5), NaN for a zero divisor or an infinite dividend,
 * the dividend kept for an infinite divisor; float32 as libm's fmodf. */
static void fmod_keeps_the_dividends_sign(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t fmod_ = (binary_t)ops_env_find(e, "diopiFmod");
  scalar_t fmod_scalar = (scalar_t)ops_env_find(e, "diopiFmodScalar");
  int64_t s7[1] = {7};
  const double a[7] = {5.5, -5.5, 5.5, -5.5, 1, INFINITY, -2},
               b[7] = {2, 2, -2, -2, 0, 2, INFINITY};
  const double want[7] = {1.5, -1.5, 1.5, -1.5, NAN, NAN, -2};
  double *out, *by_scalar;
  T ta = make(&m, F64, 1, s7, a, NULL), tb = make(&m, F64, 1, s7, b, NULL),
    to = make(&m, F64, 1, s7, NULL, &out),
    ts = make(&m, F64, 1, s7, NULL, &by_scalar);
  diopiScalar_t minus_two = {.stype = F64, .fval = -2};
  assert_int_equal(fmod_(e->ctx, to, ta, tb), diopiSuccess);
  assert_int_equal(fmod_scalar(e->ctx, ts, ta, &minus_two), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 7; i++)
    assert_same(out[i], want[i], 0);
  assert_same(by_scalar[1], -1.5, 0);
  assert_same(by_scalar[4], 1, 0);
  assert_same(by_scalar[5], NAN, 0);

  int64_t s4[1] = {4};
  const float x[4] = {7.3f, -7.3f, 1e30f, -0.0f}, y[4] = {2.1f, 2.1f, 3, 5};
  float *f;
  T tx = make(&m, F32, 1, s4, x, NULL), ty = make(&m, F32, 1, s4, y, NULL),
    tf = make(&m, F32, 1, s4, NULL, &f);
  assert_int_equal(fmod_(e->ctx, tf, tx, ty), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 4; i++)
    assert_same(f[i], fmodf(x[i], y[i]), 0);
  ops_made_destroy(&m);
}

/* fmod of integers as C's %: truncation toward zero, exact beyond 2^53,
 * and the divisions C traps on defined: by 0 gives 0 (PyTorch raises: the
 * bridge checks first), INT64_MIN by -1 gives 0. The scalar forms divide by
 * the value as int8 holds it (-3 is -3; 253 would be the uint8's). */
static void fmod_of_integers_truncates_exactly(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t fmod_ = (binary_t)ops_env_find(e, "diopiFmod");
  binary_inp_t fmod_inp = (binary_inp_t)ops_env_find(e, "diopiFmodInp");
  scalar_inp_t fmod_scalar_inp =
      (scalar_inp_t)ops_env_find(e, "diopiFmodScalarInp");
  int64_t s6[1] = {6};
  const int64_t big = ((int64_t)1 << 62) + 5;
  const int64_t a[6] = {7, -7, 7, big, INT64_MIN, 9},
                b[6] = {3, 3, -3, 7, -1, 0};
  /* 2^62 = 4 (mod 7): 4 + 5 = 9 = 2 (mod 7). */
  const int64_t want[6] = {1, -1, 1, 2, 0, 0};
  int64_t *out, *aa;
  T ta = make(&m, I64, 1, s6, a, &aa), tb = make(&m, I64, 1, s6, b, NULL),
    to = make(&m, I64, 1, s6, NULL, &out);
  assert_int_equal(fmod_(e->ctx, to, ta, tb), diopiSuccess);
  assert_int_equal(fmod_inp(e->ctx, ta, tb), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 6; i++)
    assert_true(out[i] == want[i] && aa[i] == want[i]);

  const int8_t c[4] = {-128, 127, -7, 100};
  int8_t *cc;
  int64_t s4[1] = {4};
  T tc = make(&m, diopi_dtype_int8, 1, s4, c, &cc);
  diopiScalar_t minus_three = {.stype = I64, .ival = -3};
  assert_int_equal(fmod_scalar_inp(e->ctx, tc, &minus_three), diopiSuccess);
  synchronize(e);
  assert_true(cc[0] == -2 && cc[1] == 1 && cc[2] == -1 && cc[3] == 1);
  ops_made_destroy(&m);
}

static void bad_arguments_name_op_argument_and_values(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t atan2_ = (binary_t)ops_env_find(e, "diopiAtan2");
  binary_t fmod_ = (binary_t)ops_env_find(e, "diopiFmod");
  scalar_t fmod_scalar = (scalar_t)ops_env_find(e, "diopiFmodScalar");
  int64_t s2[1] = {2}, s3[1] = {3};
  T a = make(&m, F64, 1, s2, NULL, NULL), b = make(&m, F64, 1, s3, NULL, NULL),
    i = make(&m, I64, 1, s2, NULL, NULL),
    flag = make(&m, diopi_dtype_bool, 1, s2, NULL, NULL);
  assert_int_equal(atan2_(e->ctx, i, a, a), diopiErrorOccurred);
  assert_string_equal(
      last(e), "diopiAtan2: out: expected a floating dtype, got dtype 6");
  assert_int_equal(atan2_(e->ctx, a, a, b), diopiErrorOccurred);
  assert_string_equal(last(e), "diopiAtan2: other: shape [3] does not "
                               "broadcast with the others");
  assert_int_equal(fmod_(e->ctx, flag, a, a), diopiErrorOccurred);
  assert_string_equal(last(e),
                      "diopiFmod: out: expected a numeric dtype, got bool");
  assert_int_equal(fmod_scalar(e->ctx, a, a, NULL), diopiErrorOccurred);
  assert_string_equal(last(e),
                      "diopiFmodScalar: other: expected a scalar, got NULL");
  synchronize(e);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(atan2_takes_the_quadrant_from_both_signs),
      cmocka_unit_test(hypot_matches_libm_without_overflow),
      cmocka_unit_test(fmod_keeps_the_dividends_sign),
      cmocka_unit_test(fmod_of_integers_truncates_exactly),
      cmocka_unit_test(bad_arguments_name_op_argument_and_values),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
