/* Building blocks of the float32 fast paths (contiguous float32 tensors):
 * the test that a view qualifies, and row sums whose float SIMD lanes are
 * folded into a double total every REF_F32_BLOCK elements, so that long rows
 * keep double-like accuracy while the inner loops vectorize, and an exp
 * that vectorizes. Pure functions: thread-safe. */
#ifndef BACKPLANE_REF_OPS_F32_H_
#define BACKPLANE_REF_OPS_F32_H_

#include <stdbool.h>
#include <stdint.h>

#include "ref_isa.h" /* REF_ISA_BODY, REF_ISA_DISPATCH: the loops' builds */
#include "ref_tensor.h"

enum { REF_F32_BLOCK = 256 };

/* The loader-chosen alternative to REF_ISA_DISPATCH: the loop built for
 * AVX-512, AVX2 with FMA and SSE2, the best the CPU runs picked at load
 * time (GNU ifunc), deaf to BACKPLANE_OPS_ISA. For loops outside `bench
 * ops`; put it before such a function. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
#define REF_F32_CLONES                                                         \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define REF_F32_CLONES
#endif

/* Defines `static void name(out, in, n, p)`, an elementwise engine float32
 * loop (ref_ew_f32_fn_t), from name_body written with REF_ISA_BODY: one build
 * per ISA, dispatched on ref_isa(). */
#define REF_F32_EW(name)                                                       \
  REF_ISA_DISPATCH_VOID(                                                       \
      static, name,                                                            \
      (float *out, const float *const *in, int64_t n, const double *p),        \
      (out, in, n, p))

/* name_fn (the engine's double loop) and name_f32 (its float32 loop)
 * computing `expr` of the element x (and the op's attributes p[]). */
#define REF_UNARY(name, expr)                                                  \
  static double name##_fn(const double *in, const double *p) {                 \
    (void)p;                                                                   \
    double x = in[0];                                                          \
    return (expr);                                                             \
  }                                                                            \
  REF_ISA_BODY void name##_f32_body(float *out, const float *const *in,        \
                                    int64_t n, const double *p) {              \
    (void)p;                                                                   \
    const float *src = in[0];                                                  \
    for (int64_t i = 0; i < n; i++) {                                          \
      float x = src[i];                                                        \
      out[i] = (float)(expr);                                                  \
    }                                                                          \
  }                                                                            \
  REF_F32_EW(name##_f32)

/* name_f32 (out = fn(in[0], in[1])) and name_scalar_f32 (out = fn(in[0],
 * p[0] as float)), the float32 loops of a binary op with a tensor or a
 * scalar other, from the float function `fn` (copysignf, fmodf). */
#define REF_BINARY_F32(name, fn)                                               \
  REF_ISA_BODY void name##_f32_body(float *out, const float *const *in,        \
                                    int64_t n, const double *p) {              \
    (void)p;                                                                   \
    const float *a = in[0], *b = in[1];                                        \
    for (int64_t i = 0; i < n; i++)                                            \
      out[i] = fn(a[i], b[i]);                                                 \
  }                                                                            \
  REF_F32_EW(name##_f32)                                                       \
  REF_ISA_BODY void name##_scalar_f32_body(float *out, const float *const *in, \
                                           int64_t n, const double *p) {       \
    const float *a = in[0];                                                    \
    float b = (float)p[0];                                                     \
    for (int64_t i = 0; i < n; i++)                                            \
      out[i] = fn(a[i], b);                                                    \
  }                                                                            \
  REF_F32_EW(name##_scalar_f32)

/* float32 and contiguous (row-major, any size-1 strides). */
bool ref_f32_contiguous(const ref_view_t *v);

/* sum(x[k]) over n elements (ref_f32_rows.c, as are ref_f32_prod,
 * ref_f32_max, ref_f32_best and ref_f32_abs_extreme). */
double ref_f32_sum(const float *x, int64_t n);
/* prod(x[k]): pairs of elements multiplied in float (PyTorch multiplies
 * every element in float), the pairs' products in double; 1 for n = 0. */
double ref_f32_prod(const float *x, int64_t n);
/* sum((x[k] - center)^2). */
double ref_f32_sum_sq_dev(const float *x, int64_t n, float center);
/* sum(|x[k]|). */
double ref_f32_abs_sum(const float *x, int64_t n);
/* max(|x[k]|), NaN if any x[k] is NaN; 0 for n = 0. */
float ref_f32_abs_max(const float *x, int64_t n);
/* sum(a[k] * b[k]). */
double ref_f32_dot(const float *a, const float *b, int64_t n);
/* max(x[k]) (NaNs skipped; -INFINITY for n = 0). */
float ref_f32_max(const float *x, int64_t n);
/* The max (sign > 0) or min (sign < 0) of x[0, n), n >= 1, as PyTorch
 * picks it: a NaN wins at its first position, of equal values the first;
 * its position into *index (NULL: not wanted; a zero's sign may then be
 * either's). */
float ref_f32_best(const float *x, int64_t n, int sign, int64_t *index);
/* The max (sign > 0) or min (sign < 0) of |x[k]| over n >= 1 elements, NaN
 * if any x[k] is NaN. */
float ref_f32_abs_extreme(const float *x, int64_t n, int sign);
/* y[k] = exp(x[k] - shift), vectorizable, over float32's whole range:
 * within 1e-7 relative of exp for normal results, subnormal ones down to
 * about -103.97 (then 0), infinity from ln(FLT_MAX) up, NaN for NaN.
 * y may be x. */
void ref_f32_exp(float *y, const float *x, int64_t n, float shift);

/* y[k] = log(x[k]), vectorizable: within 2 ulp of logf; NaN below 0,
 * -inf at 0, inf at inf. y may be x. */
void ref_f32_log(float *y, const float *x, int64_t n);
/* y[k] = erf(x[k]), vectorizable: a Taylor series below |x| 0.5, above it
 * Abramowitz and Stegun's 7.1.26 (1.5e-7) on the vectorizable exp: within
 * 3e-7 absolute of erf; +-1 at +-inf, NaN for NaN. y may be x. */
void ref_f32_erf(float *y, const float *x, int64_t n);
/* y[k] = x[k] / 2 (1 + erf(x[k] / sqrt(2))) (exact gelu): x Phi(x) with
 * Phi's tail by Abramowitz and Stegun's 7.1.26 on the vectorizable exp:
 * within 6e-7 relative for x >= 0, 2.5e-7 absolute below; inf at inf, NaN
 * at -inf (-inf times 0, as the formula gives) and for NaN. y may be x. */
void ref_f32_gelu(float *y, const float *x, int64_t n);
/* y[k] = 1 / (1 + exp(-x[k])), through the vectorizable exp. y may be x. */
void ref_f32_sigmoid(float *y, const float *x, int64_t n);
/* ref_f32_sigmoid through streaming stores (ref_stream.h) from y's first
 * 64-byte boundary to its last: the caller calls ref_stream_fence() before
 * another thread reads y. */
void ref_f32_sigmoid_stream(float *y, const float *x, int64_t n);
/* y[k] = tanh(x[k]), vectorizable: within 4e-7 absolute of tanhf. */
void ref_f32_tanh(float *y, const float *x, int64_t n);

/* y[k] = sin(x[k] + phase * pi / 2) for phase 0 (sin) or 1 (cos),
 * vectorizable for |x| <= 8192 (within 2e-7 absolute of libm's), libm's
 * sinf/cosf beyond and for non-finite values. y may be x. */
void ref_f32_sincos(float *y, const float *x, int64_t n, int phase);

#endif /* BACKPLANE_REF_OPS_F32_H_ */
