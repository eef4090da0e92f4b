/* The float32 loops of pow, vectorized: x^y = 2^(y log2 x) computed in
 * double per lane (8 lanes a vector under AVX-512, 4 under AVX2), within
 * 1 ulp of the correctly rounded float like libm's powf. The SSE2 build
 * calls powf: two lanes without FMA ran at 0.6x its speed.
 *
 * A lane is fast when x is a normal float, positive (or, in tensor **
 * scalar, negative with an integer y), and |y log2 |x|| < 1022: double holds
 * 2^(y log2 |x|) there, and its one rounding to float gives overflow to
 * infinity, subnormal results and underflow to zero. Every other lane (x zero,
 * subnormal, inf or NaN; x < 0 with a non-integer y; y inf or NaN; |y log2 |x||
 * >= 1022) gets powf's own answer, C's special cases and all, from a scalar
 * pass over the chunks that hold such lanes. */
#include "ref_pow_f32.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "ref_isa.h"

/* The elements whose fast results wait in a buffer before they are stored:
 * in place, x must outlive the vector pass for the fix-up. */
enum { CHUNK = 256 };

/* x^y for a fast lane (above), NaN for any other: the fix-up's sign. With
 * `negative_x` (a constant once inlined) a negative x with an integer y is
 * fast too: |x|^y, negated for an odd y; without, it is not, and the loop
 * spends nothing on y's integer tests.
 *
 * log2 |x| = e + log2 m, |x| = m 2^e with m in [sqrt(1/2), sqrt(2)) (from
 * x's bits less sqrt(1/2)'s: e in the exponent field, which an arithmetic
 * shift keeps signed); log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <=
 * 0.172: the series to s^15 (relative error 2^-44). 2^t = 2^n 2^f with n
 * the integer nearest t (adding 1.5 * 2^52 rounds t to it and leaves it in
 * the low bits), f in [-1/2, 1/2]: exp(f ln 2) by its Taylor series to
 * degree 10 (relative error 2^-42); 2^n built in the exponent bits. */
static inline __attribute__((always_inline)) float pow_lane(float x, float y,
                                                            bool negative_x) {
  float ax = negative_x ? fabsf(x) : x; /* else x < 0 is not fast below */
  uint32_t bits, m_bits;
  memcpy(&bits, &ax, sizeof bits);
  uint32_t off = bits - 0x3f3504f3u; /* sqrt(1/2)'s bits */
  int32_t e = (int32_t)off >> 23;
  m_bits = bits - (off & 0xff800000u);
  float m;
  memcpy(&m, &m_bits, sizeof m);
  double md = m;
  double s = (md - 1.0) / (md + 1.0), s2 = s * s;
  double s4 = s2 * s2, s8 = s4 * s4;
  double p = (1.0 + 1.0 / 3 * s2) + (1.0 / 5 + 1.0 / 7 * s2) * s4 +
             ((1.0 / 9 + 1.0 / 11 * s2) + (1.0 / 13 + 1.0 / 15 * s2) * s4) * s8;
  const double two_over_ln2 = 2.8853900817779268; /* 2 / ln 2 */
  double t = (double)y * (s * p * two_over_ln2 + (double)e);

  const double round_magic = 0x1.8p52;
  double shifted = t + round_magic;
  double f = t - (shifted - round_magic);
  const double c1 = 0.69314718055994531, c2 = c1 * c1 / 2, c3 = c2 * c1 / 3,
               c4 = c3 * c1 / 4, c5 = c4 * c1 / 5, c6 = c5 * c1 / 6,
               c7 = c6 * c1 / 7, c8 = c7 * c1 / 8, c9 = c8 * c1 / 9,
               c10 = c9 * c1 / 10; /* (ln 2)^i / i! */
  double f2 = f * f, f4 = f2 * f2, f8 = f4 * f4;
  double q = (1.0 + c1 * f) + (c2 + c3 * f) * f2 +
             ((c4 + c5 * f) + (c6 + c7 * f) * f2) * f4 +
             ((c8 + c9 * f) + c10 * f2) * f8;
  uint64_t n_bits, scale_bits;
  memcpy(&n_bits, &shifted, sizeof n_bits);
  scale_bits = (n_bits + 1023u) << 52;
  double scale;
  memcpy(&scale, &scale_bits, sizeof scale);
  bool fast = (ax >= 0x1p-126f) & (ax < INFINITY) & (fabs(t) < 1022.0);
  float r = (float)(q * scale);
  if (negative_x) {
    float half = 0.5f * y; /* y odd: y an integer, y / 2 not */
    bool integral = y == truncf(y), odd = integral & (half != truncf(half));
    fast &= (x > 0.0f) | integral;
    r = ((x < 0.0f) & odd) ? -r : r;
  }
  return fast ? r : NAN;
}

/* out[i] = x[i * x_step] ^ y[i * y_step], i < n, each step 0 or 1 (a
 * constant once inlined, so that each form's loop vectorizes alone), with
 * pow_lane's `negative_x`; with `vector` false, libm's powf alone. */
static inline __attribute__((always_inline)) void
pow_rows(float *out, const float *x, int64_t x_step, const float *y,
         int64_t y_step, int64_t n, bool vector, bool negative_x) {
  if (!vector) {
    for (int64_t i = 0; i < n; i++)
      out[i] = powf(x[i * x_step], y[i * y_step]);
    return;
  }
  float fast[CHUNK];
  for (int64_t start = 0; start < n; start += CHUNK) {
    int64_t len = n - start < CHUNK ? n - start : CHUNK;
    const float *xc = x + start * x_step, *yc = y + start * y_step;
    int slow = 0; /* an int: gcc vectorizes no bool reduction */
    for (int64_t i = 0; i < len; i++) {
      fast[i] = pow_lane(xc[i * x_step], yc[i * y_step], negative_x);
      slow |= fast[i] != fast[i];
    }
    if (!slow) {
      memcpy(out + start, fast, (size_t)len * sizeof *fast);
      continue;
    }
    for (int64_t i = 0; i < len; i++)
      out[start + i] =
          fast[i] == fast[i] ? fast[i] : powf(xc[i * x_step], yc[i * y_step]);
  }
}

#define POW_PARAMS                                                             \
  (float *out, const float *const *in, int64_t n, const double *p)
#define POW_ARGS (out, in, n, p)

REF_ISA_BODY void ref_pow_f32_exponent_body(float *out, const float *const *in,
                                            int64_t n, const double *p,
                                            bool vector) {
  const float *x = in[0];
  float e = (float)p[0];
  if (e == 2.0f) {
    for (int64_t i = 0; i < n; i++)
      out[i] = x[i] * x[i];
  } else if (e == 0.5f) {
    for (int64_t i = 0; i < n; i++)
      out[i] = sqrtf(x[i]);
  } else {
    pow_rows(out, x, 1, &e, 0, n, vector, true); /* e's tests leave the loop */
  }
}
REF_ISA_DISPATCH_VOID_FMA(, ref_pow_f32_exponent, POW_PARAMS, POW_ARGS)

REF_ISA_BODY void ref_pow_f32_tensors_body(float *out, const float *const *in,
                                           int64_t n, const double *p,
                                           bool vector) {
  (void)p;
  pow_rows(out, in[0], 1, in[1], 1, n, vector, false);
}
REF_ISA_DISPATCH_VOID_FMA(, ref_pow_f32_tensors, POW_PARAMS, POW_ARGS)

REF_ISA_BODY void ref_pow_f32_base_body(float *out, const float *const *in,
                                        int64_t n, const double *p,
                                        bool vector) {
  float base = (float)p[0];
  pow_rows(out, &base, 0, in[0], 1, n, vector, false);
}
REF_ISA_DISPATCH_VOID_FMA(, ref_pow_f32_base, POW_PARAMS, POW_ARGS)
