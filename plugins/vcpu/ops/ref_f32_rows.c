/* The float32 row folds: sum, product, the extreme (max or min, of x or of
 * |x|; NaNs skipped or winning) and its position.
 *
 * On x86-64 the AVX2 builds (taken by AVX-512 machines too, except for the
 * product) are written with intrinsics: four accumulators over consecutive
 * vectors, so that the adds or maxima never wait on each other's latency
 * and the loads run in one stream. On an AMD Zen 4 they read an
 * L3-resident row at 95-100 GB/s on one core, where the compiler's
 * vectorization of the portable loops (one accumulator, or four over the
 * row's quarters) reached 77-89; 512-bit accumulators ran no faster, except
 * in the product, whose float-to-double conversions halve in number. The
 * portable bodies run everywhere else and under BACKPLANE_OPS_ISA=sse2. */
#include <math.h>

#include "ref_f32.h"

#ifdef REF_ISA_MULTIVERSION
#include <immintrin.h>
#endif

/* The elements each float lane sums before its block's total moves into
 * double: 1024 over 32 lanes (AVX2) is 32 a lane. */
enum { SUM_BLOCK = 1024 };

/* Portable: one float accumulator per REF_F32_BLOCK elements, vectorized by
 * the simd reduction, each block's sum added to a double. */
static double sum_portable(const float *restrict x, int64_t n) {
  double total = 0;
  for (int64_t b = 0; b < n; b += REF_F32_BLOCK) {
    int64_t e = n - b < REF_F32_BLOCK ? n : b + REF_F32_BLOCK;
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (int64_t k = b; k < e; k++)
      s += x[k];
    total += s;
  }
  return total;
}

/* The extreme of x (max, or min when `min`; of |x| when `abs`) into *m,
 * NaNs skipped (-+INFINITY for n = 0); returns whether x holds a NaN. */
static inline __attribute__((always_inline)) int
extreme_portable(const float *x, int64_t n, int min, int abs, float *m) {
  float best = min ? INFINITY : -INFINITY;
  int nan = 0;
  if (min) {
#pragma omp simd reduction(min : best) reduction(| : nan)
    for (int64_t k = 0; k < n; k++) {
      float v = abs ? fabsf(x[k]) : x[k];
      best = v < best ? v : best;
      nan |= x[k] != x[k];
    }
  } else {
#pragma omp simd reduction(max : best) reduction(| : nan)
    for (int64_t k = 0; k < n; k++) {
      float v = abs ? fabsf(x[k]) : x[k];
      best = v > best ? v : best;
      nan |= x[k] != x[k];
    }
  }
  *m = best;
  return nan;
}

/* Pairs of elements multiplied in float, the pairs' products in double. */
static double prod_portable(const float *restrict x, int64_t n) {
  int64_t q = n / 4;
  double p0 = 1, p1 = 1;
#pragma omp simd reduction(* : p0, p1)
  for (int64_t k = 0; k < q; k++) {
    p0 *= x[k] * x[q + k];
    p1 *= x[2 * q + k] * x[3 * q + k];
  }
  double prod = p0 * p1;
  for (int64_t k = 4 * q; k < n; k++)
    prod *= x[k];
  return prod;
}

#ifdef REF_ISA_MULTIVERSION
REF_TARGET_AVX2 static double sum_avx2(const float *x, int64_t n) {
  __m256d total = _mm256_setzero_pd();
  int64_t k = 0;
  while (n - k >= 32) {
    int64_t end = n - k < SUM_BLOCK ? k + (n - k) / 32 * 32 : k + SUM_BLOCK;
    __m256 a = _mm256_setzero_ps(), b = a, c = a, d = a;
    for (; k < end; k += 32) {
      a = _mm256_add_ps(a, _mm256_loadu_ps(x + k));
      b = _mm256_add_ps(b, _mm256_loadu_ps(x + k + 8));
      c = _mm256_add_ps(c, _mm256_loadu_ps(x + k + 16));
      d = _mm256_add_ps(d, _mm256_loadu_ps(x + k + 24));
    }
    __m256 s = _mm256_add_ps(_mm256_add_ps(a, b), _mm256_add_ps(c, d));
    total = _mm256_add_pd(total, _mm256_cvtps_pd(_mm256_castps256_ps128(s)));
    total = _mm256_add_pd(total, _mm256_cvtps_pd(_mm256_extractf128_ps(s, 1)));
  }
  double lanes[4];
  _mm256_storeu_pd(lanes, total);
  double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; k < n; k++)
    sum += x[k];
  return sum;
}

/* The extreme as extreme_portable; `min` and `abs` are constants where it
 * is inlined, so that each form has its own loop. */
REF_TARGET_AVX2 static inline __attribute__((always_inline)) int
extreme_avx2_form(const float *x, int64_t n, int min, int abs, float *m) {
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  __m256 a = _mm256_set1_ps(min ? INFINITY : -INFINITY), b = a, c = a, d = a;
  __m256 unordered = _mm256_setzero_ps();
  int64_t k = 0;
  for (; k + 32 <= n; k += 32) {
    __m256 p = _mm256_loadu_ps(x + k), q = _mm256_loadu_ps(x + k + 8),
           r = _mm256_loadu_ps(x + k + 16), s = _mm256_loadu_ps(x + k + 24);
    unordered = _mm256_or_ps(unordered,
                             _mm256_or_ps(_mm256_cmp_ps(p, q, _CMP_UNORD_Q),
                                          _mm256_cmp_ps(r, s, _CMP_UNORD_Q)));
    if (abs) {
      p = _mm256_and_ps(p, magnitude);
      q = _mm256_and_ps(q, magnitude);
      r = _mm256_and_ps(r, magnitude);
      s = _mm256_and_ps(s, magnitude);
    }
    /* a NaN first operand gives the second: NaNs are skipped */
    a = min ? _mm256_min_ps(p, a) : _mm256_max_ps(p, a);
    b = min ? _mm256_min_ps(q, b) : _mm256_max_ps(q, b);
    c = min ? _mm256_min_ps(r, c) : _mm256_max_ps(r, c);
    d = min ? _mm256_min_ps(s, d) : _mm256_max_ps(s, d);
  }
  a = min ? _mm256_min_ps(_mm256_min_ps(a, b), _mm256_min_ps(c, d))
          : _mm256_max_ps(_mm256_max_ps(a, b), _mm256_max_ps(c, d));
  float lanes[8], rest;
  _mm256_storeu_ps(lanes, a);
  int nan = _mm256_movemask_ps(unordered) != 0;
  nan |= extreme_portable(x + k, n - k, min, abs, &rest);
  for (int j = 0; j < 8; j++)
    rest = min ? (lanes[j] < rest ? lanes[j] : rest)
               : (lanes[j] > rest ? lanes[j] : rest);
  *m = rest;
  return nan;
}
REF_TARGET_AVX2 static int extreme_avx2(const float *x, int64_t n, int min,
                                        int abs, float *m) {
  if (abs)
    return min ? extreme_avx2_form(x, n, 1, 1, m)
               : extreme_avx2_form(x, n, 0, 1, m);
  return min ? extreme_avx2_form(x, n, 1, 0, m)
             : extreme_avx2_form(x, n, 0, 0, m);
}

/* 2 x 8 pairs of products in one iteration of AVX2, 2 x 16 in AVX-512;
 * four double accumulators either way. */
REF_TARGET_AVX2 static double prod_avx2(const float *x, int64_t n) {
  __m256d a = _mm256_set1_pd(1), b = a, c = a, d = a;
  int64_t k = 0;
  for (; k + 32 <= n; k += 32) {
    __m256 p =
        _mm256_mul_ps(_mm256_loadu_ps(x + k), _mm256_loadu_ps(x + k + 8));
    __m256 q =
        _mm256_mul_ps(_mm256_loadu_ps(x + k + 16), _mm256_loadu_ps(x + k + 24));
    a = _mm256_mul_pd(a, _mm256_cvtps_pd(_mm256_castps256_ps128(p)));
    b = _mm256_mul_pd(b, _mm256_cvtps_pd(_mm256_extractf128_ps(p, 1)));
    c = _mm256_mul_pd(c, _mm256_cvtps_pd(_mm256_castps256_ps128(q)));
    d = _mm256_mul_pd(d, _mm256_cvtps_pd(_mm256_extractf128_ps(q, 1)));
  }
  double lanes[4];
  _mm256_storeu_pd(lanes,
                   _mm256_mul_pd(_mm256_mul_pd(a, b), _mm256_mul_pd(c, d)));
  return (lanes[0] * lanes[1]) * (lanes[2] * lanes[3]) *
         prod_portable(x + k, n - k);
}
REF_TARGET_AVX512 static double prod_avx512(const float *x, int64_t n) {
  __m512d a = _mm512_set1_pd(1), b = a, c = a, d = a;
  int64_t k = 0;
  for (; k + 64 <= n; k += 64) {
    __m512 p =
        _mm512_mul_ps(_mm512_loadu_ps(x + k), _mm512_loadu_ps(x + k + 16));
    __m512 q =
        _mm512_mul_ps(_mm512_loadu_ps(x + k + 32), _mm512_loadu_ps(x + k + 48));
    a = _mm512_mul_pd(a, _mm512_cvtps_pd(_mm512_castps512_ps256(p)));
    b = _mm512_mul_pd(b, _mm512_cvtps_pd(_mm512_extractf32x8_ps(p, 1)));
    c = _mm512_mul_pd(c, _mm512_cvtps_pd(_mm512_castps512_ps256(q)));
    d = _mm512_mul_pd(d, _mm512_cvtps_pd(_mm512_extractf32x8_ps(q, 1)));
  }
  double lanes[8];
  _mm512_storeu_pd(lanes,
                   _mm512_mul_pd(_mm512_mul_pd(a, b), _mm512_mul_pd(c, d)));
  double prod = 1;
  for (int j = 0; j < 8; j++)
    prod *= lanes[j];
  return prod * prod_portable(x + k, n - k);
}
#endif

double ref_f32_sum(const float *x, int64_t n) {
#ifdef REF_ISA_MULTIVERSION
  if (ref_isa() >= REF_ISA_AVX2)
    return sum_avx2(x, n);
#endif
  return sum_portable(x, n);
}

double ref_f32_prod(const float *x, int64_t n) {
#ifdef REF_ISA_MULTIVERSION
  ref_isa_t isa = ref_isa();
  if (isa == REF_ISA_AVX512)
    return prod_avx512(x, n);
  if (isa == REF_ISA_AVX2)
    return prod_avx2(x, n);
#endif
  return prod_portable(x, n);
}

static int extreme(const float *x, int64_t n, int min, int abs, float *m) {
#ifdef REF_ISA_MULTIVERSION
  if (ref_isa() >= REF_ISA_AVX2)
    return extreme_avx2(x, n, min, abs, m);
#endif
  if (abs)
    return min ? extreme_portable(x, n, 1, 1, m)
               : extreme_portable(x, n, 0, 1, m);
  return min ? extreme_portable(x, n, 1, 0, m)
             : extreme_portable(x, n, 0, 0, m);
}

/* The first k with x[k] a NaN (nan) or x[k] == m (there is one): a test of
 * each run of 64 elements, then the run that holds it element by element. */
REF_ISA_BODY int64_t first_position_body(const float *x, int64_t n, float m,
                                         int nan) {
  float target = nan ? NAN : m; /* a NaN target: only NaNs match */
  for (int64_t b = 0; b < n; b += 64) {
    int64_t e = n - b < 64 ? n : b + 64;
    int hit = 0;
#pragma omp simd reduction(| : hit)
    for (int64_t k = b; k < e; k++)
      hit |= (x[k] != x[k]) | (x[k] == target);
    for (int64_t k = b; hit && k < e; k++)
      if (x[k] != x[k] || x[k] == target)
        return k;
  }
  return n - 1;
}
REF_ISA_DISPATCH(static, int64_t, first_position,
                 (const float *x, int64_t n, float m, int nan), (x, n, m, nan))

float ref_f32_max(const float *x, int64_t n) {
  float m;
  extreme(x, n, 0, 0, &m);
  return m;
}

float ref_f32_best(const float *x, int64_t n, int sign, int64_t *index) {
  float m;
  int nan = extreme(x, n, sign < 0, 0, &m);
  if (!index)
    return nan ? NAN : m;
  *index = first_position(x, n, m, nan);
  return x[*index];
}

float ref_f32_abs_extreme(const float *x, int64_t n, int sign) {
  float m;
  return extreme(x, n, sign < 0, 1, &m) ? NAN : m;
}
