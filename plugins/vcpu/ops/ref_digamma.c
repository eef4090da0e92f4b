/* digamma (the logarithmic derivative of the gamma function): an extension
 * op (DIOPI 1.0 declares none), as torch.digamma: -inf at +0 and +inf at
 * -0, NaN at the negative integers and -inf. Negative arguments reflect
 * (psi(x) = psi(1 - x) - pi / tan(pi x)), small ones recur upward to 10,
 * and from there the asymptotic series, in double. float32 computes its
 * positive arguments in float, vectorized (below). */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_ew_call.h"
#include "ref_f32.h"

static double digamma_of(double x) {
  if (x == 0)
    return copysign(INFINITY, -x);
  if (x < 0) {
    if (x == floor(x))
      return NAN;
    /* tan has period pi: its argument from the fraction keeps accuracy */
    return digamma_of(1 - x) - M_PI / tan(M_PI * (x - trunc(x)));
  }
  double result = 0;
  for (; x < 10; x += 1)
    result -= 1 / x;
  if (isinf(x) || isnan(x))
    return x;
  /* ln x - 1/(2x) - sum B_2k / (2k x^2k), k = 1..7 */
  static const double b2k_over_2k[7] = {1.0 / 12,   -1.0 / 120, 1.0 / 252,
                                        -1.0 / 240, 1.0 / 132,  -691.0 / 32760,
                                        1.0 / 12};
  double inv2 = 1 / (x * x), term = inv2, series = 0;
  for (int k = 0; k < 7; k++, term *= inv2)
    series += b2k_over_2k[k] * term;
  return result + log(x) - 0.5 / x - series;
}

static double digamma_fn(const double *in, const double *p) {
  (void)p;
  return digamma_of(in[0]);
}

/* float32, x > 0: psi(x) = psi(x + 6) - sum(1 / (x + k), k < 6), and
 * psi(y) for y >= 6 by ln y - 1 / (2y) - the series' first four terms in
 * 1 / y^2 (the fifth is below 3e-9): every lane the same steps, the log
 * through the library's vectorizable one, a block at a time. Other
 * arguments (0, negative, NaN) take the double path above. out may be
 * in[0]: each block's results are stored once its inputs are read. */
enum { DIGAMMA_BLOCK = 256 };
REF_ISA_BODY void digamma_f32_body(float *out, const float *const *in,
                                   int64_t n, const double *p) {
  (void)p;
  float y[DIGAMMA_BLOCK], r[DIGAMMA_BLOCK];
  for (int64_t b = 0; b < n; b += DIGAMMA_BLOCK) {
    int64_t m = n - b < DIGAMMA_BLOCK ? n - b : DIGAMMA_BLOCK;
    const float *x = in[0] + b;
    int other = 0;
    for (int64_t i = 0; i < m; i++) {
      y[i] = x[i] + 6.0f;
      other |= !(x[i] > 0.0f);
    }
    ref_f32_log(r, y, m);
    for (int64_t i = 0; i < m; i++) {
      float v = x[i], w = y[i], z = 1.0f / (w * w);
      float shifts = 1.0f / v + 1.0f / (v + 1.0f) + 1.0f / (v + 2.0f) +
                     1.0f / (v + 3.0f) + 1.0f / (v + 4.0f) + 1.0f / (v + 5.0f);
      float series =
          z * (1.0f / 12 - z * (1.0f / 120 - z * (1.0f / 252 - z / 240)));
      r[i] = r[i] - 0.5f / w - series - shifts;
    }
    for (int64_t i = 0; other && i < m; i++)
      if (!(x[i] > 0.0f))
        r[i] = (float)digamma_of(x[i]);
    memcpy(out + b, r, (size_t)m * sizeof *r);
  }
}
REF_F32_EW(digamma_f32)

REF_EXPORT diopiError_t diopiDigamma(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiConstTensorHandle_t input) {
  static const char *const names[1] = {"input"};
  return ref_ew_call(ctx, "diopiDigamma", out, 1, &input, names, digamma_fn,
                     digamma_f32, NULL, REF_OUT_FLOATING);
}

REF_EXPORT diopiError_t diopiDigammaInp(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t input) {
  static const char *const names[1] = {"input"};
  diopiConstTensorHandle_t in = input;
  return ref_ew_call(ctx, "diopiDigammaInp", input, 1, &in, names, digamma_fn,
                     digamma_f32, NULL, REF_OUT_FLOATING);
}
