#include "ref_f32.h"

#include <math.h>
#include <string.h>

#ifdef REF_ISA_MULTIVERSION
#include <immintrin.h>
#endif

bool ref_f32_contiguous(const ref_view_t *v) {
  return v->dtype == diopi_dtype_float32 && ref_contiguous(v);
}

/* Each function sums one block in float (the compiler's SIMD lanes, allowed
 * to reassociate by the simd reduction) and adds the block to a double. */

REF_ISA_BODY double ref_f32_sum_sq_dev_body(const float *restrict x, int64_t n,
                                            float center) {
  double total = 0;
  for (int64_t b = 0; b < n; b += REF_F32_BLOCK) {
    int64_t e = n - b < REF_F32_BLOCK ? n : b + REF_F32_BLOCK;
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (int64_t k = b; k < e; k++) {
      float d = x[k] - center;
      s += d * d;
    }
    total += s;
  }
  return total;
}
REF_ISA_DISPATCH(, double, ref_f32_sum_sq_dev,
                 (const float *restrict x, int64_t n, float center),
                 (x, n, center))

REF_ISA_BODY double ref_f32_abs_sum_body(const float *restrict x, int64_t n) {
  double total = 0;
  for (int64_t b = 0; b < n; b += REF_F32_BLOCK) {
    int64_t e = n - b < REF_F32_BLOCK ? n : b + REF_F32_BLOCK;
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (int64_t k = b; k < e; k++)
      s += fabsf(x[k]);
    total += s;
  }
  return total;
}
REF_ISA_DISPATCH(, double, ref_f32_abs_sum,
                 (const float *restrict x, int64_t n), (x, n))

/* Sixteen running maxima that keep a NaN once one is seen (a NaN lane
 * compares false both ways), then the tail. */
REF_ISA_BODY float ref_f32_abs_max_body(const float *restrict x, int64_t n) {
  float lanes[16] = {0};
  int64_t k = 0;
  for (; k + 16 <= n; k += 16)
    for (int j = 0; j < 16; j++) {
      float v = fabsf(x[k + j]);
      lanes[j] = v > lanes[j] || v != v ? v : lanes[j];
    }
  for (; k < n; k++) {
    float v = fabsf(x[k]);
    lanes[0] = v > lanes[0] || v != v ? v : lanes[0];
  }
  float m = 0;
  for (int j = 0; j < 16; j++)
    m = lanes[j] > m || lanes[j] != lanes[j] ? lanes[j] : m;
  return m;
}
REF_ISA_DISPATCH(, float, ref_f32_abs_max, (const float *restrict x, int64_t n),
                 (x, n))

REF_ISA_BODY double ref_f32_dot_body(const float *restrict a,
                                     const float *restrict b, int64_t n) {
  double total = 0;
  for (int64_t o = 0; o < n; o += REF_F32_BLOCK) {
    int64_t e = n - o < REF_F32_BLOCK ? n : o + REF_F32_BLOCK;
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (int64_t k = o; k < e; k++)
      s += a[k] * b[k];
    total += s;
  }
  return total;
}
REF_ISA_DISPATCH(, double, ref_f32_dot,
                 (const float *restrict a, const float *restrict b, int64_t n),
                 (a, b, n))

/* exp(v) = 2^m exp(r), m = round(v / ln 2), r = v - m ln 2 in
 * [-ln 2 / 2, ln 2 / 2]: a degree-7 polynomial for exp(r) (the classic
 * single-precision minimax coefficients) returned, m in *m. Adding
 * 1.5 * 2^23 rounds v / ln 2 to an integer held in the low bits. Inlined
 * into the loops so that they vectorize whole. */
static inline __attribute__((always_inline)) float exp_reduced(float c,
                                                               int32_t *m) {
  const float round_magic = 12582912.0f;
  float t = c * 1.44269504f + round_magic;
  float mf = t - round_magic;
  float r = c - mf * 0.693359375f + mf * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  uint32_t bits;
  memcpy(&bits, &t, sizeof bits);
  *m = (int32_t)(bits - 0x4B400000u);
  return p;
}
/* 2^m for m in [-126, 127], built in the exponent bits. */
static inline __attribute__((always_inline)) float pow2_normal(int32_t m) {
  uint32_t bits = (uint32_t)(m + 127) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return scale;
}
/* exp(c) for c in [-87.3, 88.3], where 2^m is a normal float. */
static inline __attribute__((always_inline)) float exp_clamped(float c) {
  int32_t m;
  float p = exp_reduced(c, &m);
  return p * pow2_normal(m);
}
static inline __attribute__((always_inline)) float exp_one(float v) {
  const float lo = -87.3f, hi = 88.3f;
  float c = v < lo ? lo : v;
  c = c > hi ? hi : c;
  return v < lo ? 0.0f : exp_clamped(c);
}
/* exp over float32's whole range, as exp() itself must give it: infinity
 * from ln(FLT_MAX) up, subnormal results down to about -103.97, then 0.
 * 2^m is applied as two normal factors, 2^(m >> 1) then the rest: the
 * first product is exact, the second rounds once (into the subnormals, or
 * to infinity). */
static inline __attribute__((always_inline)) float exp_full(float v) {
  const float lo = -104.0f, hi = 89.0f;
  float c = v < lo ? lo : v;
  c = c > hi ? hi : c;
  int32_t m;
  float p = exp_reduced(c, &m);
  int32_t half = m >> 1;
  return p * pow2_normal(half) * pow2_normal(m - half);
}
/* exp_one of an argument known to be <= 0 (or NaN): no upper clamp. */
static inline __attribute__((always_inline)) float exp_nonpositive(float v) {
  const float lo = -87.3f;
  return v < lo ? 0.0f : exp_clamped(v < lo ? lo : v);
}

REF_ISA_BODY void ref_f32_exp_body(float *y, const float *x, int64_t n,
                                   float shift) {
  for (int64_t k = 0; k < n; k++)
    y[k] = exp_full(x[k] - shift);
}
REF_ISA_DISPATCH_VOID(, ref_f32_exp,
                      (float *y, const float *x, int64_t n, float shift),
                      (y, x, n, shift))

/* log(x) = e ln 2 + log(m), x = m 2^e with m in [sqrt(1/2), sqrt(2)):
 * log(1 + f) as f - f^2/2 + f^3 P(f), the classic single-precision minimax
 * coefficients; subnormals scaled by 2^23 first. */
REF_ISA_BODY void ref_f32_log_body(float *y, const float *x, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    float v = x[k];
    bool tiny = v < 1.17549435e-38f;
    float s = tiny ? v * 8388608.0f : v;
    uint32_t bits;
    memcpy(&bits, &s, sizeof bits);
    int32_t e = (int32_t)((bits >> 23) & 0xff) - 126 - (tiny ? 23 : 0);
    uint32_t mbits = (bits & 0x007fffffu) | 0x3f000000u; /* [0.5, 1) */
    float m;
    memcpy(&m, &mbits, sizeof m);
    bool low = m < 0.707106781f;
    e -= low ? 1 : 0;
    float f = low ? m + m - 1.0f : m - 1.0f;
    float z = f * f;
    float p = 7.0376836292e-2f;
    p = p * f - 1.1514610310e-1f;
    p = p * f + 1.1676998740e-1f;
    p = p * f - 1.2420140846e-1f;
    p = p * f + 1.4249322787e-1f;
    p = p * f - 1.6668057665e-1f;
    p = p * f + 2.0000714765e-1f;
    p = p * f - 2.4999993993e-1f;
    p = p * f + 3.3333331174e-1f;
    float fe = (float)e;
    float r = p * f * z + fe * -2.12194440e-4f - 0.5f * z + f;
    r += fe * 0.693359375f;
    r = v == INFINITY ? INFINITY : r;
    r = v == 0.0f ? -INFINITY : r;
    y[k] = v < 0.0f || v != v ? NAN : r;
  }
}
REF_ISA_DISPATCH_VOID(, ref_f32_log, (float *y, const float *x, int64_t n),
                      (y, x, n))

/* 1 / (1 + exp(-v)) with exp's argument clamped to [-87.3, 88.3] and no
 * select for exp's underflow: below -87.3 (v above 87.3) the clamped exp
 * is under 2^-126 and 1 + it rounds to 1, the sigmoid's value. The clamps
 * are written `a > b ? a : b` (a NaN v stays NaN), which are single
 * max/min instructions; the selects of exp_one cost the AVX2 loop about a
 * fifth of its time. */
static inline __attribute__((always_inline)) float sigmoid_one(float v) {
  const float lo = -87.3f, hi = 88.3f;
  float c = -v;
  c = lo > c ? lo : c;
  c = hi < c ? hi : c;
  return 1.0f / (1.0f + exp_clamped(c));
}
REF_ISA_BODY void ref_f32_sigmoid_body(float *y, const float *x, int64_t n) {
  for (int64_t k = 0; k < n; k++)
    y[k] = sigmoid_one(x[k]);
}
REF_ISA_DISPATCH_VOID(, ref_f32_sigmoid, (float *y, const float *x, int64_t n),
                      (y, x, n))

/* A line (16 floats) at a time: computed into registers (the constant-length
 * loop vectorizes whole), stored on x86-64 with SSE's movntps, which every
 * build has (the four stores fill one line, so the line is written once and
 * never read); elsewhere with ordinary stores. Ordinary stores before y's
 * first 64-byte boundary and after its last full line. */
REF_ISA_BODY void ref_f32_sigmoid_stream_body(float *y, const float *x,
                                              int64_t n) {
  int64_t k =
      (int64_t)((64 - ((uintptr_t)y & 63)) & 63) / (int64_t)sizeof(float);
  k = (uintptr_t)y % sizeof(float) ? n : k; /* not float-aligned: no lines */
  k = k < n ? k : n;
  for (int64_t i = 0; i < k; i++)
    y[i] = sigmoid_one(x[i]);
  for (; k + 16 <= n; k += 16) {
    float line[16] __attribute__((aligned(64)));
    for (int j = 0; j < 16; j++)
      line[j] = sigmoid_one(x[k + j]);
#ifdef REF_ISA_MULTIVERSION
    for (int j = 0; j < 16; j += 4)
      _mm_stream_ps(y + k + j, _mm_load_ps(line + j));
#else
    memcpy(y + k, line, sizeof line);
#endif
  }
  for (; k < n; k++)
    y[k] = sigmoid_one(x[k]);
}
REF_ISA_DISPATCH_VOID(, ref_f32_sigmoid_stream,
                      (float *y, const float *x, int64_t n), (y, x, n))

/* tanh(x) = sign(x) (1 - 2 / (exp(2|x|) + 1)) for |x| >= 0.5; below, an
 * odd polynomial (Taylor to x^13, error < 5e-8 there). */
REF_ISA_BODY void ref_f32_tanh_body(float *y, const float *x, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    float v = x[k], a = v < 0 ? -v : v;
    float big = 1.0f - 2.0f / (exp_one(2.0f * a) + 1.0f);
    big = v < 0 ? -big : big;
    float z = v * v;
    float p = -0.0035921280f;
    p = p * z + 0.0088632355f;
    p = p * z - 0.0218694885f;
    p = p * z + 0.0539682540f;
    p = p * z - 0.1333333333f;
    p = p * z + 0.3333333333f;
    float small = v - v * z * p;
    y[k] = a < 0.5f ? small : big;
  }
}
REF_ISA_DISPATCH_VOID(, ref_f32_tanh, (float *y, const float *x, int64_t n),
                      (y, x, n))

/* x = q pi/2 + r, |r| <= pi/4, q = round(x 2/pi), r by a three-part pi/2
 * (exact products for |q| < 2^13); sin r and cos r by the classic
 * single-precision minimax polynomials, picked and signed by the quadrant
 * q + phase. */
REF_ISA_BODY void ref_f32_sincos_body(float *y, const float *x, int64_t n,
                                      int phase) {
  const float round_magic = 12582912.0f;
  int big = 0;
  for (int64_t k = 0; k < n; k++) {
    float v = x[k];
    float a = v < 0 ? -v : v;
    big |= !(a <= 8192.0f); /* NaN and inf too */
    float t = v * 0.63661977f + round_magic;
    float q = t - round_magic;
    float r = ((v - q * 1.5703125f) - q * 4.8375129699707031e-4f) -
              q * 7.5497899548918821e-8f;
    uint32_t bits;
    memcpy(&bits, &t, sizeof bits);
    uint32_t quadrant = (bits + (uint32_t)phase) & 3u;
    float z = r * r;
    float sin_r =
        ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) *
            z * r +
        r;
    float cos_r = ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z +
                   4.166664568298827e-2f) *
                      z * z -
                  0.5f * z + 1.0f;
    float w = quadrant & 1u ? cos_r : sin_r;
    y[k] = !(a <= 8192.0f) ? v : quadrant & 2u ? -w : w; /* big: kept */
  }
  if (big) /* the rare arguments the reduction does not cover */
    for (int64_t k = 0; k < n; k++) {
      float v = y[k], a = v < 0 ? -v : v;
      if (!(a <= 8192.0f))
        y[k] = phase ? cosf(v) : sinf(v);
    }
}
REF_ISA_DISPATCH_VOID(, ref_f32_sincos,
                      (float *y, const float *x, int64_t n, int phase),
                      (y, x, n, phase))

/* erf(z): below |z| 0.5 its Taylor series, above Abramowitz and Stegun's
 * 7.1.26 on exp_one; both computed and one selected, so that the loops
 * around it vectorize whole (one pass, no block buffers). */
static inline __attribute__((always_inline)) float erf_one(float z) {
  float a = z < 0 ? -z : z, q = z * z;
  float series = 1.0f / 9360.0f;
  series = series * -q + 1.0f / 1320.0f;
  series = series * -q + 1.0f / 216.0f;
  series = series * -q + 1.0f / 42.0f;
  series = series * -q + 1.0f / 10.0f;
  series = series * -q + 1.0f / 3.0f;
  series = 1.12837917f * a * (1.0f - q * series);
  float t = 1.0f / (1.0f + 0.3275911f * a);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  float tail = 1.0f - p * t * exp_one(-q);
  float erf_a = a < 0.5f ? series : tail;
  return z < 0 ? -erf_a : erf_a;
}

REF_ISA_BODY void ref_f32_erf_body(float *y, const float *x, int64_t n) {
  for (int64_t k = 0; k < n; k++)
    y[k] = erf_one(x[k]);
}
REF_ISA_DISPATCH_VOID(, ref_f32_erf, (float *y, const float *x, int64_t n),
                      (y, x, n))

/* gelu(x) = x Phi(x), Phi(x) = 1 - h for x >= 0 and h for x < 0, with
 * h = erfc(|x| / sqrt 2) / 2 by Abramowitz and Stegun's 7.1.26 (as erf_one's
 * tail, but at every |x|: h enters Phi without the cancellation of 1 + erf
 * and needs no series near 0, where Phi is about 1/2). The 1 / sqrt 2 and
 * the 1/2 are folded into the constants: t = 1 / (1 + p |x| / sqrt 2), the
 * polynomial's coefficients halved. One division, one exp, a degree-5
 * polynomial per element. */
static inline __attribute__((always_inline)) float gelu_one(float v) {
  float t = 1.0f / (1.0f + 0.2316418883f * fabsf(v));
  float p = 0.5307027145f;
  p = p * t - 0.7265760135f;
  p = p * t + 0.7107068705f;
  p = p * t - 0.142248368f;
  p = p * t + 0.127414796f;
  float h = p * t * exp_nonpositive(v * v * -0.5f);
  return v * (v < 0 ? h : 1.0f - h);
}

REF_ISA_BODY void ref_f32_gelu_body(float *y, const float *x, int64_t n) {
  for (int64_t k = 0; k < n; k++)
    y[k] = gelu_one(x[k]);
}
REF_ISA_DISPATCH_VOID(, ref_f32_gelu, (float *y, const float *x, int64_t n),
                      (y, x, n))
