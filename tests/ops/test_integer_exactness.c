/* Integer results exact as PyTorch 1.13's CPU computes them, at the
 * extremes of the integer dtypes, where a computation in double (53-bit
 * mantissa) loses the low bits and turns INT64_MAX into 2^63: negation and
 * abs wrap (abs(INT64_MIN) is INT64_MIN), rounding ops leave integers,
 * square and pow wrap as the dtype's multiplication, comparisons, maximum,
 * minimum, where, bitwise ops between different integer dtypes, remainder,
 * division rounded to trunc or floor and clamp (its scalar bounds as the
 * tensor's dtype holds them: uint8's -3 is 253) compute in int64, sum, cumsum
 * and prod wrap in int64, the min/max reductions and sort/topk order int64
 * exactly, and relu, addcmul, index_put and scatter keep every bit. Expected
 * values are worked by hand (wrapped products and remainders with Python's
 * integers). */
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
typedef diopiError_t (*with_scalar_t)(CTX, T, CT, S);

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

static diopiScalar_t int_scalar(int64_t v) {
  diopiScalar_t s = {.stype = diopi_dtype_int64};
  s.ival = v;
  return s;
}

/* A 1-dim int64 tensor of n values (NULL: unset, *data set). */
static T int64s(ops_made_t *m, int64_t n, const int64_t *values,
                int64_t **data) {
  return ops_made_tensor(m, diopi_dtype_int64, 1, &n, values,
                         values ? (size_t)n * sizeof *values : 0,
                         (void **)data);
}

static void expect_int64s(const int64_t *got, const int64_t *want, int n) {
  for (int i = 0; i < n; i++)
    assert_true(got[i] == want[i]);
}

/* neg(INT64_MAX) is INT64_MIN + 1 (not 2^63 negated, INT64_MIN); neg and
 * abs of INT64_MIN are INT64_MIN, of int8's -128 -128. */
static void neg_and_abs_wrap(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  unary_t neg = (unary_t)ops_env_find(e, "diopiNeg");
  unary_t abs_ = (unary_t)ops_env_find(e, "diopiAbs");
  const int64_t x[5] = {INT64_MIN, INT64_MAX, 0, -1, INT64_MAX - 2};
  const int64_t want_neg[5] = {INT64_MIN, INT64_MIN + 1, 0, 1, INT64_MIN + 3};
  const int64_t want_abs[5] = {INT64_MIN, INT64_MAX, 0, 1, INT64_MAX - 2};
  const int8_t x8[3] = {-128, 127, -1};
  int64_t *y, n3 = 3;
  int8_t *y8;
  T tx = int64s(&m, 5, x, NULL), ty = int64s(&m, 5, NULL, &y);
  T tx8 = ops_made_tensor(&m, diopi_dtype_int8, 1, &n3, x8, sizeof x8, NULL),
    ty8 = ops_made_tensor(&m, diopi_dtype_int8, 1, &n3, NULL, 0, (void **)&y8);
  assert_int_equal(neg(e->ctx, ty, tx), diopiSuccess);
  synchronize(e);
  expect_int64s(y, want_neg, 5);
  assert_int_equal(abs_(e->ctx, ty, tx), diopiSuccess);
  synchronize(e);
  expect_int64s(y, want_abs, 5);
  assert_int_equal(neg(e->ctx, ty8, tx8), diopiSuccess);
  synchronize(e);
  assert_int_equal(y8[0], -128);
  assert_int_equal(y8[1], -127);
  assert_int_equal(y8[2], 1);
  assert_int_equal(abs_(e->ctx, ty8, tx8), diopiSuccess);
  synchronize(e);
  assert_int_equal(y8[0], -128);
  assert_int_equal(y8[1], 127);
  ops_made_destroy(&m);
}

/* floor, ceil, round and trunc of an integer are the integer. */
static void rounding_ops_leave_integers(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  static const char *const names[4] = {"diopiFloor", "diopiCeil", "diopiRound",
                                       "diopiTrunc"};
  const int64_t x[5] = {INT64_MAX, INT64_MAX - 1, INT64_MIN + 1,
                        (INT64_C(1) << 53) + 1, -3};
  int64_t *y;
  T tx = int64s(&m, 5, x, NULL), ty = int64s(&m, 5, NULL, &y);
  for (int k = 0; k < 4; k++) {
    unary_t op = (unary_t)ops_env_find(e, names[k]);
    memset(y, 0, 5 * sizeof *y);
    assert_int_equal(op(e->ctx, ty, tx), diopiSuccess);
    synchronize(e);
    expect_int64s(y, x, 5);
  }
  ops_made_destroy(&m);
}

/* square wraps as C's unsigned multiplication: 3037000500^2 is
 * -9223372036709301616 as int64, INT64_MAX^2 is 1; int32's 46341^2 is
 * -2147479015, int8's 12^2 is -112. */
static void square_wraps(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  unary_t square = (unary_t)ops_env_find(e, "diopiSquare");
  const int64_t x[4] = {3037000500, INT64_MAX, INT64_MIN, -3};
  const int64_t want[4] = {INT64_C(-9223372036709301616), 1, 0, 9};
  const int32_t x32[2] = {46341, -46341};
  const int8_t x8[2] = {12, 16};
  int64_t *y, n2 = 2;
  int32_t *y32;
  int8_t *y8;
  T tx = int64s(&m, 4, x, NULL), ty = int64s(&m, 4, NULL, &y);
  T tx32 =
        ops_made_tensor(&m, diopi_dtype_int32, 1, &n2, x32, sizeof x32, NULL),
    ty32 =
        ops_made_tensor(&m, diopi_dtype_int32, 1, &n2, NULL, 0, (void **)&y32),
    tx8 = ops_made_tensor(&m, diopi_dtype_int8, 1, &n2, x8, sizeof x8, NULL),
    ty8 = ops_made_tensor(&m, diopi_dtype_int8, 1, &n2, NULL, 0, (void **)&y8);
  assert_int_equal(square(e->ctx, ty, tx), diopiSuccess);
  assert_int_equal(square(e->ctx, ty32, tx32), diopiSuccess);
  assert_int_equal(square(e->ctx, ty8, tx8), diopiSuccess);
  synchronize(e);
  expect_int64s(y, want, 4);
  assert_int_equal(y32[0], -2147479015);
  assert_int_equal(y32[1], -2147479015);
  assert_int_equal(y8[0], -112);
  assert_int_equal(y8[1], 0);
  ops_made_destroy(&m);
}

/* pow of integers as PyTorch's powi: by squaring, wrapping in the dtype
 * (3 ** 40 in int64, 10 ** 10 in int32, 3 ** 5 in int8); a negative tensor
 * exponent gives 1 for 1, +-1 for -1, 0 for any other base; the scalar
 * forms (tensor ** 41 of -3, 7 ** tensor of 30) wrap alike. */
static void pow_wraps(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t pow_t = (binary_t)ops_env_find(e, "diopiPowTensor");
  with_scalar_t pow_s = (with_scalar_t)ops_env_find(e, "diopiPow");
  diopiError_t (*pow_base)(CTX, T, S, CT) =
      (diopiError_t(*)(CTX, T, S, CT))ops_env_find(e, "diopiPowScalar");
  const int64_t a[7] = {3, 2, 1, -1, -1, 5, 0};
  const int64_t b[7] = {40, -1, -5, -3, -4, 0, 0};
  const int64_t want[7] = {INT64_C(-6289078614652622815), 0, 1, -1, 1, 1, 1};
  int64_t *y;
  T ta = int64s(&m, 7, a, NULL), tb = int64s(&m, 7, b, NULL),
    ty = int64s(&m, 7, NULL, &y);
  assert_int_equal(pow_t(e->ctx, ty, ta, tb), diopiSuccess);
  synchronize(e);
  expect_int64s(y, want, 7);
  const int64_t base[1] = {-3}, exponent[1] = {30};
  int64_t *y1;
  T tbase = int64s(&m, 1, base, NULL), texp = int64s(&m, 1, exponent, NULL),
    ty1 = int64s(&m, 1, NULL, &y1);
  diopiScalar_t forty_one = int_scalar(41), seven = int_scalar(7);
  assert_int_equal(pow_s(e->ctx, ty1, tbase, &forty_one), diopiSuccess);
  synchronize(e);
  assert_true(y1[0] == INT64_C(420491770248316829));
  assert_int_equal(pow_base(e->ctx, ty1, &seven, texp), diopiSuccess);
  synchronize(e);
  assert_true(y1[0] == INT64_C(1576789505350337489));
  int64_t n1 = 1;
  const int32_t ten[1] = {10};
  const int8_t three[1] = {3};
  int32_t *y32;
  int8_t *y8;
  T t32 = ops_made_tensor(&m, diopi_dtype_int32, 1, &n1, ten, sizeof ten, NULL),
    ty32 =
        ops_made_tensor(&m, diopi_dtype_int32, 1, &n1, NULL, 0, (void **)&y32),
    t8 = ops_made_tensor(&m, diopi_dtype_int8, 1, &n1, three, sizeof three,
                         NULL),
    ty8 = ops_made_tensor(&m, diopi_dtype_int8, 1, &n1, NULL, 0, (void **)&y8);
  diopiScalar_t ten_s = int_scalar(10), five = int_scalar(5);
  assert_int_equal(pow_s(e->ctx, ty32, t32, &ten_s), diopiSuccess);
  assert_int_equal(pow_s(e->ctx, ty8, t8, &five), diopiSuccess);
  synchronize(e);
  assert_int_equal(y32[0], 1410065408);
  assert_int_equal(y8[0], -13);
  ops_made_destroy(&m);
}

/* eq(INT64_MAX, INT64_MAX - 1) is false, lt true, as tensors, against a
 * scalar and through diopiEqual; a 0-dim int64 300 meets a uint8 tensor
 * as 44 (the result type, uint8, holds it so). */
static void comparisons_are_exact(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t eq = (binary_t)ops_env_find(e, "diopiEq");
  binary_t lt = (binary_t)ops_env_find(e, "diopiLt");
  with_scalar_t eq_scalar = (with_scalar_t)ops_env_find(e, "diopiEqScalar");
  with_scalar_t gt_scalar = (with_scalar_t)ops_env_find(e, "diopiGtScalar");
  diopiError_t (*equal)(CTX, bool *, CT, CT) =
      (diopiError_t(*)(CTX, bool *, CT, CT))ops_env_find(e, "diopiEqual");
  const int64_t a[2] = {INT64_MAX, INT64_MIN + 1};
  const int64_t b[2] = {INT64_MAX - 1, INT64_MIN};
  const uint8_t small[1] = {44};
  const int64_t three_hundred = 300;
  int64_t n1 = 1, n2 = 2;
  bool *y, *y1, same = true;
  T ta = int64s(&m, 2, a, NULL), tb = int64s(&m, 2, b, NULL),
    ty = ops_made_tensor(&m, diopi_dtype_bool, 1, &n2, NULL, 0, (void **)&y),
    tu = ops_made_tensor(&m, diopi_dtype_uint8, 1, &n1, small, 1, NULL),
    t300 = ops_made_tensor(&m, diopi_dtype_int64, 0, NULL, &three_hundred,
                           sizeof three_hundred, NULL),
    ty1 = ops_made_tensor(&m, diopi_dtype_bool, 1, &n1, NULL, 0, (void **)&y1);
  assert_int_equal(eq(e->ctx, ty, ta, tb), diopiSuccess);
  synchronize(e);
  assert_false(y[0]);
  assert_false(y[1]);
  assert_int_equal(lt(e->ctx, ty, tb, ta), diopiSuccess);
  synchronize(e);
  assert_true(y[0]);
  assert_true(y[1]);
  diopiScalar_t max = int_scalar(INT64_MAX);
  assert_int_equal(eq_scalar(e->ctx, ty, tb, &max), diopiSuccess);
  synchronize(e);
  assert_false(y[0]);
  diopiScalar_t almost = int_scalar(INT64_MAX - 1);
  assert_int_equal(gt_scalar(e->ctx, ty, ta, &almost), diopiSuccess);
  synchronize(e);
  assert_true(y[0]);
  assert_false(y[1]);
  assert_int_equal(equal(e->ctx, &same, ta, tb), diopiSuccess);
  assert_false(same);
  assert_int_equal(eq(e->ctx, ty1, tu, t300), diopiSuccess);
  synchronize(e);
  assert_true(y1[0]);
  ops_made_destroy(&m);
}

/* maximum, minimum and where of int64 with an int32 operand, and
 * bitwise and/or between int64 and int32 (and an int64 scalar), keep every
 * bit. */
static void picks_and_bitwise_keep_every_bit(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t maximum = (binary_t)ops_env_find(e, "diopiMaximum");
  binary_t minimum = (binary_t)ops_env_find(e, "diopiMinimum");
  binary_t bit_and = (binary_t)ops_env_find(e, "diopiBitwiseAnd");
  binary_t bit_or = (binary_t)ops_env_find(e, "diopiBitwiseOr");
  with_scalar_t and_scalar =
      (with_scalar_t)ops_env_find(e, "diopiBitwiseAndScalar");
  diopiError_t (*where)(CTX, T, CT, CT, CT) =
      (diopiError_t(*)(CTX, T, CT, CT, CT))ops_env_find(e, "diopiWhere");
  const int64_t a[3] = {INT64_MAX - 1, INT64_MIN + 1, (INT64_C(1) << 53) + 1};
  const int32_t b[3] = {-1, 0, 2};
  const bool c[3] = {true, false, true};
  int64_t *y, n3 = 3;
  T ta = int64s(&m, 3, a, NULL),
    tb = ops_made_tensor(&m, diopi_dtype_int32, 1, &n3, b, sizeof b, NULL),
    tc = ops_made_tensor(&m, diopi_dtype_bool, 1, &n3, c, sizeof c, NULL),
    ty = int64s(&m, 3, NULL, &y);
  assert_int_equal(maximum(e->ctx, ty, ta, tb), diopiSuccess);
  synchronize(e);
  expect_int64s(y, (const int64_t[3]){INT64_MAX - 1, 0, a[2]}, 3);
  assert_int_equal(minimum(e->ctx, ty, ta, tb), diopiSuccess);
  synchronize(e);
  expect_int64s(y, (const int64_t[3]){-1, INT64_MIN + 1, 2}, 3);
  assert_int_equal(where(e->ctx, ty, tc, ta, tb), diopiSuccess);
  synchronize(e);
  expect_int64s(y, (const int64_t[3]){INT64_MAX - 1, 0, a[2]}, 3);
  assert_int_equal(bit_and(e->ctx, ty, ta, tb), diopiSuccess);
  synchronize(e);
  expect_int64s(y, (const int64_t[3]){INT64_MAX - 1, 0, 0}, 3);
  assert_int_equal(bit_or(e->ctx, ty, ta, tb), diopiSuccess);
  synchronize(e);
  expect_int64s(y, (const int64_t[3]){-1, INT64_MIN + 1, a[2] | 2}, 3);
  diopiScalar_t mask = int_scalar(INT64_MAX);
  assert_int_equal(and_scalar(e->ctx, ty, ta, &mask), diopiSuccess);
  synchronize(e);
  expect_int64s(y, (const int64_t[3]){INT64_MAX - 1, 1, a[2]}, 3);
  ops_made_destroy(&m);
}

/* Python's modulo in int64: INT64_MAX % 10 is 7, INT64_MIN % 3 is 1,
 * -7 % 2^62 is 4611686018427387897, INT64_MIN % -1 is 0, and a tensor
 * divisor INT64_MAX leaves INT64_MAX - 1. */
static void remainder_is_exact(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  binary_t rem = (binary_t)ops_env_find(e, "diopiRemainderTensor");
  with_scalar_t rem_scalar =
      (with_scalar_t)ops_env_find(e, "diopiRemainderScalar");
  const int64_t a[4] = {INT64_MAX, INT64_MIN, -7, INT64_MAX - 1};
  const int64_t b[4] = {10, 3, INT64_C(1) << 62, INT64_MAX};
  int64_t *y;
  T ta = int64s(&m, 4, a, NULL), tb = int64s(&m, 4, b, NULL),
    ty = int64s(&m, 4, NULL, &y);
  assert_int_equal(rem(e->ctx, ty, ta, tb), diopiSuccess);
  synchronize(e);
  expect_int64s(
      y, (const int64_t[4]){7, 1, INT64_C(4611686018427387897), INT64_MAX - 1},
      4);
  diopiScalar_t minus_one = int_scalar(-1), big = int_scalar(INT64_MAX - 1);
  assert_int_equal(rem_scalar(e->ctx, ty, ta, &minus_one), diopiSuccess);
  synchronize(e);
  expect_int64s(y, (const int64_t[4]){0, 0, 0, 0}, 4);
  assert_int_equal(rem_scalar(e->ctx, ty, ta, &big), diopiSuccess);
  synchronize(e);
  expect_int64s(y, (const int64_t[4]){1, INT64_MAX - 3, INT64_MAX - 8, 0}, 4);
  ops_made_destroy(&m);
}

/* div rounding to trunc and floor in int64: (INT64_MIN + 1) / 2 is
 * -4611686018427387903 truncated, -4611686018427387904 floored (Python's
 * //); INT64_MAX / -2 likewise; uint8 floor-divides by the scalar -3 as
 * 253. */
static void rounded_division_is_exact(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*div)(CTX, T, CT, CT, diopiRoundMode_t) = (diopiError_t(*)(
      CTX, T, CT, CT, diopiRoundMode_t))ops_env_find(e, "diopiDiv");
  diopiError_t (*div_scalar)(CTX, T, CT, S, diopiRoundMode_t) =
      (diopiError_t(*)(CTX, T, CT, S, diopiRoundMode_t))ops_env_find(
          e, "diopiDivScalar");
  const int64_t a[3] = {INT64_MIN + 1, INT64_MAX, INT64_MAX};
  const int64_t b[3] = {2, 3, -2};
  const uint8_t x[2] = {200, 255};
  int64_t *y, n2 = 2;
  uint8_t *y8;
  T ta = int64s(&m, 3, a, NULL), tb = int64s(&m, 3, b, NULL),
    ty = int64s(&m, 3, NULL, &y),
    tx = ops_made_tensor(&m, diopi_dtype_uint8, 1, &n2, x, sizeof x, NULL),
    ty8 = ops_made_tensor(&m, diopi_dtype_uint8, 1, &n2, NULL, 0, (void **)&y8);
  assert_int_equal(div(e->ctx, ty, ta, tb, RoundModeTrunc), diopiSuccess);
  synchronize(e);
  expect_int64s(y,
                (const int64_t[3]){INT64_C(-4611686018427387903),
                                   INT64_C(3074457345618258602),
                                   INT64_C(-4611686018427387903)},
                3);
  assert_int_equal(div(e->ctx, ty, ta, tb, RoundModeFloor), diopiSuccess);
  synchronize(e);
  expect_int64s(y,
                (const int64_t[3]){INT64_C(-4611686018427387904),
                                   INT64_C(3074457345618258602),
                                   INT64_C(-4611686018427387904)},
                3);
  diopiScalar_t minus_three = int_scalar(-3);
  assert_int_equal(div_scalar(e->ctx, ty8, tx, &minus_three, RoundModeFloor),
                   diopiSuccess);
  synchronize(e);
  assert_int_equal(y8[0], 0);
  assert_int_equal(y8[1], 1);
  ops_made_destroy(&m);
}

/* uint8 clamp(min -3, max 50) is clamp(253, 50): every element 50; int64
 * clamp_max by INT64_MAX - 1 (a tensor) lowers INT64_MAX only, and by the
 * scalar likewise. */
static void clamp_bounds_as_the_dtype_holds_them(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*clamp)(CTX, T, CT, S, S) =
      (diopiError_t(*)(CTX, T, CT, S, S))ops_env_find(e, "diopiClampScalar");
  binary_t clamp_max = (binary_t)ops_env_find(e, "diopiClampMax");
  with_scalar_t clamp_max_scalar =
      (with_scalar_t)ops_env_find(e, "diopiClampMaxScalar");
  const uint8_t x[4] = {0, 3, 200, 255};
  const int64_t big[3] = {INT64_MAX, INT64_MAX - 1, INT64_MIN};
  const int64_t bound[3] = {INT64_MAX - 1, INT64_MAX - 1, INT64_MAX - 1};
  int64_t n4 = 4, *y64;
  uint8_t *y;
  T tx = ops_made_tensor(&m, diopi_dtype_uint8, 1, &n4, x, sizeof x, NULL),
    ty = ops_made_tensor(&m, diopi_dtype_uint8, 1, &n4, NULL, 0, (void **)&y),
    tbig = int64s(&m, 3, big, NULL), tbound = int64s(&m, 3, bound, NULL),
    ty64 = int64s(&m, 3, NULL, &y64);
  diopiScalar_t lo = int_scalar(-3), hi = int_scalar(50);
  assert_int_equal(clamp(e->ctx, ty, tx, &lo, &hi), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 4; i++)
    assert_int_equal(y[i], 50);
  const int64_t want[3] = {INT64_MAX - 1, INT64_MAX - 1, INT64_MIN};
  assert_int_equal(clamp_max(e->ctx, ty64, tbig, tbound), diopiSuccess);
  synchronize(e);
  expect_int64s(y64, want, 3);
  diopiScalar_t max = int_scalar(INT64_MAX - 1);
  memset(y64, 0, 3 * sizeof *y64);
  assert_int_equal(clamp_max_scalar(e->ctx, ty64, tbig, &max), diopiSuccess);
  synchronize(e);
  expect_int64s(y64, want, 3);
  ops_made_destroy(&m);
}

/* sum, cumsum and prod of int64 wrap in int64: INT64_MIN + INT64_MAX is -1
 * (in double, 0), INT64_MAX + 1 is INT64_MIN, INT64_MAX * 3 is
 * INT64_MAX - 2. */
static void sums_and_products_wrap(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*sum)(CTX, T, CT, diopiSize_t) =
      (diopiError_t(*)(CTX, T, CT, diopiSize_t))ops_env_find(e, "diopiSum");
  diopiError_t (*cumsum)(CTX, T, CT, int64_t) =
      (diopiError_t(*)(CTX, T, CT, int64_t))ops_env_find(e, "diopiCumsum");
  diopiError_t (*prod)(CTX, T, CT, const int64_t *) =
      (diopiError_t(*)(CTX, T, CT, const int64_t *))ops_env_find(e,
                                                                 "diopiProd");
  const int64_t x[6] = {INT64_MIN, INT64_MAX, 0, -1, 5, 3};
  const int64_t over[2] = {INT64_MAX, 1}, triple[2] = {INT64_MAX, 3};
  int64_t *y, *s;
  T tx = int64s(&m, 6, x, NULL), ty = int64s(&m, 6, NULL, &y),
    tover = int64s(&m, 2, over, NULL), ttriple = int64s(&m, 2, triple, NULL),
    ts = ops_made_tensor(&m, diopi_dtype_int64, 0, NULL, NULL, 0, (void **)&s);
  diopiSize_t all = {NULL, 0};
  assert_int_equal(sum(e->ctx, ts, tx, all), diopiSuccess);
  synchronize(e);
  assert_true(*s == 6);
  assert_int_equal(sum(e->ctx, ts, tover, all), diopiSuccess);
  synchronize(e);
  assert_true(*s == INT64_MIN);
  assert_int_equal(cumsum(e->ctx, ty, tx, 0), diopiSuccess);
  synchronize(e);
  expect_int64s(y, (const int64_t[6]){INT64_MIN, -1, -1, -2, 3, 6}, 6);
  assert_int_equal(prod(e->ctx, ts, ttriple, NULL), diopiSuccess);
  synchronize(e);
  assert_true(*s == INT64_MAX - 2);
  ops_made_destroy(&m);
}

/* max/min of all elements and argmin tell INT64_MAX from INT64_MAX - 1
 * and INT64_MIN from INT64_MIN + 1 (in double they tie, and the first
 * would win). */
static void extremes_tell_neighbours_apart(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*max_all)(CTX, T, CT) =
      (diopiError_t(*)(CTX, T, CT))ops_env_find(e, "diopiMaxAll");
  diopiError_t (*min_all)(CTX, T, CT) =
      (diopiError_t(*)(CTX, T, CT))ops_env_find(e, "diopiMinAll");
  diopiError_t (*argmin)(CTX, T, CT, const int64_t *, bool) = (diopiError_t(*)(
      CTX, T, CT, const int64_t *, bool))ops_env_find(e, "diopiArgmin");
  const int64_t x[4] = {INT64_MAX - 1, INT64_MIN + 1, INT64_MAX, INT64_MIN};
  int64_t *s;
  T tx = int64s(&m, 4, x, NULL),
    ts = ops_made_tensor(&m, diopi_dtype_int64, 0, NULL, NULL, 0, (void **)&s);
  assert_int_equal(max_all(e->ctx, ts, tx), diopiSuccess);
  synchronize(e);
  assert_true(*s == INT64_MAX);
  assert_int_equal(min_all(e->ctx, ts, tx), diopiSuccess);
  synchronize(e);
  assert_true(*s == INT64_MIN);
  assert_int_equal(argmin(e->ctx, ts, tx, NULL, false), diopiSuccess);
  synchronize(e);
  assert_true(*s == 3);
  ops_made_destroy(&m);
}

/* sort and topk order int64 neighbours of the extremes exactly. */
static void sort_and_topk_order_int64_exactly(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*sort)(CTX, T, T, CT, int64_t, bool, const bool *) =
      (diopiError_t(*)(CTX, T, T, CT, int64_t, bool, const bool *))ops_env_find(
          e, "diopiSort");
  diopiError_t (*topk)(CTX, T, T, CT, int64_t, int64_t, bool, bool) =
      (diopiError_t(*)(CTX, T, T, CT, int64_t, int64_t, bool,
                       bool))ops_env_find(e, "diopiTopk");
  const int64_t x[5] = {INT64_MAX - 1, INT64_MAX, INT64_MIN + 1, INT64_MIN, 0};
  int64_t *v, *i, *v2, *i2;
  T tx = int64s(&m, 5, x, NULL), tv = int64s(&m, 5, NULL, &v),
    ti = int64s(&m, 5, NULL, &i), tv2 = int64s(&m, 2, NULL, &v2),
    ti2 = int64s(&m, 2, NULL, &i2);
  assert_int_equal(sort(e->ctx, tv, ti, tx, 0, false, NULL), diopiSuccess);
  synchronize(e);
  expect_int64s(
      v,
      (const int64_t[5]){INT64_MIN, INT64_MIN + 1, 0, INT64_MAX - 1, INT64_MAX},
      5);
  expect_int64s(i, (const int64_t[5]){3, 2, 4, 0, 1}, 5);
  assert_int_equal(topk(e->ctx, tv2, ti2, tx, 2, 0, true, true), diopiSuccess);
  synchronize(e);
  expect_int64s(v2, (const int64_t[2]){INT64_MAX, INT64_MAX - 1}, 2);
  expect_int64s(i2, (const int64_t[2]){1, 0}, 2);
  ops_made_destroy(&m);
}

/* relu, addcmul (value 1), index_put (accumulating at a repeated index)
 * and scatter with reduce "add" of int64 keep every bit and wrap:
 * INT64_MAX + 1 * 1 * 1 is INT64_MIN. */
static void relu_addcmul_and_scatters_keep_every_bit(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  unary_t relu = (unary_t)ops_env_find(e, "diopiRelu");
  diopiError_t (*addcmul)(CTX, T, CT, CT, CT, S) =
      (diopiError_t(*)(CTX, T, CT, CT, CT, S))ops_env_find(e, "diopiAddcmul");
  diopiError_t (*index_put)(CTX, T, CT, CT, CT *, int64_t, bool) =
      (diopiError_t(*)(CTX, T, CT, CT, CT *, int64_t, bool))ops_env_find(
          e, "diopiIndexPut");
  diopiError_t (*scatter)(CTX, T, CT, int64_t, CT, CT, const char *) =
      (diopiError_t(*)(CTX, T, CT, int64_t, CT, CT, const char *))ops_env_find(
          e, "diopiScatter");
  const int64_t x[4] = {INT64_MAX, INT64_MAX - 1, INT64_MIN, -1};
  const int64_t base[2] = {INT64_MAX - 2, INT64_MAX}, ones[2] = {1, 1};
  const int64_t at_zero[2] = {0, 0}, at_each[2] = {0, 1};
  const int64_t src[2] = {1, INT64_MIN};
  int64_t *y, *y2;
  T tx = int64s(&m, 4, x, NULL), ty = int64s(&m, 4, NULL, &y),
    tbase = int64s(&m, 2, base, NULL), tones = int64s(&m, 2, ones, NULL),
    tzero = int64s(&m, 2, at_zero, NULL), teach = int64s(&m, 2, at_each, NULL),
    tsrc = int64s(&m, 2, src, NULL), ty2 = int64s(&m, 2, NULL, &y2);
  assert_int_equal(relu(e->ctx, ty, tx), diopiSuccess);
  synchronize(e);
  expect_int64s(y, (const int64_t[4]){INT64_MAX, INT64_MAX - 1, 0, 0}, 4);
  diopiScalar_t one = int_scalar(1);
  assert_int_equal(addcmul(e->ctx, ty2, tbase, tones, tones, &one),
                   diopiSuccess);
  synchronize(e);
  expect_int64s(y2, (const int64_t[2]){INT64_MAX - 1, INT64_MIN}, 2);
  CT indices[1] = {tzero};
  assert_int_equal(index_put(e->ctx, ty2, tbase, tones, indices, 1, true),
                   diopiSuccess);
  synchronize(e);
  expect_int64s(y2, (const int64_t[2]){INT64_MAX, INT64_MAX}, 2);
  assert_int_equal(scatter(e->ctx, ty2, tbase, 0, tsrc, teach, "add"),
                   diopiSuccess);
  synchronize(e);
  expect_int64s(y2, (const int64_t[2]){INT64_MAX - 1, -1}, 2);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(neg_and_abs_wrap),
      cmocka_unit_test(rounding_ops_leave_integers),
      cmocka_unit_test(square_wraps),
      cmocka_unit_test(pow_wraps),
      cmocka_unit_test(comparisons_are_exact),
      cmocka_unit_test(picks_and_bitwise_keep_every_bit),
      cmocka_unit_test(remainder_is_exact),
      cmocka_unit_test(rounded_division_is_exact),
      cmocka_unit_test(clamp_bounds_as_the_dtype_holds_them),
      cmocka_unit_test(sums_and_products_wrap),
      cmocka_unit_test(extremes_tell_neighbours_apart),
      cmocka_unit_test(sort_and_topk_order_int64_exactly),
      cmocka_unit_test(relu_addcmul_and_scatters_keep_every_bit),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
