/* Element reads for comparison. */
#include "optest_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double half(uint16_t h) {
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v = exp == 0    ? ldexp(mant, -24)
             : exp == 31 ? (mant ? NAN : INFINITY)
                         : ldexp(mant + 1024, exp - 25);
  return h & 0x8000 ? -v : v;
}

static double load(diopiDtype_t d, const unsigned char *base, size_t i) {
  const unsigned char *p = base + i * bp_ops_dtype_size(d);
  union {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
  } v;
  memcpy(&v, p, bp_ops_dtype_size(d));
  switch (d) {
  case diopi_dtype_int8:
    return v.i8;
  case diopi_dtype_uint8:
    return v.u8;
  case diopi_dtype_bool:
    return v.u8 != 0;
  case diopi_dtype_int16:
    return v.i16;
  case diopi_dtype_uint16:
    return v.u16;
  case diopi_dtype_int32:
    return v.i32;
  case diopi_dtype_uint32:
    return v.u32;
  case diopi_dtype_int64:
    return (double)v.i64;
  case diopi_dtype_uint64:
    return (double)v.u64;
  case diopi_dtype_float32:
    return v.f32;
  case diopi_dtype_float64:
    return v.f64;
  case diopi_dtype_float16:
    return half(v.u16);
  case diopi_dtype_bfloat16: {
    uint32_t bits = (uint32_t)v.u16 << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
  }
  default:
    return NAN;
  }
}

void optest_compare(diopiDtype_t dtype, const void *expected,
                    const void *actual, size_t n, double atol, double rtol,
                    optest_mismatch_t *out) {
  memset(out, 0, sizeof *out);
  bool wide = dtype == diopi_dtype_int64 || dtype == diopi_dtype_uint64;
  for (size_t i = 0; i < n; i++) {
    double e = load(dtype, expected, i), a = load(dtype, actual, i);
    double diff = fabs(a - e);
    bool close = (isnan(e) && isnan(a)) || diff <= atol + rtol * fabs(e) ||
                 (isinf(e) && a == e);
    if (wide && atol == 0 && rtol == 0) /* beyond 2^53 doubles round */
      close = !memcmp((const char *)expected + i * 8,
                      (const char *)actual + i * 8, 8);
    if (!isnan(diff)) {
      out->max_abs = diff > out->max_abs ? diff : out->max_abs;
      double rel = e != 0 ? diff / fabs(e) : 0;
      out->max_rel = rel > out->max_rel ? rel : out->max_rel;
    }
    if (!close && out->count++ == 0) {
      out->first = i;
      out->expected = e;
      out->actual = a;
    }
  }
}

void optest_sums(diopiDtype_t dtype, const void *data, size_t n, double *sum,
                 double *abs_sum) {
  *sum = *abs_sum = 0;
  for (size_t i = 0; i < n; i++) {
    double v = load(dtype, data, i);
    *sum += v;
    *abs_sum += fabs(v);
  }
}

/* The index of the tensor called `role`, or -1. */
static int role_index(const optest_case_t *c, const char *role) {
  for (size_t i = 0; i < c->tensor_count; i++)
    if (!strcmp(c->tensors[i].role, role))
      return (int)i;
  return -1;
}

/* Dropout: each output element 0 or input / (1 - p) as its mask element
 * says (without a mask: either), and the kept fraction near 1 - p. A mask with
 * fewer elements than out (channel dropout: [N, C, 1, ...]) covers runs of
 * out's elements of equal length, one per mask element; its margin is then 5
 * standard errors of the channel count (at least 0.03). */
static int judge_dropout(const optest_case_t *c,
                         const unsigned char *const *got, char *detail,
                         size_t size) {
  int out = role_index(c, "out"), mask = role_index(c, "mask"),
      in = role_index(c, "input");
  const optest_attr_t *p_attr = optest_attr(c, "p");
  if (out < 0 || in < 0 || !p_attr) {
    snprintf(detail, size, "dropout rule: the case lacks out, input or p");
    return -1;
  }
  const optest_tensor_t *ot = &c->tensors[out], *it = &c->tensors[in];
  double p = p_attr->type == OPTEST_FLOAT ? p_attr->f : (double)p_attr->i;
  size_t n = 1, units = 1, kept = 0;
  for (int d = 0; d < ot->ndim; d++)
    n *= (size_t)ot->shape[d];
  for (int d = 0; mask >= 0 && d < c->tensors[mask].ndim; d++)
    units *= (size_t)c->tensors[mask].shape[d];
  if (mask < 0 || units == 0 || units > n || n % units) {
    if (mask >= 0 && n) {
      snprintf(detail, size, "dropout rule: %zu mask elements for %zu", units,
               n);
      return -1;
    }
    units = n;
  }
  size_t run = n ? n / units : 1;
  const unsigned char *input =
      got[in] + it->offset * (int64_t)bp_ops_dtype_size(it->dtype);
  for (size_t i = 0; i < n; i++) {
    double x = load(it->dtype, input, i), y = load(ot->dtype, got[out], i);
    double scaled = x / (1 - p);
    bool is_kept;
    if (mask >= 0) { /* out as the mask says (an input near 0 fits both) */
      is_kept = load(c->tensors[mask].dtype, got[mask], i / run) != 0;
      double want = is_kept ? scaled : 0;
      if (!(fabs(y - want) <= c->atol + c->rtol * fabs(want))) {
        snprintf(detail, size,
                 "out at %zu: %.6g, expected %.6g as mask at %zu says (%d)", i,
                 y, want, i / run, (int)is_kept);
        return -1;
      }
    } else {
      is_kept = fabs(y - scaled) <= c->atol + c->rtol * fabs(scaled);
      if (!is_kept && y != 0) {
        snprintf(detail, size,
                 "out at %zu: %.6g is neither 0 nor input / (1 - p) = %.6g", i,
                 y, scaled);
        return -1;
      }
    }
    kept += is_kept;
  }
  double ratio = n ? (double)kept / (double)n : 1 - p;
  double margin =
      units < n ? fmax(0.03, 5 * sqrt(p * (1 - p) / (double)units)) : 3e-2;
  if (fabs(ratio - (1 - p)) > margin) {
    snprintf(detail, size, "kept %.4f of the elements, expected %.4f +- %.3g",
             ratio, 1 - p, margin);
    return -1;
  }
  return 0;
}

/* Element `i` of an output shaped like `out` read from input `t` (its
 * storage `data`), broadcast to out's shape as PyTorch aligns shapes: from
 * the last dimension, a dimension of size 1 repeating. */
static double broadcast_load(const optest_tensor_t *t,
                             const unsigned char *data,
                             const optest_tensor_t *out, size_t i) {
  int64_t at = t->offset;
  for (int d = out->ndim - 1, k = t->ndim - 1; d >= 0; d--, k--) {
    int64_t coord = (int64_t)(i % (size_t)out->shape[d]);
    i /= (size_t)out->shape[d];
    if (k >= 0 && t->shape[k] != 1)
      at += coord * t->stride[k];
  }
  return load(t->dtype, data, (size_t)at);
}

/* Random fills: the output's mean and standard deviation near those of the
 * distribution (uniform: every value also within [from, to]). A result
 * nearer than 5 standard errors of the mean passes; the spread is judged
 * from 64 draws on (fewer say too little of it). A normal whose mean or
 * standard deviation is an input tensor ("mean", "std", broadcast to out)
 * is judged by its draws standardized by their own element's parameters
 * (those whose deviation is 0 must equal their mean). */
static int judge_distribution(const optest_case_t *c,
                              const unsigned char *const *got, bool uniform,
                              char *detail, size_t size) {
  int out = role_index(c, "inout");
  if (out < 0)
    out = role_index(c, "out");
  int mean_in = uniform ? -1 : role_index(c, "mean"),
      std_in = uniform ? -1 : role_index(c, "std");
  const optest_attr_t *a = optest_attr(c, uniform ? "from" : "mean"),
                      *b = optest_attr(c, uniform ? "to" : "std");
  if (out < 0 || (!a && mean_in < 0) || (!b && std_in < 0)) {
    snprintf(detail, size,
             "distribution rule: the case lacks its tensor or "
             "its parameters");
    return -1;
  }
  const optest_tensor_t *t = &c->tensors[out];
  double pa = !a ? 0 : a->type == OPTEST_FLOAT ? a->f : (double)a->i;
  double pb = !b ? 1 : b->type == OPTEST_FLOAT ? b->f : (double)b->i;
  bool standardize = mean_in >= 0 || std_in >= 0;
  double mean = standardize ? 0 : uniform ? (pa + pb) / 2 : pa;
  double sd = standardize ? 1 : uniform ? (pb - pa) / sqrt(12.0) : pb;
  /* A draw stored in a narrow float rounds to its nearest value, which may
   * lie past a bound by up to half a unit in the last place. */
  double half_ulp = t->dtype == diopi_dtype_float16    ? 0x1p-11
                    : t->dtype == diopi_dtype_bfloat16 ? 0x1p-8
                    : t->dtype == diopi_dtype_float32  ? 0x1p-24
                                                       : 0;
  double slack = half_ulp * fmax(fabs(pa), fabs(pb));
  size_t n = 1, drawn = 0;
  for (int d = 0; d < t->ndim; d++)
    n *= (size_t)t->shape[d];
  double sum = 0, sum_sq = 0;
  for (size_t i = 0; i < n; i++) {
    double x = load(t->dtype, got[out], i);
    if (uniform && !(x >= pa - slack && x <= pb + slack)) {
      snprintf(detail, size, "value at %zu: %.6g is outside [%g, %g]", i, x, pa,
               pb);
      return -1;
    }
    if (standardize) {
      double m = mean_in < 0
                     ? pa
                     : broadcast_load(&c->tensors[mean_in], got[mean_in], t, i);
      double s = std_in < 0
                     ? pb
                     : broadcast_load(&c->tensors[std_in], got[std_in], t, i);
      if (s == 0 && !(fabs(x - m) <= c->atol + c->rtol * fabs(m))) {
        snprintf(detail, size,
                 "value at %zu: %.6g, expected its mean %.6g (std 0)", i, x, m);
        return -1;
      }
      if (s == 0)
        continue;
      x = (x - m) / s;
    }
    sum += x;
    sum_sq += x * x;
    drawn++;
  }
  double m = drawn ? sum / (double)drawn : mean;
  double s = drawn ? sqrt(fmax(sum_sq / (double)drawn - m * m, 0)) : sd;
  double margin = 5 * sd / sqrt(drawn ? (double)drawn : 1.0) + c->atol;
  if (fabs(m - mean) > margin ||
      (drawn >= 64 && fabs(s - sd) > 0.1 * sd + c->atol)) {
    snprintf(detail, size,
             "mean %.5g and std %.5g, expected %.5g +- %.3g and %.5g +- %.3g",
             m, s, mean, margin, sd, 0.1 * sd + c->atol);
    return -1;
  }
  return 0;
}

/* The judged output ("inout", else "out"), its element count, or -1. */
static int judged(const optest_case_t *c, size_t *n) {
  int out = role_index(c, "inout");
  if (out < 0)
    out = role_index(c, "out");
  *n = 1;
  for (int d = 0; out >= 0 && d < c->tensors[out].ndim; d++)
    *n *= (size_t)c->tensors[out].shape[d];
  return out;
}

/* Bernoulli draws: every value 0 or 1, the mean within 5 standard errors
 * of the attribute p (the mean probability; with probabilities varying by
 * element the margin only widens). */
static int judge_bernoulli(const optest_case_t *c,
                           const unsigned char *const *got, char *detail,
                           size_t size) {
  size_t n;
  int out = judged(c, &n);
  const optest_attr_t *pa = optest_attr(c, "p");
  if (out < 0 || !pa) {
    snprintf(detail, size, "bernoulli rule: the case lacks its tensor or p");
    return -1;
  }
  if (n == 0)
    return 0; /* nothing drawn */
  double p = pa->type == OPTEST_FLOAT ? pa->f : (double)pa->i, ones = 0;
  for (size_t i = 0; i < n; i++) {
    double x = load(c->tensors[out].dtype, got[out], i);
    if (x != 0 && x != 1) {
      snprintf(detail, size, "value at %zu: %.6g is neither 0 nor 1", i, x);
      return -1;
    }
    ones += x;
  }
  double margin = 5 * sqrt(p * (1 - p) / (double)n) + 1e-9;
  if (fabs(ones / (double)n - p) > margin) {
    snprintf(detail, size, "mean %.5g, expected %.5g +- %.3g", ones / (double)n,
             p, margin);
    return -1;
  }
  return 0;
}

/* A permutation of 0..n-1. */
static int judge_permutation(const optest_case_t *c,
                             const unsigned char *const *got, char *detail,
                             size_t size) {
  size_t n;
  int out = judged(c, &n);
  unsigned char *seen = calloc(n + 1, 1);
  int result = out < 0 || !seen ? -1 : 0;
  for (size_t i = 0; !result && i < n; i++) {
    double x = load(c->tensors[out].dtype, got[out], i);
    if (!(x >= 0 && x < (double)n) || seen[(size_t)x]++) {
      snprintf(detail, size,
               "value at %zu: %.6g repeats or is outside "
               "[0, %zu)",
               i, x, n);
      result = -1;
    }
  }
  free(seen);
  return result;
}

/* Multinomial samples: categories in range whose weight is positive, no
 * category twice in a row without replacement. With replacement the draws
 * are independent, and the summed weight shares q(x) = w(x) / (row's total
 * weight) of the drawn categories lie within 5 standard deviations of their
 * expectation (per draw: mean sum q^2, variance sum q^3 - (sum q^2)^2):
 * a sampler that ignored the weights' sizes would miss it. */
static int judge_multinomial(const optest_case_t *c,
                             const unsigned char *const *got, char *detail,
                             size_t size) {
  size_t n;
  int out = judged(c, &n), in = role_index(c, "input");
  const optest_attr_t *rep = optest_attr(c, "replacement");
  if (out < 0 || in < 0 || !rep) {
    snprintf(detail, size,
             "multinomial rule: the case lacks out, input or "
             "replacement");
    return -1;
  }
  const optest_tensor_t *ot = &c->tensors[out], *it = &c->tensors[in];
  size_t categories = (size_t)it->shape[it->ndim - 1];
  size_t samples = (size_t)ot->shape[ot->ndim - 1];
  const unsigned char *weights =
      got[in] + it->offset * (int64_t)bp_ops_dtype_size(it->dtype);
  for (size_t i = 0; i < n; i++) {
    size_t row = i / samples;
    double x = load(ot->dtype, got[out], i);
    bool ok = x >= 0 && x < (double)categories &&
              load(it->dtype, weights, row * categories + (size_t)x) > 0;
    for (size_t j = row * samples; ok && !rep->i && j < i; j++)
      ok = load(ot->dtype, got[out], j) != x;
    if (!ok) {
      snprintf(detail, size,
               "sample %zu: category %.6g is out of range, "
               "weightless or repeated",
               i, x);
      return -1;
    }
  }
  double share = 0, expected = 0, variance = 0;
  for (size_t row = 0; rep->i && samples && row < n / samples; row++) {
    size_t first = row * categories;
    double total = 0, q2 = 0, q3 = 0;
    for (size_t k = 0; k < categories; k++)
      total += load(it->dtype, weights, first + k);
    for (size_t k = 0; k < categories; k++) {
      double q = load(it->dtype, weights, first + k) / total;
      q2 += q * q;
      q3 += q * q * q;
    }
    for (size_t j = row * samples; j < (row + 1) * samples; j++)
      share += load(it->dtype, weights,
                    first + (size_t)load(ot->dtype, got[out], j)) /
               total;
    expected += (double)samples * q2;
    variance += (double)samples * fmax(q3 - q2 * q2, 0);
  }
  if (fabs(share - expected) > 5 * sqrt(variance) + 1e-9 * (double)n) {
    snprintf(detail, size,
             "drawn weight shares sum to %.6g, expected %.6g +- %.3g", share,
             expected, 5 * sqrt(variance));
    return -1;
  }
  return 0;
}

/* Integers drawn from [from, high) (random_: "high" the exclusive bound
 * whether given as "to" or the dtype's): every value an integer of the
 * range, their mean within 5 standard errors of the range's. */
static int judge_integers(const optest_case_t *c,
                          const unsigned char *const *got, char *detail,
                          size_t size) {
  size_t n;
  int out = judged(c, &n);
  const optest_attr_t *fa = optest_attr(c, "from"),
                      *ha = optest_attr(c, "high");
  if (out < 0 || !fa || !ha) {
    snprintf(detail, size,
             "integers rule: the case lacks its tensor, from "
             "or high");
    return -1;
  }
  double low = fa->type == OPTEST_FLOAT ? fa->f : (double)fa->i;
  double high = ha->type == OPTEST_FLOAT ? ha->f : (double)ha->i;
  double sum = 0;
  for (size_t i = 0; i < n; i++) {
    double x = load(c->tensors[out].dtype, got[out], i);
    if (!(x >= low && x <= high - 1 && x == floor(x))) {
      snprintf(detail, size,
               "value at %zu: %.17g is no integer of [%.17g, %.17g)", i, x, low,
               high);
      return -1;
    }
    sum += x;
  }
  double span = high - low;
  double mean = low + (span - 1) / 2, sd = sqrt((span * span - 1) / 12);
  double margin = 5 * sd / sqrt(n ? (double)n : 1.0) + 1e-12 * fabs(mean);
  if (n && fabs(sum / (double)n - mean) > margin) {
    snprintf(detail, size, "mean %.6g, expected %.6g +- %.3g", sum / (double)n,
             mean, margin);
    return -1;
  }
  return 0;
}

int optest_judge_rule(const optest_case_t *c, const unsigned char *const *got,
                      char *detail, size_t size) {
  const optest_attr_t *rule = optest_attr(c, "judge");
  if (rule && rule->type == OPTEST_STRING && !strcmp(rule->s, "dropout"))
    return judge_dropout(c, got, detail, size);
  if (rule && rule->type == OPTEST_STRING && !strcmp(rule->s, "bernoulli"))
    return judge_bernoulli(c, got, detail, size);
  if (rule && rule->type == OPTEST_STRING && !strcmp(rule->s, "permutation"))
    return judge_permutation(c, got, detail, size);
  if (rule && rule->type == OPTEST_STRING && !strcmp(rule->s, "multinomial"))
    return judge_multinomial(c, got, detail, size);
  if (rule && rule->type == OPTEST_STRING && !strcmp(rule->s, "integers"))
    return judge_integers(c, got, detail, size);
  if (rule && rule->type == OPTEST_STRING &&
      (!strcmp(rule->s, "uniform") || !strcmp(rule->s, "normal")))
    return judge_distribution(c, got, !strcmp(rule->s, "uniform"), detail,
                              size);
  snprintf(detail, size, "unknown judge rule '%s'",
           rule && rule->type == OPTEST_STRING ? rule->s : "?");
  return -1;
}
