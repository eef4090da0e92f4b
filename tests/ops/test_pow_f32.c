/* float32 pow in its three forms (tensor ** tensor, tensor ** scalar,
 * scalar ** tensor) against C: C's special cases (signed zeros, negative
 * bases with integer and non-integer exponents, infinities, NaN, y = 0 and
 * x = 1, overflow and underflow) bit for bit as powf gives them, among
 * ordinary elements so that both parts of the vector loop meet in one
 * chunk; a sweep of random and edge inputs (near 1 with large exponents,
 * huge and tiny, subnormal, negative with integer exponents, results at the
 * ends of float's range, any bits) within 1 ulp of double-precision pow
 * rounded to float; negative bases to odd and even integer powers;
 * broadcast, strided and in-place operands. CTest runs
 * this program under each BACKPLANE_OPS_ISA cap (ops.pow_f32_avx2,
 * ops.pow_f32_sse2), so every build of the loops answers alike. */
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
typedef diopiError_t (*pow_tensors_fn)(CTX, T, CT, CT);
typedef diopiError_t (*pow_exponent_fn)(CTX, T, CT, const diopiScalar_t *);
typedef diopiError_t (*pow_base_fn)(CTX, T, const diopiScalar_t *, CT);

static diopiScalar_t scalar(float v) {
  return (diopiScalar_t){.stype = diopi_dtype_float64, .fval = v};
}

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* Floats in order as integers: adjacent floats one apart, both zeros 0. */
static int64_t ordinal(float v) {
  int32_t bits;
  memcpy(&bits, &v, sizeof bits);
  return bits < 0 ? -(int64_t)(bits & 0x7fffffff) : bits;
}

/* got is powf(x, y) bit for bit (any NaN for a NaN). */
static void expect_powf(float got, float x, float y) {
  float want = powf(x, y);
  if (isnan(want) ? isnan(got) : memcmp(&got, &want, sizeof got) == 0)
    return;
  print_error("pow(%a, %a): got %a, powf gives %a\n", x, y, got, want);
  fail();
}

/* got is within 1 ulp of pow(x, y) in double rounded to float (a zero of
 * its sign; NaN for NaN; an infinity exactly). */
static void expect_within_one_ulp(float got, float x, float y) {
  float want = (float)pow((double)x, (double)y);
  bool ok = isnan(want)    ? isnan(got)
            : isinf(want)  ? got == want
            : want == 0.0f ? got == 0.0f && signbit(got) == signbit(want)
                           : !isnan(got) && ordinal(got) - ordinal(want) <= 1 &&
                                 ordinal(want) - ordinal(got) <= 1 &&
                                 signbit(got) == signbit(want);
  if (ok)
    return;
  print_error("pow(%a, %a): got %a, want %a\n", x, y, got, want);
  fail();
}

/* C's special cases (C11 F.10.4.4) and exact results, x then y: each
 * result is exact or a rounding of an exact 0, 1 or infinity, so that every
 * correct pow gives powf's bits. */
static const float SPECIAL[][2] = {
    {0.0f, -3.0f},
    {-0.0f, -3.0f},
    {0.0f, -2.0f},
    {-0.0f, -2.0f},
    {-0.0f, -0.5f},
    {0.0f, 3.0f},
    {-0.0f, 3.0f},
    {-0.0f, 2.0f},
    {-0.0f, 0.5f},
    {0.0f, -INFINITY},
    {-0.0f, INFINITY},
    {0.0f, NAN},
    {-1.0f, INFINITY},
    {-1.0f, -INFINITY},
    {-1.0f, 3.0f},
    {-1.0f, 0.5f},
    {-1.0f, 16777215.0f},
    {-1.0f, 16777216.0f},
    {1.0f, NAN},
    {1.0f, INFINITY},
    {1.0f, -INFINITY},
    {1.0f, 12.5f},
    {NAN, 0.0f},
    {NAN, -0.0f},
    {NAN, 1.0f},
    {NAN, NAN},
    {2.5f, NAN},
    {INFINITY, -1.0f},
    {INFINITY, 0.5f},
    {INFINITY, 3.0f},
    {-INFINITY, -3.0f},
    {-INFINITY, -2.0f},
    {-INFINITY, 3.0f},
    {-INFINITY, 2.0f},
    {-INFINITY, 0.5f},
    {-INFINITY, -0.5f},
    {0.5f, INFINITY},
    {0.5f, -INFINITY},
    {2.0f, INFINITY},
    {2.0f, -INFINITY},
    {-0.5f, -INFINITY},
    {-2.0f, -INFINITY},
    {-2.0f, 3.0f},
    {-2.0f, 2.0f},
    {-2.0f, -3.0f},
    {-2.0f, 0.5f},
    {-8.0f, 1.0f / 3},
    {-2.0f, 1e10f},
    {-2.0f, 129.0f},
    {-2.0f, -151.0f},
    {-0x1p-149f, 3.0f},
    {2.0f, 128.0f},
    {2.0f, 127.0f},
    {2.0f, -126.0f},
    {2.0f, -149.0f},
    {2.0f, -150.0f},
    {4.0f, -75.0f},
    {10.0f, 40.0f},
    {10.0f, -50.0f},
    {0x1p-148f, 0.5f},
    {0x1p-140f, -0.25f},
    {0x1.fffffep127f, 1.0f},
    {0x1.fffffep127f, 0.0f},
    {4.0f, 0.5f},
    {0.25f, -1.5f},
    {16.0f, 0.25f},
    {2.0f, 10.0f},
    {3.0f, 2.0f},
    {10.0f, 3.0f},
    {7.0f, 0.0f},
    {7.0f, -0.0f},
    {7.0f, 1.0f},
    {1e-30f, 1.0f},
    {1e30f, -0.0f},
    {3.0f, -100.0f},
};
enum { NSPECIAL = sizeof SPECIAL / sizeof *SPECIAL, FILL = 40 };

/* The ordinary operands around each special pair (in the fast lanes). */
static const float ORDINARY_X = 1.375f, ORDINARY_Y = -0.625f;

/* x ** y for a tensor holding each special pair at every FILL-th element,
 * ordinary pairs between: the specials bit for bit as powf, the rest within
 * 1 ulp. */
static void special_cases_of_two_tensors_match_powf(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int64_t shape[1] = {NSPECIAL * FILL};
  float *x, *y, *out;
  T tx =
      ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0, (void **)&x);
  T ty =
      ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0, (void **)&y);
  T to = ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0,
                         (void **)&out);
  for (int k = 0; k < NSPECIAL * FILL; k++) {
    bool special = k % FILL == 7;
    x[k] = special ? SPECIAL[k / FILL][0] : ORDINARY_X + (float)(k % 5);
    y[k] = special ? SPECIAL[k / FILL][1] : ORDINARY_Y * (float)(k % 3);
  }
  pow_tensors_fn fn = (pow_tensors_fn)ops_env_find(e, "diopiPowTensor");
  assert_int_equal(fn(e->ctx, to, tx, ty), diopiSuccess);
  synchronize(e);
  for (int k = 0; k < NSPECIAL * FILL; k++) {
    if (k % FILL == 7)
      expect_powf(out[k], x[k], y[k]);
    else
      expect_within_one_ulp(out[k], x[k], y[k]);
  }
  ops_made_destroy(&m);
}

/* The scalar forms, one call per special pair, the tensor operand the
 * special value at every FILL-th element and ordinary ones between. The
 * exponent 0.5 is left out: PyTorch takes sqrt for it (-0 and -inf differ
 * from powf). */
static void special_cases_with_a_scalar_match_powf(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int64_t shape[1] = {3 * FILL};
  float *v, *out;
  T tv =
      ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0, (void **)&v);
  T to = ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0,
                         (void **)&out);
  pow_exponent_fn by_exponent = (pow_exponent_fn)ops_env_find(e, "diopiPow");
  pow_base_fn by_base = (pow_base_fn)ops_env_find(e, "diopiPowScalar");
  for (int s = 0; s < NSPECIAL; s++) {
    float sx = SPECIAL[s][0], sy = SPECIAL[s][1];
    if (sy != 0.5f) { /* tensor ** scalar */
      for (int k = 0; k < 3 * FILL; k++)
        v[k] = k % FILL == 7 ? sx : ORDINARY_X + (float)(k % 5);
      diopiScalar_t exponent = scalar(sy);
      assert_int_equal(by_exponent(e->ctx, to, tv, &exponent), diopiSuccess);
      synchronize(e);
      for (int k = 0; k < 3 * FILL; k++) {
        if (k % FILL == 7)
          expect_powf(out[k], sx, sy);
        else
          expect_within_one_ulp(out[k], v[k], sy);
      }
    }
    for (int k = 0; k < 3 * FILL; k++) /* scalar ** tensor */
      v[k] = k % FILL == 7 ? sy : ORDINARY_Y * (float)(k % 3);
    diopiScalar_t base = scalar(sx);
    assert_int_equal(by_base(e->ctx, to, &base, tv), diopiSuccess);
    synchronize(e);
    for (int k = 0; k < 3 * FILL; k++) {
      if (k % FILL == 7)
        expect_powf(out[k], sx, sy);
      else
        expect_within_one_ulp(out[k], sx, v[k]);
    }
  }
  ops_made_destroy(&m);
}

/* A fixed sequence of 32-bit values and uniform floats in [lo, hi). */
static uint32_t next_bits(uint32_t *seed) {
  *seed ^= *seed << 13;
  *seed ^= *seed >> 17;
  *seed ^= *seed << 5;
  return *seed;
}
static float uniform(uint32_t *seed, float lo, float hi) {
  return lo + (hi - lo) * ((float)(next_bits(seed) >> 8) * 0x1.0p-24f);
}
static float from_bits(uint32_t bits) {
  float v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

enum { SWEEP_KINDS = 8, PER_KIND = 1 << 14, SWEEP = SWEEP_KINDS * PER_KIND };

/* Element k of the sweep: kind k / PER_KIND. */
static void sweep_pair(int kind, uint32_t *seed, float *x, float *y) {
  switch (kind) {
  case 0: /* the bench's operands */
    *x = uniform(seed, 0.5f, 1.5f);
    *y = uniform(seed, -1.0f, 1.0f);
    break;
  case 1: /* near 1, large exponents: results across float's range */
    *x = 1.0f + uniform(seed, -0x1p-10f, 0x1p-10f);
    *y = uniform(seed, -0x1p17f, 0x1p17f);
    break;
  case 2: /* any positive normal x, huge to tiny */
    *x = from_bits(0x00800000u + next_bits(seed) % 0x7f000000u);
    *y = uniform(seed, -4.0f, 4.0f);
    break;
  case 3: /* subnormal x */
    *x = from_bits(1u + next_bits(seed) % 0x007fffffu);
    *y = uniform(seed, -1.5f, 1.5f);
    break;
  case 4: /* negative x, integer y */
    *x = next_bits(seed) % 2 ? -(float)(1 + next_bits(seed) % 40)
                             : uniform(seed, -3.0f, -0.3f);
    *y = (float)((int)(next_bits(seed) % 81) - 40);
    break;
  case 5: { /* results at the ends of float's range: y log2 x in [-160, 130) */
    *x = uniform(seed, 0.01f, 100.0f);
    double t = uniform(seed, -160.0f, 130.0f);
    *y = (float)(t / log2((double)*x));
    break;
  }
  case 6: /* integer exponents: exact results and ties */
    *x = uniform(seed, 0.5f, 1.5f);
    *y = (float)((int)(next_bits(seed) % 17) - 8);
    break;
  default: /* any bits */
    *x = from_bits(next_bits(seed));
    *y = from_bits(next_bits(seed));
  }
}

static void sweep_of_two_tensors_is_within_one_ulp(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int64_t shape[1] = {SWEEP};
  float *x, *y, *out;
  T tx =
      ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0, (void **)&x);
  T ty =
      ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0, (void **)&y);
  T to = ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0,
                         (void **)&out);
  uint32_t seed = 20261127u;
  for (int k = 0; k < SWEEP; k++)
    sweep_pair(k / PER_KIND, &seed, &x[k], &y[k]);
  pow_tensors_fn fn = (pow_tensors_fn)ops_env_find(e, "diopiPowTensor");
  assert_int_equal(fn(e->ctx, to, tx, ty), diopiSuccess);
  synchronize(e);
  for (int k = 0; k < SWEEP; k++)
    expect_within_one_ulp(out[k], x[k], y[k]);
  ops_made_destroy(&m);
}

/* The scalar forms over the sweep's tensors: each kind's first pair gives
 * the scalar, the kind's elements the tensor. */
static void sweep_with_a_scalar_is_within_one_ulp(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int64_t shape[1] = {PER_KIND};
  float *v, *out;
  T tv =
      ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0, (void **)&v);
  T to = ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0,
                         (void **)&out);
  pow_exponent_fn by_exponent = (pow_exponent_fn)ops_env_find(e, "diopiPow");
  pow_base_fn by_base = (pow_base_fn)ops_env_find(e, "diopiPowScalar");
  uint32_t seed = 4096u;
  for (int kind = 0; kind < SWEEP_KINDS; kind++) {
    float sx, sy, other;
    sweep_pair(kind, &seed, &sx, &sy);
    for (int k = 0; k < PER_KIND; k++)
      sweep_pair(kind, &seed, &v[k], &other);
    diopiScalar_t exponent = scalar(sy);
    assert_int_equal(by_exponent(e->ctx, to, tv, &exponent), diopiSuccess);
    synchronize(e);
    for (int k = 0; k < PER_KIND; k++)
      expect_within_one_ulp(out[k], v[k], sy);
    for (int k = 0; k < PER_KIND; k++)
      sweep_pair(kind, &seed, &other, &v[k]);
    diopiScalar_t base = scalar(sx);
    assert_int_equal(by_base(e->ctx, to, &base, tv), diopiSuccess);
    synchronize(e);
    for (int k = 0; k < PER_KIND; k++)
      expect_within_one_ulp(out[k], sx, v[k]);
  }
  ops_made_destroy(&m);
}

/* tensor ** scalar over negative bases (and positive ones among them) for
 * odd and even integer exponents: |x|^y, its sign from y's parity. */
static void negative_bases_to_integer_powers(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  enum { N = 777 };
  const int64_t shape[1] = {N};
  float *x, *out;
  T tx =
      ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0, (void **)&x);
  T to = ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0,
                         (void **)&out);
  uint32_t seed = 777u;
  for (int k = 0; k < N; k++)
    x[k] = k % 3 == 0   ? -(float)(1 + next_bits(&seed) % 50)
           : k % 3 == 1 ? uniform(&seed, -4.0f, -0.25f)
                        : uniform(&seed, 0.25f, 4.0f);
  pow_exponent_fn fn = (pow_exponent_fn)ops_env_find(e, "diopiPow");
  const float exponents[] = {-7.0f,       -3.0f, -2.0f, -1.0f, 1.0f,
                             3.0f,        4.0f,  5.0f,  31.0f, 64.0f,
                             16777215.0f, 1e10f, -1e10f};
  for (size_t j = 0; j < sizeof exponents / sizeof *exponents; j++) {
    diopiScalar_t exponent = scalar(exponents[j]);
    assert_int_equal(fn(e->ctx, to, tx, &exponent), diopiSuccess);
    synchronize(e);
    for (int k = 0; k < N; k++)
      expect_within_one_ulp(out[k], x[k], exponents[j]);
  }
  ops_made_destroy(&m);
}

enum { ROWS = 6, COLS = 301 }; /* rows longer than a vector, odd tails */

/* x viewed transposed (strides 1, ROWS) ** y broadcast from one row, and
 * x ** y broadcast from one column (stride 0 innermost) into a transposed
 * out; every few elements special. */
static void broadcast_and_strided_operands(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int64_t shape[2] = {ROWS, COLS}, stored[2] = {COLS, ROWS};
  const int64_t row[1] = {COLS}, column[2] = {ROWS, 1};
  const int64_t transposed[2] = {1, ROWS};
  float *xs, *yr, *yc, *out, *outs;
  ops_made_tensor(&m, diopi_dtype_float32, 2, stored, NULL, 0, (void **)&xs);
  T tyr =
      ops_made_tensor(&m, diopi_dtype_float32, 1, row, NULL, 0, (void **)&yr);
  T tyc = ops_made_tensor(&m, diopi_dtype_float32, 2, column, NULL, 0,
                          (void **)&yc);
  T to = ops_made_tensor(&m, diopi_dtype_float32, 2, shape, NULL, 0,
                         (void **)&out);
  ops_made_tensor(&m, diopi_dtype_float32, 2, stored, NULL, 0, (void **)&outs);
  T tx = ops_made_view(&m, xs, diopi_dtype_float32, 2, shape, transposed);
  T tos = ops_made_view(&m, outs, diopi_dtype_float32, 2, shape, transposed);
  uint32_t seed = 301u;
  for (int k = 0; k < ROWS * COLS; k++)
    xs[k] = k % 29 == 3 ? SPECIAL[k % NSPECIAL][0] : uniform(&seed, 0.1f, 9.0f);
  for (int c = 0; c < COLS; c++)
    yr[c] =
        c % 31 == 5 ? SPECIAL[c % NSPECIAL][1] : uniform(&seed, -3.0f, 3.0f);
  for (int r = 0; r < ROWS; r++)
    yc[r] = uniform(&seed, -3.0f, 3.0f);
  yc[2] = -INFINITY;
  pow_tensors_fn fn = (pow_tensors_fn)ops_env_find(e, "diopiPowTensor");
  assert_int_equal(fn(e->ctx, to, tx, tyr), diopiSuccess);
  assert_int_equal(fn(e->ctx, tos, tx, tyc), diopiSuccess);
  synchronize(e);
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) {
      float x = xs[c * ROWS + r];
      expect_within_one_ulp(out[r * COLS + c], x, yr[c]);
      expect_within_one_ulp(outs[c * ROWS + r], x, yc[r]);
    }
  ops_made_destroy(&m);
}

/* In place, x overwritten by its result: the lanes outside the fast path
 * still see their x (special values among ordinary ones, in every form
 * that writes its input). */
static void in_place_results_keep_every_lane_right(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  enum { N = 1031 };
  const int64_t shape[1] = {N};
  float *x, *y, x0[N];
  T tx =
      ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0, (void **)&x);
  T ty =
      ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0, (void **)&y);
  uint32_t seed = 1031u;
  for (int k = 0; k < N; k++) {
    bool special = k % 13 == 4;
    x0[k] = special ? SPECIAL[k % NSPECIAL][0] : uniform(&seed, 0.2f, 5.0f);
    y[k] = special ? SPECIAL[k % NSPECIAL][1] : uniform(&seed, -2.0f, 2.0f);
  }
  memcpy(x, x0, sizeof x0);
  diopiError_t (*tensors)(CTX, T, CT) =
      (diopiError_t(*)(CTX, T, CT))ops_env_find(e, "diopiPowInpTensor");
  assert_int_equal(tensors(e->ctx, tx, ty), diopiSuccess);
  synchronize(e);
  for (int k = 0; k < N; k++)
    expect_within_one_ulp(x[k], x0[k], y[k]);

  for (int k = 0; k < N; k++) /* x ** -1.5: negatives, zeros among them */
    x0[k] = k % 13 == 4 ? SPECIAL[k % NSPECIAL][0] : uniform(&seed, 0.2f, 5.0f);
  memcpy(x, x0, sizeof x0);
  diopiError_t (*exponent)(CTX, T, const diopiScalar_t *) = (diopiError_t(*)(
      CTX, T, const diopiScalar_t *))ops_env_find(e, "diopiPowInp");
  diopiScalar_t e15 = scalar(-1.5f);
  assert_int_equal(exponent(e->ctx, tx, &e15), diopiSuccess);
  synchronize(e);
  for (int k = 0; k < N; k++)
    expect_within_one_ulp(x[k], x0[k], -1.5f);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(special_cases_of_two_tensors_match_powf,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(special_cases_with_a_scalar_match_powf,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(sweep_of_two_tensors_is_within_one_ulp,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(sweep_with_a_scalar_is_within_one_ulp,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(negative_bases_to_integer_powers,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(broadcast_and_strided_operands,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(in_place_results_keep_every_lane_right,
                                      ops_env_setup, ops_env_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
