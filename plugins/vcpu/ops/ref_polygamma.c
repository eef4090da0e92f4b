/* polygamma (the n-th derivative of digamma) and the backwards of digamma
 * and polygamma: extension ops (DIOPI 1.0 declares none), as
 * torch.polygamma. n = 0 is diopiDigamma's. For n >= 1,
 * psi_n(x) = (-1)^(n+1) n! zeta(n+1, x): Hurwitz's zeta summed term by term
 * until its argument passes 10 + n, the rest by the Euler-Maclaurin formula;
 * negative x reflect (psi_n(x) = (-1)^n psi_n(1 - x) - pi^(n+1) P_n(cot pi x),
 * P_n the n-th derivative of cot as a polynomial in cot). At the poles
 * (0, -1, -2, ...) the result is +inf for odd n and -inf for even n; at the
 * infinities it is PyTorch's (n = 1: 0 at +inf, NaN at -inf; n >= 2: NaN at
 * +inf, the pole's value at -inf). All in double. */
#include <math.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_error.h"
#include "ref_ew_call.h"

/* B_2j / (2j)! for j = 1..12: the Euler-Maclaurin coefficients. */
static const double bernoulli_over_factorial[12] = {
    1.0 / 6 / 2.0,
    -1.0 / 30 / 24.0,
    1.0 / 42 / 720.0,
    -1.0 / 30 / 40320.0,
    5.0 / 66 / 3628800.0,
    -691.0 / 2730 / 479001600.0,
    7.0 / 6 / 87178291200.0,
    -3617.0 / 510 / 20922789888000.0,
    43867.0 / 798 / 6402373705728000.0,
    -174611.0 / 330 / 2432902008176640000.0,
    854513.0 / 138 / 1.1240007277776077e21,
    -236364091.0 / 2730 / 6.2044840173323944e23,
};

/* zeta(s, q) = sum over k >= 0 of (q + k)^-s, for s > 1 and q > 0. */
static double hurwitz_zeta(double s, double q) {
  double sum = 0;
  for (; q < 10 + s; q += 1)
    sum += pow(q, -s);
  double q_s = pow(q, -s);
  double tail = q * q_s / (s - 1) + q_s / 2;
  double term = s * q_s / q; /* s (s+1) ... (s+2j-2) q^(-s-2j+1) */
  for (int j = 0; j < 12; j++) {
    double add = bernoulli_over_factorial[j] * term;
    tail += add;
    if (fabs(add) <= 1e-17 * fabs(tail))
      break;
    term *= (s + 2 * j + 1) * (s + 2 * j + 2) / (q * q);
  }
  return sum + tail;
}

enum { REFLECT_MAX_N = 60 }; /* the cot polynomial's degree, n + 1 */

/* pi^(n+1) P_n(cot(pi x)) for n <= REFLECT_MAX_N: P_0 = c,
 * P_(k+1)(c) = -(1 + c^2) P_k'(c). */
static double cot_derivative(int n, double x) {
  double c = 1 / tan(M_PI * (x - trunc(x))); /* period 1: keep the fraction */
  double a[REFLECT_MAX_N + 2] = {0, 1}, d[REFLECT_MAX_N + 2];
  for (int k = 0; k < n; k++) { /* a has degree k + 1 */
    for (int j = 0; j <= k; j++)
      d[j] = (j + 1) * a[j + 1];
    for (int j = 0; j <= k + 2; j++)
      a[j] = -((j <= k ? d[j] : 0) + (j >= 2 ? d[j - 2] : 0));
  }
  double value = 0;
  for (int j = n + 1; j >= 0; j--)
    value = value * c + a[j];
  return pow(M_PI, n + 1) * value;
}

/* psi_n(x) for n >= 1. */
static double polygamma_of(int64_t n, double x) {
  double pole = n % 2 ? INFINITY : -INFINITY;
  if (isnan(x))
    return x;
  if (isinf(x))
    return x > 0 ? (n == 1 ? 0 : NAN) : (n == 1 ? NAN : pole);
  if (x <= 0 && x == floor(x))
    return pole;
  double sign = n % 2 ? 1 : -1;
  if (x < 0 && n <= REFLECT_MAX_N)
    return (n % 2 ? -1 : 1) * polygamma_of(n, 1 - x) -
           cot_derivative((int)n, x);
  return sign * exp(lgamma((double)n + 1)) * hurwitz_zeta((double)n + 1, x);
}

/* in = {x}; p[0] = n >= 1. */
static double polygamma_fn(const double *in, const double *p) {
  return polygamma_of((int64_t)p[0], in[0]);
}

/* in = {grad_output, x}; p[0] = n: grad * psi_(n+1)(x). */
static double polygamma_backward_fn(const double *in, const double *p) {
  return in[0] * polygamma_of((int64_t)p[0] + 1, in[1]);
}

static diopiError_t expect_order(const char *op, int64_t n) {
  return n >= 0 ? diopiSuccess
                : ref_fail(op, "n: expected n >= 0, got %lld", (long long)n);
}

REF_EXPORT diopiError_t diopiPolygamma(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t input,
                                       int64_t n) {
  static const char *const names[1] = {"input"};
  diopiError_t err = expect_order("diopiPolygamma", n);
  if (err)
    return err;
  if (n == 0)
    return diopiDigamma(ctx, out, input);
  double params[4] = {(double)n};
  return ref_ew_call(ctx, "diopiPolygamma", out, 1, &input, names, polygamma_fn,
                     NULL, params, REF_OUT_FLOATING);
}

REF_EXPORT diopiError_t diopiPolygammaInp(diopiContextHandle_t ctx,
                                          diopiTensorHandle_t input,
                                          int64_t n) {
  static const char *const names[1] = {"input"};
  diopiError_t err = expect_order("diopiPolygammaInp", n);
  if (err)
    return err;
  if (n == 0)
    return diopiDigammaInp(ctx, input);
  diopiConstTensorHandle_t in = input;
  double params[4] = {(double)n};
  return ref_ew_call(ctx, "diopiPolygammaInp", input, 1, &in, names,
                     polygamma_fn, NULL, params, REF_OUT_FLOATING);
}

static diopiError_t backward(diopiContextHandle_t ctx, const char *op,
                             diopiTensorHandle_t grad_input,
                             diopiConstTensorHandle_t grad_output,
                             diopiConstTensorHandle_t input, int64_t n) {
  static const char *const names[2] = {"grad_output", "input"};
  diopiError_t err = expect_order(op, n);
  if (err)
    return err;
  diopiConstTensorHandle_t in[2] = {grad_output, input};
  double params[4] = {(double)n};
  return ref_ew_call(ctx, op, grad_input, 2, in, names, polygamma_backward_fn,
                     NULL, params, REF_OUT_FLOATING);
}

REF_EXPORT diopiError_t
diopiPolygammaBackward(diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
                       diopiConstTensorHandle_t grad_output,
                       diopiConstTensorHandle_t input, int64_t n) {
  return backward(ctx, "diopiPolygammaBackward", grad_input, grad_output, input,
                  n);
}

REF_EXPORT diopiError_t diopiDigammaBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input) {
  return backward(ctx, "diopiDigammaBackward", grad_input, grad_output, input,
                  0);
}
