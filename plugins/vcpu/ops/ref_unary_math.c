/* Elementwise math of one tensor: exp, expm1, log, log2, log10, log1p,
 * sqrt, rsqrt, erf, erfinv, sin, cos, tan, asin, acos, atan, sinh, cosh,
 * asinh, acosh, atanh, reciprocal (floating results), neg, abs, floor,
 * ceil (any numeric dtype), and sign, sgn (bool too),
 * each with its in-place form where DIOPI has one. Every op is one
 * expression, written once for both the double path and the float32 loop
 * (tgmath picks the float or double function by the argument's type). */
#include <string.h>
#include <tgmath.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* erfinv: Winitzki's closed-form estimate refined by Newton steps on erf
 * (d/dx erf(x) = 2 / sqrt(pi) exp(-x^2)); +-1 give +-inf. */
static double erfinv_of(double y) {
  if (!(y > -1 && y < 1))
    return y == 1 ? INFINITY : y == -1 ? -INFINITY : NAN;
  const double a = 0.147, two_over_pi_a = 2 / (M_PI * a);
  double l = log((1 - y) * (1 + y)), b = two_over_pi_a + l / 2;
  double x = copysign(sqrt(sqrt(b * b - l / a) - b), y);
  for (int k = 0; k < 3; k++)
    x -= (erf(x) - y) / (1.1283791670955126 * exp(-x * x));
  return x;
}

REF_UNARY(expm1, expm1(x))
REF_UNARY(sqrt, sqrt(x))
REF_UNARY(rsqrt, 1 / sqrt(x))
REF_UNARY(erfinv, erfinv_of(x))
REF_UNARY(asin, asin(x))
REF_UNARY(acos, acos(x))
REF_UNARY(asinh, asinh(x))
REF_UNARY(acosh, acosh(x))
REF_UNARY(atanh, atanh(x))
REF_UNARY(tan, tan(x))
REF_UNARY(atan, atan(x))
REF_UNARY(sinh, sinh(x))
REF_UNARY(cosh, cosh(x))
REF_UNARY(reciprocal, 1 / x)
REF_UNARY(neg, -x)
REF_UNARY(abs, fabs(x))
REF_UNARY(sign, (x > 0) - (x < 0)) /* NaN: 0, as PyTorch */
REF_UNARY(floor, floor(x))
REF_UNARY(ceil, ceil(x))

/* exp: the float32 loop is the library's vectorized exp. */
static double exp_fn(const double *in, const double *p) {
  (void)p;
  return exp(in[0]);
}
static void exp_f32(float *out, const float *const *in, int64_t n,
                    const double *p) {
  (void)p;
  ref_f32_exp(out, in[0], n, 0.0f);
}

/* erf: the float32 loop is the library's vectorizable erf. */
static double erf_fn(const double *in, const double *p) {
  (void)p;
  return erf(in[0]);
}
static void erf_f32(float *out, const float *const *in, int64_t n,
                    const double *p) {
  (void)p;
  ref_f32_erf(out, in[0], n);
}

/* sin and cos: float32 loops through the library's vectorizable pair. */
static double sin_fn(const double *in, const double *p) {
  (void)p;
  return sin(in[0]);
}
static double cos_fn(const double *in, const double *p) {
  (void)p;
  return cos(in[0]);
}
static void sin_f32(float *out, const float *const *in, int64_t n,
                    const double *p) {
  (void)p;
  ref_f32_sincos(out, in[0], n, 0);
}
static void cos_f32(float *out, const float *const *in, int64_t n,
                    const double *p) {
  (void)p;
  ref_f32_sincos(out, in[0], n, 1);
}

/* The logarithms: float32 loops through the library's vectorizable log
 * (log2 and log10 scale it; log1p corrects log(1 + x) by x / ((1 + x) - 1),
 * exact for the rounding of 1 + x). */
static double log_fn(const double *in, const double *p) {
  (void)p;
  return log(in[0]);
}
static double log2_fn(const double *in, const double *p) {
  (void)p;
  return log2(in[0]);
}
static double log10_fn(const double *in, const double *p) {
  (void)p;
  return log10(in[0]);
}
static double log1p_fn(const double *in, const double *p) {
  (void)p;
  return log1p(in[0]);
}
static void log_f32(float *out, const float *const *in, int64_t n,
                    const double *p) {
  (void)p;
  ref_f32_log(out, in[0], n);
}
REF_ISA_BODY void scale_body(float *restrict out, int64_t n, float by) {
  for (int64_t i = 0; i < n; i++)
    out[i] *= by;
}
REF_ISA_DISPATCH_VOID(static, scale, (float *restrict out, int64_t n, float by),
                      (out, n, by))
static void log2_f32(float *out, const float *const *in, int64_t n,
                     const double *p) {
  (void)p;
  ref_f32_log(out, in[0], n);
  scale(out, n, 1.44269504f);
}
static void log10_f32(float *out, const float *const *in, int64_t n,
                      const double *p) {
  (void)p;
  ref_f32_log(out, in[0], n);
  scale(out, n, 0.434294482f);
}
REF_ISA_BODY void log1p_fix_body(float *out, const float *x, const float *u,
                                 int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float d = u[i] - 1.0f;
    out[i] = d == 0.0f ? x[i] : u[i] == INFINITY ? out[i] : out[i] * (x[i] / d);
  }
}
REF_ISA_DISPATCH_VOID(static, log1p_fix,
                      (float *out, const float *x, const float *u, int64_t n),
                      (out, x, u, n))
static void log1p_f32(float *out, const float *const *in, int64_t n,
                      const double *p) {
  (void)p;
  float x[256], u[256]; /* out may be in[0] */
  for (int64_t b = 0; b < n; b += 256) {
    int64_t m = n - b < 256 ? n - b : 256;
    for (int64_t i = 0; i < m; i++) {
      x[i] = in[0][b + i];
      u[i] = 1.0f + x[i];
    }
    ref_f32_log(out + b, u, m);
    log1p_fix(out + b, x, u, m);
  }
}

/* The integer forms (exact in int64, wrapping as the dtype does: the
 * negation and abs of INT64_MIN are INT64_MIN, as PyTorch's); floor and
 * ceil of an integer are the integer (ref_copy_int). */
static int64_t neg_int(const int64_t *in, const int64_t *p) {
  (void)p;
  return (int64_t)(0 - (uint64_t)in[0]);
}
static int64_t abs_int(const int64_t *in, const int64_t *p) {
  return in[0] < 0 ? neg_int(in, p) : in[0];
}
static int64_t sign_int(const int64_t *in, const int64_t *p) {
  (void)p;
  return (in[0] > 0) - (in[0] < 0);
}

static diopiError_t unary(CTX, const char *op, CT out, CT input, ref_ew_fn_t fn,
                          ref_ew_f32_fn_t f32, ref_ew_int_fn_t int_fn,
                          ref_out_kind_t kind) {
  static const char *const names[1] = {"input"};
  ref_ew_t ew = {.nin = 1, .fn = fn, .f32 = f32, .int_fn = int_fn};
  return ref_ew_call_with(ctx, op, &ew, out, &input, names, kind);
}

/* diopiName(out, input) and diopiNameInp(input); int_fn: the integer form
 * (NULL: none, the result is floating). */
#define REF_EXPORT_UNARY(Name, name, int_fn, kind)                             \
  REF_EXPORT diopiError_t diopi##Name(CTX, T out, CT input) {                  \
    return unary(ctx, "diopi" #Name, out, input, name##_fn, name##_f32,        \
                 int_fn, kind);                                                \
  }                                                                            \
  REF_EXPORT diopiError_t diopi##Name##Inp(CTX, T input) {                     \
    return unary(ctx, "diopi" #Name "Inp", input, input, name##_fn,            \
                 name##_f32, int_fn, kind);                                    \
  }

REF_EXPORT_UNARY(Exp, exp, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Expm1, expm1, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Log, log, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Log2, log2, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Log10, log10, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Log1p, log1p, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Sqrt, sqrt, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Rsqrt, rsqrt, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Erf, erf, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Erfinv, erfinv, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Asin, asin, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Acos, acos, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Asinh, asinh, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Acosh, acosh, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Atanh, atanh, NULL, REF_OUT_FLOATING)
/* sgn of a real is its sign; of bool, bool (PyTorch: true stays true). */
REF_EXPORT_UNARY(Sgn, sign, sign_int, REF_OUT_ANY)
REF_EXPORT_UNARY(Sin, sin, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Cos, cos, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Tan, tan, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Atan, atan, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Sinh, sinh, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Cosh, cosh, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Reciprocal, reciprocal, NULL, REF_OUT_FLOATING)
REF_EXPORT_UNARY(Neg, neg, neg_int, REF_OUT_NUMERIC)
REF_EXPORT_UNARY(Abs, abs, abs_int, REF_OUT_NUMERIC)
REF_EXPORT_UNARY(Floor, floor, ref_copy_int, REF_OUT_NUMERIC)
REF_EXPORT_UNARY(Ceil, ceil, ref_copy_int, REF_OUT_NUMERIC)

/* sign has no in-place form in DIOPI; bool into bool as sgn. */
REF_EXPORT diopiError_t diopiSign(CTX, T out, CT input) {
  return unary(ctx, "diopiSign", out, input, sign_fn, sign_f32, sign_int,
               REF_OUT_ANY);
}
