/* More elementwise ops of one tensor and their backwards: round (half to
 * even), trunc, frac, lgamma, erfc, square, isinf, mish, elu, softplus,
 * hardsigmoid, log_sigmoid and nan_to_num (PyTorch's definitions; the gradient
 * at a kink is the one PyTorch takes). Inputs broadcast to out; any strides.
 * Where DIOPI 1.0 has no prototype (round, trunc, frac, lgamma, erfc, square,
 * mish, log_sigmoid, nan_to_num), the ops follow its conventions; elu's
 * backward takes input_is_result as diopiLeakyReluBackward does. */
#include <string.h>
#include <tgmath.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t
#define S const diopiScalar_t *

/* lgamma without the global sign (glibc's lgamma writes signgam, a race
 * between the library's workers). */
static double lgamma_of(double x) {
  int sign;
  return lgamma_r(x, &sign);
}
static float lgammaf_of(float x) {
  int sign;
  return lgammaf_r(x, &sign);
}

REF_UNARY(round, rint(x)) /* the default mode: half to even */
REF_UNARY(trunc, trunc(x))
REF_UNARY(frac, x - trunc(x))
REF_UNARY(erfc, erfc(x))
REF_UNARY(square, x *x)
REF_UNARY(isinf, isinf(x) ? 1 : 0)
/* mish: x * tanh(softplus(x)); softplus as PyTorch's (linear above 20). */
REF_UNARY(mish, x *tanh(x > 20 ? x : log1p(exp(x))))
/* hardsigmoid: relu6(x + 3) / 6. */
REF_UNARY(hardsigmoid, x <= -3 ? 0 : x >= 3 ? 1 : x / 6 + 0.5)
/* elu: p = {alpha, scale, input_scale}. */
REF_UNARY(elu, x > 0 ? p[1] * x : p[1] * p[0] * (exp(x * p[2]) - 1))
/* softplus: p = {beta, threshold}; linear where beta * x > threshold. */
REF_UNARY(softplus, x *p[0] > p[1] ? x : log1p(exp(x * p[0])) / p[0])
/* log_sigmoid: log(1 / (1 + exp(-x))) as PyTorch's CPU computes it, without
 * overflow either side: min(x, 0) - log1p(exp(-|x|)). */
REF_UNARY(log_sigmoid, (x < 0 ? x : 0) - log1p(exp(-fabs(x))))
/* nan_to_num: p = {nan, posinf, neginf}, what replaces each. */
REF_UNARY(nan_to_num, isnan(x) ? p[0] : isinf(x) ? (x > 0 ? p[1] : p[2]) : x)

static double lgamma_fn(const double *in, const double *p) {
  (void)p;
  return lgamma_of(in[0]);
}
static void lgamma_f32(float *out, const float *const *in, int64_t n,
                       const double *p) {
  (void)p;
  for (int64_t i = 0; i < n; i++)
    out[i] = lgammaf_of(in[0][i]);
}

/* Backwards: in = {grad_output, input (or result)}. */
static double mish_grad_fn(const double *in, const double *p) {
  (void)p;
  double g = in[0], x = in[1];
  double sig = 1 / (1 + exp(-x));
  double t = tanh(x > 20 ? x : log1p(exp(x)));
  return g * (t + x * sig * (1 - t * t));
}
static double hardsigmoid_grad_fn(const double *in, const double *p) {
  (void)p;
  return in[1] > -3 && in[1] < 3 ? in[0] / 6 : 0;
}
/* p = {alpha, scale, input_scale, input_is_result}. */
static double elu_grad_fn(const double *in, const double *p) {
  double g = in[0], v = in[1];
  if (p[3] != 0) /* v is the result */
    return v <= 0 ? g * p[2] * (v + p[1] * p[0]) : g * p[1];
  return v <= 0 ? g * p[2] * p[1] * p[0] * exp(v * p[2]) : g * p[1];
}
/* PyTorch's CPU log_sigmoid_backward. */
static double log_sigmoid_grad_fn(const double *in, const double *p) {
  (void)p;
  double g = in[0], x = in[1], z = exp(-fabs(x));
  return x < 0 ? g * (1 - z / (1 + z)) : g * z / (1 + z);
}
static double softplus_grad_fn(const double *in, const double *p) {
  double g = in[0], x = in[1], z = exp(x * p[0]);
  return x * p[0] > p[1] ? g : g * z / (z + 1);
}

/* square of an integer wraps as the dtype's multiplication does; round and
 * trunc of an integer are the integer (ref_copy_int). */
static int64_t square_int(const int64_t *in, const int64_t *p) {
  (void)p;
  return (int64_t)((uint64_t)in[0] * (uint64_t)in[0]);
}

/* int_fn: the op's integer form (NULL: none). */
static diopiError_t forward_exact(CTX, const char *op, CT out, CT input,
                                  ref_ew_fn_t fn, ref_ew_f32_fn_t f32,
                                  ref_ew_int_fn_t int_fn, const double *params,
                                  ref_out_kind_t kind) {
  static const char *const names[1] = {"input"};
  ref_ew_t ew = {.nin = 1, .fn = fn, .f32 = f32, .int_fn = int_fn};
  if (params)
    memcpy(ew.params, params, sizeof ew.params);
  return ref_ew_call_with(ctx, op, &ew, out, &input, names, kind);
}
static diopiError_t forward(CTX, const char *op, CT out, CT input,
                            ref_ew_fn_t fn, ref_ew_f32_fn_t f32,
                            const double *params, ref_out_kind_t kind) {
  return forward_exact(ctx, op, out, input, fn, f32, NULL, params, kind);
}
/* grad_input = fn(grad_output, input). */
static diopiError_t backward(CTX, const char *op, CT grad_input, CT grad_output,
                             CT input, ref_ew_fn_t fn, const double *params) {
  CT in[2] = {grad_output, input};
  static const char *const names[2] = {"grad_output", "input"};
  return ref_ew_call(ctx, op, grad_input, 2, in, names, fn, NULL, params,
                     REF_OUT_FLOATING);
}

/* diopiName(out, input) and diopiNameInp(input); int_fn as forward_exact's. */
#define REF_EXPORT_EXTRA_UNARY(Name, name, int_fn, kind)                       \
  REF_EXPORT diopiError_t diopi##Name(CTX, T out, CT input) {                  \
    return forward_exact(ctx, "diopi" #Name, out, input, name##_fn,            \
                         name##_f32, int_fn, NULL, kind);                      \
  }                                                                            \
  REF_EXPORT diopiError_t diopi##Name##Inp(CTX, T input) {                     \
    return forward_exact(ctx, "diopi" #Name "Inp", input, input, name##_fn,    \
                         name##_f32, int_fn, NULL, kind);                      \
  }

REF_EXPORT_EXTRA_UNARY(Round, round, ref_copy_int, REF_OUT_NUMERIC)
REF_EXPORT_EXTRA_UNARY(Trunc, trunc, ref_copy_int, REF_OUT_NUMERIC)
REF_EXPORT_EXTRA_UNARY(Frac, frac, NULL, REF_OUT_FLOATING)
REF_EXPORT_EXTRA_UNARY(Lgamma, lgamma, NULL, REF_OUT_FLOATING)
REF_EXPORT_EXTRA_UNARY(Erfc, erfc, NULL, REF_OUT_FLOATING)
REF_EXPORT_EXTRA_UNARY(Square, square, square_int, REF_OUT_NUMERIC)
REF_EXPORT_EXTRA_UNARY(Mish, mish, NULL, REF_OUT_FLOATING)
REF_EXPORT_EXTRA_UNARY(Hardsigmoid, hardsigmoid, NULL, REF_OUT_FLOATING)
REF_EXPORT_EXTRA_UNARY(LogSigmoid, log_sigmoid, NULL, REF_OUT_FLOATING)

/* isinf has no in-place form: its result is bool. */
REF_EXPORT diopiError_t diopiIsInf(CTX, T out, CT input) {
  return forward(ctx, "diopiIsInf", out, input, isinf_fn, isinf_f32, NULL,
                 REF_OUT_ANY);
}

REF_EXPORT diopiError_t diopiMishBackward(CTX, T grad_input, CT grad_output,
                                          CT input) {
  return backward(ctx, "diopiMishBackward", grad_input, grad_output, input,
                  mish_grad_fn, NULL);
}
REF_EXPORT diopiError_t diopiHardsigmoidBackward(CTX, T grad_input,
                                                 CT grad_output, CT input) {
  return backward(ctx, "diopiHardsigmoidBackward", grad_input, grad_output,
                  input, hardsigmoid_grad_fn, NULL);
}

REF_EXPORT diopiError_t diopiLogSigmoidBackward(CTX, T grad_input,
                                                CT grad_output, CT input) {
  return backward(ctx, "diopiLogSigmoidBackward", grad_input, grad_output,
                  input, log_sigmoid_grad_fn, NULL);
}

/* The non-NULL scalars `names[i]` of `op` into p[i]. */
static diopiError_t scalars(const char *op, int count, const char *const *names,
                            S *values, double *p) {
  for (int i = 0; i < count; i++) {
    if (!values[i])
      return ref_fail(op, "%s: scalar is NULL", names[i]);
    p[i] = ref_scalar(values[i], 0);
  }
  return diopiSuccess;
}

static const char *const elu_names[3] = {"alpha", "scale", "input_scale"};
REF_EXPORT diopiError_t diopiElu(CTX, T out, CT input, S alpha, S scale,
                                 S input_scale) {
  double p[4] = {0};
  S v[3] = {alpha, scale, input_scale};
  diopiError_t err = scalars("diopiElu", 3, elu_names, v, p);
  return err ? err
             : forward(ctx, "diopiElu", out, input, elu_fn, elu_f32, p,
                       REF_OUT_FLOATING);
}
REF_EXPORT diopiError_t diopiEluInp(CTX, T input, S alpha, S scale,
                                    S input_scale) {
  double p[4] = {0};
  S v[3] = {alpha, scale, input_scale};
  diopiError_t err = scalars("diopiEluInp", 3, elu_names, v, p);
  return err ? err
             : forward(ctx, "diopiEluInp", input, input, elu_fn, elu_f32, p,
                       REF_OUT_FLOATING);
}
/* With input_is_result, `input` is the forward output, which PyTorch
 * allows only for alpha >= 0. */
REF_EXPORT diopiError_t diopiEluBackward(CTX, T grad_input, CT grad_output,
                                         CT input, S alpha, S scale,
                                         S input_scale, bool input_is_result) {
  const char *op = "diopiEluBackward";
  double p[4] = {0};
  S v[3] = {alpha, scale, input_scale};
  diopiError_t err = scalars(op, 3, elu_names, v, p);
  if (!err && input_is_result && p[0] < 0)
    err = ref_fail(op, "alpha: %g must be >= 0 when the input is the result",
                   p[0]);
  p[3] = input_is_result;
  return err ? err
             : backward(ctx, op, grad_input, grad_output, input, elu_grad_fn,
                        p);
}

static const char *const softplus_names[2] = {"beta", "threshold"};
REF_EXPORT diopiError_t diopiSoftplus(CTX, T out, CT input, S beta,
                                      S threshold) {
  double p[4] = {0};
  S v[2] = {beta, threshold};
  diopiError_t err = scalars("diopiSoftplus", 2, softplus_names, v, p);
  if (!err && p[0] == 0)
    err = ref_fail("diopiSoftplus", "beta: expected nonzero, got 0");
  return err ? err
             : forward(ctx, "diopiSoftplus", out, input, softplus_fn,
                       softplus_f32, p, REF_OUT_FLOATING);
}
REF_EXPORT diopiError_t diopiSoftplusBackward(CTX, T grad_input, CT grad_output,
                                              CT input, S beta, S threshold) {
  const char *op = "diopiSoftplusBackward";
  double p[4] = {0};
  S v[2] = {beta, threshold};
  diopiError_t err = scalars(op, 2, softplus_names, v, p);
  return err ? err
             : backward(ctx, op, grad_input, grad_output, input,
                        softplus_grad_fn, p);
}

/* An integral input is copied (it holds no NaN or infinity). */
static const char *const nan_to_num_names[3] = {"nan", "posinf", "neginf"};
static diopiError_t nan_to_num(CTX, const char *op, CT out, CT input, S nan,
                               S posinf, S neginf) {
  double p[4] = {0};
  S v[3] = {nan, posinf, neginf};
  diopiError_t err = scalars(op, 3, nan_to_num_names, v, p);
  return err ? err
             : forward_exact(ctx, op, out, input, nan_to_num_fn, nan_to_num_f32,
                             ref_copy_int, p, REF_OUT_ANY);
}
REF_EXPORT diopiError_t diopiNanToNum(CTX, T out, CT input, S nan, S posinf,
                                      S neginf) {
  return nan_to_num(ctx, "diopiNanToNum", out, input, nan, posinf, neginf);
}
REF_EXPORT diopiError_t diopiNanToNumInp(CTX, T input, S nan, S posinf,
                                         S neginf) {
  return nan_to_num(ctx, "diopiNanToNumInp", input, input, nan, posinf, neginf);
}
