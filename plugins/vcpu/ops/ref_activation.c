/* relu, sigmoid, tanh, silu, gelu (exact and tanh) and their backwards. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_elementwise.h"
#include "ref_error.h"
#include "ref_f32.h"

typedef diopiConstTensorHandle_t CT;

/* out = fn(input); f32_stream: the float32 loop through streaming stores
 * for outputs beyond the last-level cache (NULL: none). */
static diopiError_t unary_streamed(diopiContextHandle_t ctx, const char *op,
                                   CT out, CT input, ref_ew_fn_t fn,
                                   ref_ew_f32_fn_t f32,
                                   ref_ew_f32_fn_t f32_stream, double param) {
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 1;
  ew.fn = fn;
  ew.f32 = f32;
  ew.f32_stream = f32_stream;
  ew.params[0] = param;
  static const char *const names[1] = {"input"};
  return ref_ew_launch(ctx, op, &ew, out, &input, names);
}
static diopiError_t unary(diopiContextHandle_t ctx, const char *op, CT out,
                          CT input, ref_ew_fn_t fn, ref_ew_f32_fn_t f32,
                          double param) {
  return unary_streamed(ctx, op, out, input, fn, f32, NULL, param);
}

/* grad_input = fn(grad_output, x) where x is the forward input or output. */
static diopiError_t backward(diopiContextHandle_t ctx, const char *op,
                             CT grad_input, CT grad_output, CT x,
                             const char *x_name, ref_ew_fn_t fn,
                             ref_ew_f32_fn_t f32, double param) {
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 2;
  ew.fn = fn;
  ew.f32 = f32;
  ew.params[0] = param;
  CT in[2] = {grad_output, x};
  const char *const names[2] = {"grad_output", x_name};
  return ref_ew_launch(ctx, op, &ew, grad_input, in, names);
}

/* NaN passes through relu (it is not below 0), as in PyTorch. */
static double relu_fn(const double *x, const double *p) {
  (void)p;
  return x[0] < 0 ? 0 : x[0];
}
static int64_t relu_int(const int64_t *x, const int64_t *p) {
  (void)p;
  return x[0] < 0 ? 0 : x[0];
}
REF_ISA_BODY void relu_f32_body(float *out, const float *const *in, int64_t n,
                                const double *p) {
  (void)p;
  const float *x = in[0];
  for (int64_t i = 0; i < n; i++)
    out[i] = x[i] < 0.0f ? 0.0f : x[i];
}
REF_ISA_DISPATCH_VOID(static, relu_f32,
                      (float *out, const float *const *in, int64_t n,
                       const double *p),
                      (out, in, n, p))
static double threshold_grad_fn(const double *v, const double *p) {
  return v[1] > p[0] ? v[0] : 0;
}
static void threshold_grad_f32(float *out, const float *const *in, int64_t n,
                               const double *p) {
  const float *g = in[0], *x = in[1];
  float t = (float)p[0];
  /* g's bits under a mask of the compare (+0.0f is all zero bits): a
   * branch per element mispredicts on ReLU's half-negative inputs. */
  for (int64_t i = 0; i < n; i++) {
    uint32_t bits;
    memcpy(&bits, &g[i], sizeof bits);
    bits &= -(uint32_t)(x[i] > t);
    memcpy(&out[i], &bits, sizeof bits);
  }
}

static double sigmoid(double x) {
  return 1.0 / (1.0 + exp(-x));
}
static double sigmoid_fn(const double *x, const double *p) {
  (void)p;
  return sigmoid(x[0]);
}
static double sigmoid_grad_fn(const double *v, const double *p) {
  (void)p;
  return v[0] * v[1] * (1.0 - v[1]);
}
static double tanh_fn(const double *x, const double *p) {
  (void)p;
  return tanh(x[0]);
}
static double tanh_grad_fn(const double *v, const double *p) {
  (void)p;
  return v[0] * (1.0 - v[1] * v[1]);
}
static double silu_fn(const double *x, const double *p) {
  (void)p;
  return x[0] * sigmoid(x[0]);
}
static double silu_grad_fn(const double *v, const double *p) {
  (void)p;
  double s = sigmoid(v[1]);
  return v[0] * s * (1.0 + v[1] * (1.0 - s));
}

/* The float32 loops: sigmoid and tanh through the library's vectorizable
 * ones (sigmoid's large outputs through its streaming loop); the gradients
 * are products. */
static void sigmoid_f32(float *out, const float *const *in, int64_t n,
                        const double *p) {
  (void)p;
  ref_f32_sigmoid(out, in[0], n);
}
static void sigmoid_stream_f32(float *out, const float *const *in, int64_t n,
                               const double *p) {
  (void)p;
  ref_f32_sigmoid_stream(out, in[0], n);
}
static void tanh_f32(float *out, const float *const *in, int64_t n,
                     const double *p) {
  (void)p;
  ref_f32_tanh(out, in[0], n);
}
/* silu = x * sigmoid(x), in blocks through the sigmoid loop. Below -88.3
 * that loop's sigmoid stays at about 4.5e-39 (ref_f32.c), so x * 0 is
 * taken there instead: -0, and NaN at -inf, as PyTorch gives. */
static void silu_f32(float *out, const float *const *in, int64_t n,
                     const double *p) {
  (void)p;
  float s[256];
  for (int64_t b = 0; b < n; b += 256) {
    int64_t m = n - b < 256 ? n - b : 256;
    ref_f32_sigmoid(s, in[0] + b, m);
    for (int64_t i = 0; i < m; i++) {
      float x = in[0][b + i];
      out[b + i] = x * (x < -88.3f ? 0.0f : s[i]);
    }
  }
}
REF_ISA_BODY void sigmoid_grad_f32_body(float *out, const float *const *in,
                                        int64_t n, const double *p) {
  (void)p;
  const float *g = in[0], *y = in[1];
  for (int64_t i = 0; i < n; i++)
    out[i] = g[i] * y[i] * (1.0f - y[i]);
}
REF_F32_EW(sigmoid_grad_f32)
REF_ISA_BODY void tanh_grad_f32_body(float *out, const float *const *in,
                                     int64_t n, const double *p) {
  (void)p;
  const float *g = in[0], *y = in[1];
  for (int64_t i = 0; i < n; i++)
    out[i] = g[i] * (1.0f - y[i] * y[i]);
}
REF_F32_EW(tanh_grad_f32)

/* p[0]: 1 for the tanh approximation. */
static const double kSqrt2OverPi = 0.7978845608028654, kCoeff = 0.044715;
static double gelu_fn(const double *x, const double *p) {
  double v = x[0];
  if (p[0] != 0)
    return 0.5 * v * (1.0 + tanh(kSqrt2OverPi * (v + kCoeff * v * v * v)));
  return 0.5 * v * (1.0 + erf(v * M_SQRT1_2));
}
static double gelu_grad_fn(const double *in, const double *p) {
  double g = in[0], v = in[1];
  if (p[0] != 0) {
    double u = kSqrt2OverPi * (v + kCoeff * v * v * v);
    double t = tanh(u);
    double du = kSqrt2OverPi * (1.0 + 3.0 * kCoeff * v * v);
    return g * (0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * du);
  }
  double cdf = 0.5 * (1.0 + erf(v * M_SQRT1_2));
  double pdf = exp(-0.5 * v * v) / sqrt(2.0 * M_PI);
  return g * (cdf + v * pdf);
}

/* gelu in float: exact mode through the fused gelu of ref_f32.h, the tanh
 * mode through the vectorizable tanh; the loops around them built per ISA. */
enum { GELU_BLOCK = 256 };
REF_ISA_BODY void gelu_f32_body(float *out, const float *const *in, int64_t n,
                                const double *p) {
  if (p[0] == 0) { /* exact */
    ref_f32_gelu(out, in[0], n);
    return;
  }
  float e[GELU_BLOCK]; /* out may be in[0]: each x is read before its out */
  for (int64_t b = 0; b < n; b += GELU_BLOCK) {
    int64_t m = n - b < GELU_BLOCK ? n - b : GELU_BLOCK;
    const float *x = in[0] + b;
    for (int64_t i = 0; i < m; i++)
      e[i] = 0.79788456f * (x[i] + 0.044715f * x[i] * x[i] * x[i]);
    ref_f32_tanh(e, e, m);
    for (int64_t i = 0; i < m; i++)
      out[b + i] = 0.5f * x[i] * (1.0f + e[i]);
  }
}
REF_F32_EW(gelu_f32)

static diopiError_t gelu_mode(const char *op, const char *approximate,
                              double *tanh_mode) {
  if (!approximate || !strcmp(approximate, "none")) {
    *tanh_mode = 0;
    return diopiSuccess;
  }
  if (!strcmp(approximate, "tanh")) {
    *tanh_mode = 1;
    return diopiSuccess;
  }
  return ref_fail(op, "approximate: expected \"none\" or \"tanh\", got \"%s\"",
                  approximate);
}

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t

/* relu of an integral tensor in int64 (INT64_MAX stays). */
static diopiError_t relu(CTX, const char *op, CT out, CT input) {
  ref_ew_t ew = {.nin = 1, .fn = relu_fn, .f32 = relu_f32, .int_fn = relu_int};
  static const char *const names[1] = {"input"};
  return ref_ew_launch(ctx, op, &ew, out, &input, names);
}
REF_EXPORT diopiError_t diopiRelu(CTX, T out, CT input) {
  return relu(ctx, "diopiRelu", out, input);
}
REF_EXPORT diopiError_t diopiReluInp(CTX, T input) {
  return relu(ctx, "diopiReluInp", input, input);
}
REF_EXPORT diopiError_t diopiThresholdBackward(CTX, T grad_input,
                                               CT grad_output, CT input,
                                               const diopiScalar_t *threshold) {
  if (!threshold)
    return ref_fail("diopiThresholdBackward", "threshold: scalar is NULL");
  return backward(ctx, "diopiThresholdBackward", grad_input, grad_output, input,
                  "input", threshold_grad_fn, threshold_grad_f32,
                  ref_scalar_for(threshold, input, 0));
}
REF_EXPORT diopiError_t diopiSigmoid(CTX, T out, CT input) {
  return unary_streamed(ctx, "diopiSigmoid", out, input, sigmoid_fn,
                        sigmoid_f32, sigmoid_stream_f32, 0);
}
REF_EXPORT diopiError_t diopiSigmoidInp(CTX, T input) {
  return unary_streamed(ctx, "diopiSigmoidInp", input, input, sigmoid_fn,
                        sigmoid_f32, sigmoid_stream_f32, 0);
}
REF_EXPORT diopiError_t diopiSigmoidBackward(CTX, T grad_input, CT grad_output,
                                             CT output) {
  return backward(ctx, "diopiSigmoidBackward", grad_input, grad_output, output,
                  "output", sigmoid_grad_fn, sigmoid_grad_f32, 0);
}
REF_EXPORT diopiError_t diopiTanh(CTX, T out, CT input) {
  return unary(ctx, "diopiTanh", out, input, tanh_fn, tanh_f32, 0);
}
REF_EXPORT diopiError_t diopiTanhInp(CTX, T input) {
  return unary(ctx, "diopiTanhInp", input, input, tanh_fn, tanh_f32, 0);
}
REF_EXPORT diopiError_t diopiTanhBackward(CTX, T grad_input, CT grad_output,
                                          CT output) {
  return backward(ctx, "diopiTanhBackward", grad_input, grad_output, output,
                  "output", tanh_grad_fn, tanh_grad_f32, 0);
}
REF_EXPORT diopiError_t diopiSilu(CTX, T out, CT input) {
  return unary(ctx, "diopiSilu", out, input, silu_fn, silu_f32, 0);
}
REF_EXPORT diopiError_t diopiSiluInp(CTX, T input) {
  return unary(ctx, "diopiSiluInp", input, input, silu_fn, silu_f32, 0);
}
REF_EXPORT diopiError_t diopiSiluBackward(CTX, T grad_input, CT grad_output,
                                          CT input) {
  return backward(ctx, "diopiSiluBackward", grad_input, grad_output, input,
                  "input", silu_grad_fn, NULL, 0);
}
REF_EXPORT diopiError_t diopiGelu(CTX, T out, CT input,
                                  const char *approximate) {
  double mode = 0;
  diopiError_t err = gelu_mode("diopiGelu", approximate, &mode);
  return err ? err
             : unary(ctx, "diopiGelu", out, input, gelu_fn, gelu_f32, mode);
}
REF_EXPORT diopiError_t diopiGeluBackward(CTX, T grad_input, CT grad_output,
                                          CT input, const char *approximate) {
  double mode = 0;
  diopiError_t err = gelu_mode("diopiGeluBackward", approximate, &mode);
  return err ? err
             : backward(ctx, "diopiGeluBackward", grad_input, grad_output,
                        input, "input", gelu_grad_fn, NULL, mode);
}
