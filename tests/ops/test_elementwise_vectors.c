/* The elementwise engine's vector paths against plain loops written here:
 * float32 copies, add, sub (alpha folded in), mul and div whose outputs
 * stream their stores (CTest sets BACKPLANE_OPS_STREAM_BYTES to 4096, so
 * outputs of 1024 floats and more stream) and the ops beside them (relu and
 * clamp with NaN among their inputs), at odd lengths, into misaligned and
 * in-place outputs, beside strided and short ones that do not stream; gelu and
 * sigmoid (its output streaming too) against libm with NaN, infinities, signed
 * zeros and large arguments; exp over float32's whole range; silu and hardswish
 * far below zero; the vectorized float32 digamma against a double series; and
 * the bits loops of logical and bitwise ops on bool, uint8 and int32 views at
 * odd lengths and misaligned starts. CTest runs it once per instruction set
 * (BACKPLANE_OPS_ISA). */
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
#include "backplane/diopi/functions_backplane.h"
#include "backplane/ops.h"
#include "ops_env.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;
typedef diopiContextHandle_t CTX;

/* Long enough to stream at 4096 bytes, odd: every store loop's head, body
 * and tail run. */
enum { LONG = 5003, SHORT = 37 };

static diopiScalar_t scalar(double v) {
  return (diopiScalar_t){.stype = diopi_dtype_float64, .fval = v};
}

/* Values in [-2, 2) with some exact zeros and negative zeros. */
static void fill(float *x, int64_t n, uint32_t seed) {
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = (float)((int32_t)(seed >> 8) % 4096) / 1024.0f;
    if (i % 97 == 5)
      x[i] = -0.0f;
  }
}

/* A float32 view of n elements at data + offset, `stride` apart. */
static T view(ops_env_t *e, float *data, int64_t offset, int64_t n,
              int64_t stride) {
  T t;
  assert_int_equal(bp_ops_tensor_wrap(e->device, data + offset,
                                      diopi_dtype_float32, 1, &n, &stride, &t),
                   BP_OK);
  return t;
}

typedef enum float_op {
  ADD,
  ADD_ALPHA,
  SUB,
  MUL,
  DIV,
  NEG,
  RELU,
  CLAMP,
  COPY
} float_op_t;

static float expected(float_op_t op, float a, float b) {
  switch (op) {
  case ADD:
    return a + b;
  case ADD_ALPHA:
    return a + 2.5f * b;
  case SUB:
    return a - b;
  case MUL:
    return a * b;
  case DIV:
    return a / b;
  case NEG:
    return -a;
  case RELU:
    return a < 0.0f ? 0.0f : a;
  case CLAMP: {
    float v = a < -0.5f ? -0.5f : a;
    return v > 0.5f ? 0.5f : v;
  }
  case COPY:
    return a;
  }
  return NAN;
}

static void call(ops_env_t *e, float_op_t op, T out, T a, T b) {
  CTX ctx = e->ctx;
  diopiScalar_t one = scalar(1), alpha = scalar(2.5), lo = scalar(-0.5),
                hi = scalar(0.5);
  diopiError_t err;
  switch (op) {
  case ADD:
  case ADD_ALPHA:
  case SUB: {
    __typeof__(&diopiAdd) fn =
        ops_env_find(e, op == SUB ? "diopiSub" : "diopiAdd");
    err = fn(ctx, out, a, b, op == ADD_ALPHA ? &alpha : &one);
    break;
  }
  case MUL:
    err = ((__typeof__(&diopiMul))ops_env_find(e, "diopiMul"))(ctx, out, a, b);
    break;
  case DIV:
    err = ((__typeof__(&diopiDiv))ops_env_find(e, "diopiDiv"))(ctx, out, a, b,
                                                               RoundModeNone);
    break;
  case NEG:
    err = ((__typeof__(&diopiNeg))ops_env_find(e, "diopiNeg"))(ctx, out, a);
    break;
  case RELU:
    err = ((__typeof__(&diopiRelu))ops_env_find(e, "diopiRelu"))(ctx, out, a);
    break;
  case CLAMP:
    err = ((__typeof__(&diopiClampScalar))ops_env_find(e, "diopiClampScalar"))(
        ctx, out, a, &lo, &hi);
    break;
  default:
    err = ((__typeof__(&diopiCopyInp))ops_env_find(e, "diopiCopyInp"))(ctx, a,
                                                                       out);
  }
  assert_int_equal(err, diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* out = op(a, b) for views of n elements: out at out_offset with
 * out_stride, a at offset 3, b at offset 0; in place (out over a) when
 * in_place. Every element equals the plain loop's in every bit, and the
 * floats around out's view keep their values. */
static void check_float_op(ops_env_t *e, float_op_t op, int64_t n,
                           int64_t out_offset, int64_t out_stride,
                           bool in_place) {
  ops_made_t m = {.e = e};
  int64_t span = 3 + n * 2 + 8;
  float *a, *b, *o;
  ops_made_tensor(&m, diopi_dtype_float32, 1, &span, NULL, 0, (void **)&a);
  ops_made_tensor(&m, diopi_dtype_float32, 1, &span, NULL, 0, (void **)&b);
  ops_made_tensor(&m, diopi_dtype_float32, 1, &span, NULL, 0, (void **)&o);
  fill(a, span, 11);
  fill(b, span, 23);
  if (op == RELU || op == CLAMP) /* NaN passes through both */
    for (int64_t i = 5; i < span; i += 89)
      a[i] = NAN;
  for (int64_t i = 0; i < span; i++) {
    if (b[i] == 0.0f)
      b[i] = 0.75f; /* no division by zero */
    o[i] = 1234.5f;
  }
  float want[LONG];
  for (int64_t i = 0; i < n; i++)
    want[i] = expected(op, a[3 + i], b[i]);
  T ta = view(e, a, 3, n, 1), tb = view(e, b, 0, n, 1);
  T tout =
      in_place ? view(e, a, 3, n, 1) : view(e, o, out_offset, n, out_stride);
  call(e, op, tout, ta, tb);
  const float *got = in_place ? a + 3 : o + out_offset;
  int64_t step = in_place ? 1 : out_stride;
  for (int64_t i = 0; i < n; i++)
    if (memcmp(&got[i * step], &want[i], sizeof(float)))
      fail_msg("op %d, n %lld, offset %lld, stride %lld%s: [%lld] = %.9g, "
               "expected %.9g",
               (int)op, (long long)n, (long long)out_offset,
               (long long)out_stride, in_place ? ", in place" : "",
               (long long)i, got[i * step], want[i]);
  if (!in_place) { /* nothing written outside the view */
    for (int64_t i = 0; i < span; i++) {
      bool inside = i >= out_offset && i < out_offset + n * out_stride &&
                    (i - out_offset) % out_stride == 0;
      if (!inside && o[i] != 1234.5f)
        fail_msg("op %d: float %lld outside the output view written", (int)op,
                 (long long)i);
    }
  }
  bp_ops_tensor_destroy(ta);
  bp_ops_tensor_destroy(tb);
  bp_ops_tensor_destroy(tout);
  ops_made_destroy(&m);
}

static void float_outputs_equal_plain_loops(void **state) {
  for (float_op_t op = ADD; op <= COPY; op++) {
    check_float_op(*state, op, LONG, 0, 1, false);     /* aligned */
    check_float_op(*state, op, LONG, 1, 1, false);     /* misaligned */
    check_float_op(*state, op, LONG, 0, 1, true);      /* out is a */
    check_float_op(*state, op, SHORT, 1, 1, false);    /* below the size */
    check_float_op(*state, op, LONG / 2, 1, 2, false); /* strided */
  }
}

/* digamma in double, written independently of the library's: recurrence
 * up to 20, then the asymptotic series to the x^-14 term; negative
 * arguments by the reflection formula. */
static double psi(double x) {
  if (x == 0)
    return copysign(INFINITY, -x);
  if (x < 0)
    return x == floor(x) ? NAN : psi(1 - x) - M_PI / tan(M_PI * x);
  if (isnan(x) || isinf(x))
    return x;
  double acc = 0;
  while (x < 20) {
    acc -= 1 / x;
    x += 1;
  }
  double z = 1 / (x * x);
  double series =
      z * (1.0 / 12 -
           z * (1.0 / 120 -
                z * (1.0 / 252 -
                     z * (1.0 / 240 -
                          z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return acc + log(x) - 0.5 / x - series;
}

static void float32_digamma_follows_the_series(void **state) {
  ops_env_t *e = *state;
  enum { N = 1031 };
  float *x, *y;
  int64_t n = N;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 1, &n, (void **)&x);
  T ty = ops_env_tensor(e, diopi_dtype_float32, 1, &n, (void **)&y);
  for (int i = 0; i < N; i++) /* (0, 40] most, spaced unevenly */
    x[i] = 40.0f * (float)((i * 7919) % N + 1) / (float)N;
  const float special[] = {1e-30f, 1e-6f, 0.5f,      1.4616321f, 6.0f,
                           1e4f,   1e30f, -0.5f,     -2.25f,     -7.9f,
                           0.0f,   -0.0f, -3.0f,     INFINITY,   -INFINITY,
                           NAN,    1e-3f, 123456.7f, 3e38f};
  for (size_t i = 0; i < sizeof special / sizeof *special; i++)
    x[i * 53 + 2] = special[i];
  __typeof__(&diopiDigamma) fn = ops_env_find(e, "diopiDigamma");
  assert_int_equal(fn(e->ctx, ty, tx), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int i = 0; i < N; i++) {
    double want = psi(x[i]);
    bool same_class = isnan(want) ? isnan(y[i])
                      : isinf(want)
                          ? y[i] == (float)want
                          : fabs(y[i] - want) <= 2e-6 * fmax(1.0, fabs(want));
    if (!same_class)
      fail_msg("digamma(%.9g) = %.9g, expected %.9g", x[i], y[i], want);
  }
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ty);
}

/* gelu (exact) and sigmoid in double, from libm: gelu as x erfc(-x /
 * sqrt 2) / 2, which keeps its precision where 1 + erf(x / sqrt 2)
 * cancels. */
static double gelu_want(double x) {
  return 0.5 * x * erfc(-x * M_SQRT1_2);
}
static double sigmoid_want(double x) {
  return 1.0 / (1.0 + exp(-x));
}

/* gelu's bound (ref_f32.h: 6e-7 relative at x >= 0, 2.5e-7 absolute
 * below) and sigmoid's (float rounding of the exp; -inf and arguments below
 * -87.3 give under 1e-38, not 0); NaN, inf and the sign of zero exactly. */
static bool close_to(bool gelu, float x, float got, double want) {
  if (isnan(want) || isinf(want))
    return isnan(want) ? isnan(got) : got == (float)want;
  if (want == 0 && gelu && !isnan(x))
    return got == 0.0f && signbit(got) == signbit(x);
  double tol = gelu ? (x >= 0 ? 6e-7 * fabs(want) : 2.5e-7) + 1e-30
                    : 3e-7 * want + 1e-37;
  return fabs(got - want) <= tol;
}

/* gelu or sigmoid of a view of n elements at offset 1 of x into out at
 * out_offset, out_stride apart (in place: over x's view), the inputs spread
 * over [-12, 12] with NaN, +-inf, +-0, +-1e30, +-20, +-88.5, +-100 and
 * 1e-30 at every 61st element. */
static void check_activation(ops_env_t *e, bool gelu, int64_t n,
                             int64_t out_offset, int64_t out_stride,
                             bool in_place) {
  static const float special[] = {NAN,    INFINITY, -INFINITY, 0.0f,   -0.0f,
                                  1e30f,  -1e30f,   20.0f,     -20.0f, 88.5f,
                                  -88.5f, 100.0f,   -100.0f,   1e-30f};
  enum { SPECIALS = sizeof special / sizeof *special };
  ops_made_t m = {.e = e};
  int64_t span = 1 + n * 2 + 8;
  float *x, *o;
  ops_made_tensor(&m, diopi_dtype_float32, 1, &span, NULL, 0, (void **)&x);
  ops_made_tensor(&m, diopi_dtype_float32, 1, &span, NULL, 0, (void **)&o);
  for (int64_t i = 0; i < span; i++) {
    x[i] = -12.0f + 24.0f * (float)((i * 7919) % 1000) / 999.0f;
    if (i % 61 == 7)
      x[i] = special[(i / 61) % SPECIALS];
    o[i] = 1234.5f;
  }
  float in[LONG];
  memcpy(in, x + 1, sizeof(float) * (size_t)n);
  T tx = view(e, x, 1, n, 1);
  T tout =
      in_place ? view(e, x, 1, n, 1) : view(e, o, out_offset, n, out_stride);
  diopiError_t err =
      gelu ? ((__typeof__(&diopiGelu))ops_env_find(e, "diopiGelu"))(
                 e->ctx, tout, tx, "none")
           : ((__typeof__(&diopiSigmoid))ops_env_find(e, "diopiSigmoid"))(
                 e->ctx, tout, tx);
  assert_int_equal(err, diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  const float *got = in_place ? x + 1 : o + out_offset;
  int64_t step = in_place ? 1 : out_stride;
  for (int64_t i = 0; i < n; i++) {
    double want = gelu ? gelu_want(in[i]) : sigmoid_want(in[i]);
    if (!close_to(gelu, in[i], got[i * step], want))
      fail_msg("%s(%.9g) = %.9g, expected %.9g (n %lld, offset %lld, stride "
               "%lld%s)",
               gelu ? "gelu" : "sigmoid", in[i], got[i * step], want,
               (long long)n, (long long)out_offset, (long long)out_stride,
               in_place ? ", in place" : "");
  }
  for (int64_t i = 0; !in_place && i < span; i++) {
    bool inside = i >= out_offset && i < out_offset + n * out_stride &&
                  (i - out_offset) % out_stride == 0;
    if (!inside && o[i] != 1234.5f)
      fail_msg("float %lld outside the output view written", (long long)i);
  }
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(tout);
  ops_made_destroy(&m);
}

/* The fused gelu loop and sigmoid's (its streaming one from 1024 floats)
 * at odd lengths, aligned, misaligned, in place, short and strided. */
static void gelu_and_sigmoid_follow_libm(void **state) {
  for (int gelu = 0; gelu < 2; gelu++) {
    check_activation(*state, gelu, LONG, 0, 1, false);
    check_activation(*state, gelu, LONG, 1, 1, false);
    check_activation(*state, gelu, LONG, 0, 1, true);
    check_activation(*state, gelu, SHORT, 1, 1, false);
    check_activation(*state, gelu, LONG / 2, 1, 2, false);
  }
}

/* float32 exp over the type's whole range against libm's double exp:
 * within 2 ulp where the result is normal (1.5e-7 relative), within one
 * subnormal step (2^-149) plus 2 ulp of the value below that, infinity
 * from ln(FLT_MAX) = 88.7228391 up, exact 0 far below, NaN for NaN. The
 * arguments sweep [-110, 95] unevenly, with the boundaries and specials
 * among them, at an odd length and offset 1. */
static void exp_covers_the_whole_float_range(void **state) {
  ops_env_t *e = *state;
  static const float special[] = {NAN,     INFINITY,    -INFINITY,  0.0f,
                                  -0.0f,   88.7228f,    88.72284f,  88.7229f,
                                  89.0f,   100.0f,      -87.33654f, -87.4f,
                                  -100.0f, -103.27893f, -103.9721f, -103.98f,
                                  -104.5f, -150.0f,     1e-30f,     -1e-30f};
  enum { N = LONG, SPECIALS = sizeof special / sizeof *special };
  ops_made_t m = {.e = e};
  int64_t span = N + 1;
  float *x, *y;
  ops_made_tensor(&m, diopi_dtype_float32, 1, &span, NULL, 0, (void **)&x);
  ops_made_tensor(&m, diopi_dtype_float32, 1, &span, NULL, 0, (void **)&y);
  for (int64_t i = 0; i < span; i++)
    x[i] = -110.0f + 205.0f * (float)((i * 7919) % N) / (float)N;
  for (int i = 0; i < SPECIALS; i++)
    x[1 + i * 97] = special[i];
  T tx = view(e, x, 1, N, 1), ty = view(e, y, 1, N, 1);
  assert_int_equal(
      ((__typeof__(&diopiExp))ops_env_find(e, "diopiExp"))(e->ctx, ty, tx),
      diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int64_t i = 1; i <= N; i++) {
    double want = exp((double)x[i]);
    float got = y[i];
    bool ok;
    if (isnan(want))
      ok = isnan(got);
    else if (want > FLT_MAX)
      ok = isinf(got) && got > 0;
    else if (want < FLT_MIN)
      ok = fabs(got - want) <= 0x1p-149 + 2.4e-7 * want;
    else
      ok = fabs(got - want) <= 2.4e-7 * want;
    if (!ok)
      fail_msg("exp(%.9g) = %.9g, expected %.9g", x[i], got, want);
  }
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ty);
  ops_made_destroy(&m);
}

/* Far below zero, silu (float32) and hardswish (float64) are x times a
 * factor that reaches 0, computed as PyTorch writes them: -0 for finite x,
 * NaN for -inf (-inf * 0). */
static void silu_and_hardswish_far_below_zero(void **state) {
  ops_env_t *e = *state;
  static const float xs[] = {-3.4e38f, -1e30f, -1e20f, -200.0f, -INFINITY};
  enum { N = sizeof xs / sizeof *xs };
  int64_t n = N;
  float *x, *y;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 1, &n, (void **)&x);
  T ty = ops_env_tensor(e, diopi_dtype_float32, 1, &n, (void **)&y);
  memcpy(x, xs, sizeof xs);
  assert_int_equal(
      ((__typeof__(&diopiSilu))ops_env_find(e, "diopiSilu"))(e->ctx, ty, tx),
      diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int i = 0; i < N; i++)
    if (isinf(xs[i]) ? !isnan(y[i]) : y[i] != 0.0f || !signbit(y[i]))
      fail_msg("silu(%g) = %g, expected %s", xs[i], y[i],
               isinf(xs[i]) ? "nan" : "-0");
  static const double ds[] = {-INFINITY, -1e300, -4.0, -3.0, 3.0, 5.0};
  enum { M = sizeof ds / sizeof *ds };
  static const double want[] = {NAN, -0.0, -0.0, -0.0, 3.0, 5.0};
  int64_t m = M;
  double *dx, *dy;
  T tdx = ops_env_tensor(e, diopi_dtype_float64, 1, &m, (void **)&dx);
  T tdy = ops_env_tensor(e, diopi_dtype_float64, 1, &m, (void **)&dy);
  memcpy(dx, ds, sizeof ds);
  assert_int_equal(((__typeof__(&diopiHardswish))ops_env_find(
                       e, "diopiHardswish"))(e->ctx, tdy, tdx),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int i = 0; i < M; i++)
    if (isnan(want[i]) ? !isnan(dy[i])
                       : dy[i] != want[i] || signbit(dy[i]) != signbit(want[i]))
      fail_msg("hardswish(%g) = %g, expected %g", ds[i], dy[i], want[i]);
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ty);
  bp_ops_tensor_destroy(tdx);
  bp_ops_tensor_destroy(tdy);
}

/* Bytes pseudo-random: bools 0 or 1, other dtypes any bits. */
static void fill_bytes(uint8_t *p, int64_t n, uint32_t seed, bool boolean) {
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = boolean ? (uint8_t)((seed >> 13) & 1) : (uint8_t)(seed >> 24);
  }
}

static T raw_view(ops_env_t *e, void *data, diopiDtype_t dtype, int64_t n) {
  T t;
  assert_int_equal(bp_ops_tensor_wrap(e->device, data, dtype, 1, &n, NULL, &t),
                   BP_OK);
  return t;
}

/* and / not of `dtype` views of n elements starting one element in:
 * logical (0 or 1 results) or bitwise, each against a plain loop. */
static void check_bits(ops_env_t *e, diopiDtype_t dtype, int64_t n,
                       bool logical) {
  size_t size = bp_ops_dtype_size(dtype);
  int64_t bytes = (int64_t)size * (n + 2);
  ops_made_t m = {.e = e};
  uint8_t *a, *b, *o;
  ops_made_tensor(&m, diopi_dtype_uint8, 1, &bytes, NULL, 0, (void **)&a);
  ops_made_tensor(&m, diopi_dtype_uint8, 1, &bytes, NULL, 0, (void **)&b);
  ops_made_tensor(&m, diopi_dtype_uint8, 1, &bytes, NULL, 0, (void **)&o);
  bool boolean = dtype == diopi_dtype_bool;
  fill_bytes(a, bytes, 3, boolean);
  fill_bytes(b, bytes, 5, boolean);
  if (!boolean) /* zeros, for the logical ops */
    for (int64_t i = 0; i < bytes; i += 7 * (int64_t)size)
      memset(a + i, 0, size);
  T ta = raw_view(e, a + size, dtype, n), tb = raw_view(e, b + size, dtype, n),
    to = raw_view(e, o + size, dtype, n);
  const char *and_name = logical ? "diopiLogicalAnd" : "diopiBitwiseAnd";
  const char *not_name = logical ? "diopiLogicalNot" : "diopiBitwiseNot";
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 0)
      assert_int_equal(((__typeof__(&diopiBitwiseAnd))ops_env_find(
                           e, and_name))(e->ctx, to, ta, tb),
                       diopiSuccess);
    else
      assert_int_equal(((__typeof__(&diopiBitwiseNot))ops_env_find(
                           e, not_name))(e->ctx, to, ta),
                       diopiSuccess);
    assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
    for (int64_t i = 0; i < n; i++) {
      uint64_t x = 0, y = 0, got = 0, want;
      memcpy(&x, a + (i + 1) * size, size);
      memcpy(&y, b + (i + 1) * size, size);
      memcpy(&got, o + (i + 1) * size, size);
      if (logical || boolean)
        want = pass == 0 ? (x != 0 && y != 0) : x == 0;
      else
        want = pass == 0 ? x & y
                         : ~x & (size == 8 ? ~0ull : (1ull << (8 * size)) - 1);
      if (got != want)
        fail_msg("%s dtype %d [%lld]: %llu, expected %llu",
                 pass == 0 ? and_name : not_name, (int)dtype, (long long)i,
                 (unsigned long long)got, (unsigned long long)want);
    }
  }
  bp_ops_tensor_destroy(ta);
  bp_ops_tensor_destroy(tb);
  bp_ops_tensor_destroy(to);
  ops_made_destroy(&m);
}

static void bits_loops_equal_plain_loops(void **state) {
  const diopiDtype_t dtypes[] = {diopi_dtype_bool, diopi_dtype_uint8,
                                 diopi_dtype_int32};
  for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++)
    for (int logical = 0; logical < 2; logical++) {
      check_bits(*state, dtypes[d], 4099, logical);
      check_bits(*state, dtypes[d], 13, logical);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(float_outputs_equal_plain_loops),
      cmocka_unit_test(float32_digamma_follows_the_series),
      cmocka_unit_test(gelu_and_sigmoid_follow_libm),
      cmocka_unit_test(exp_covers_the_whole_float_range),
      cmocka_unit_test(silu_and_hardswish_far_below_zero),
      cmocka_unit_test(bits_loops_equal_plain_loops),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
