/* digamma (the logarithmic derivative of the gamma function): an extension
 * op (DIOPI 1.0 declares none), as torch.digamma: -inf at +0 and +inf at
 * -0, NaN at the negative integers and -inf. Negative arguments reflect
 * (psi(x) = psi(1 - x) - pi / tan(pi x)), small ones recur upward to 10,
 * and from there the asymptotic series, all in double (float32 too). */
#include <math.h>

#include <diopi/functions.h>

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

REF_UNARY(digamma, digamma_of(x))

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
