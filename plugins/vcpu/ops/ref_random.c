/* Random fills from the context's generator: uniform_ in [from, to),
 * random_ (integers in [from, to), exact in int64), normal (in place or into
 * out; mean and standard deviation scalars or tensors broadcast to out),
 * bernoulli (1 with probability p: a scalar, or per element from a tensor, in
 * place or not), and dropout in place (the library's dropout with out = input).
 * Element i of a call takes draw i (normal: draws 2i and 2i + 1) of the call's
 * reservation, so the result does not depend on how the pool splits the work.
 */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_rng.h"

typedef enum random_kind { UNIFORM, INTEGERS, NORMAL, BERNOULLI } random_kind_t;

typedef struct random_task {
  random_kind_t kind;
  ref_view_t out, prob; /* prob: bernoulli's probabilities, if has_prob */
  ref_view_t mean, std; /* normal's tensors, if has_mean / has_std */
  bool has_prob, has_mean, has_std;
  double a, b; /* uniform: from, to; normal: mean, std; bernoulli: p */
  int64_t low; /* integers: [low, low + span), span 0: all 2^64 values */
  uint64_t span;
  uint64_t seed, offset;
} random_task_t;

enum { SPAN = 256 }; /* draws a float32 block takes at a time */

/* out[j] = mean + std * a standard normal from the uniforms u[2j] and
 * u[2j + 1] (Box-Muller, as ref_rng_normal), its log and cos in float
 * through the vectorizable ones: within float rounding of the double
 * loop's value. */
REF_ISA_BODY void normal_f32_body(float *out, const double *u, int64_t n,
                                  double mean, double std) {
  /* zeroed: gcc at -O3 cannot tell that n > 0 before the log reads them */
  float radius[SPAN] = {0}, angle[SPAN] = {0};
  for (int64_t j = 0; j < n; j++) {
    radius[j] = (float)(1.0 - u[2 * j]); /* (0, 1]: log is finite */
    angle[j] = (float)(2.0 * M_PI * u[2 * j + 1]);
  }
  ref_f32_log(radius, radius, n);
  ref_f32_sincos(angle, angle, n, 1);
  for (int64_t j = 0; j < n; j++)
    out[j] =
        (float)(mean + std * (double)(sqrtf(-2.0f * radius[j]) * angle[j]));
}
REF_ISA_DISPATCH_VOID(static, normal_f32,
                      (float *out, const double *u, int64_t n, double mean,
                       double std),
                      (out, u, n, mean, std))

/* The draws of contiguous float32 out with scalar parameters, a block of
 * uniforms at a time: uniform and bernoulli the loop below's values,
 * normal within float rounding of them. */
static void run_f32(const random_task_t *t, int64_t begin, int64_t end) {
  float *out = (float *)t->out.data;
  double u[2 * SPAN];
  for (int64_t i = begin; i < end; i += SPAN) {
    int64_t n = end - i < SPAN ? end - i : SPAN;
    if (t->kind == NORMAL) {
      ref_rng_uniforms(t->seed, t->offset + 2 * (uint64_t)i, 2 * n, u);
      normal_f32(out + i, u, n, t->a, t->b);
      continue;
    }
    ref_rng_uniforms(t->seed, t->offset + (uint64_t)i, n, u);
    for (int64_t j = 0; j < n; j++)
      out[i + j] = t->kind == UNIFORM ? (float)(t->a + (t->b - t->a) * u[j])
                                      : (float)(u[j] < t->a);
  }
}

/* The high 64 bits of a * b: a uniform a scaled to [0, b) without the
 * bias of a modulo (Lemire), in 32-bit halves. */
static uint64_t mul_high(uint64_t a, uint64_t b) {
  uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
  uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
  uint64_t hi_lo = a_hi * b_lo;
  uint64_t cross = ((a_lo * b_lo) >> 32) + (hi_lo & 0xffffffffu) + a_lo * b_hi;
  return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
}

/* Integer draw k: exact in int64 for integral out (PyTorch's int64
 * random_ spans up to 2^63 - 1), at most 2^53 in magnitude for floats. */
static void draw_integer(const random_task_t *t, int64_t i, uint64_t k) {
  uint64_t bits = ref_rng_bits(t->seed, k);
  uint64_t r = t->span ? mul_high(bits, t->span) : bits;
  int64_t v = (int64_t)((uint64_t)t->low + r);
  if (ref_is_integral(t->out.dtype))
    ref_set_int(&t->out, i, v);
  else
    ref_set(&t->out, i, (double)v);
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const random_task_t *t = context;
  if (t->kind != INTEGERS && !t->has_mean && !t->has_std && !t->has_prob &&
      ref_f32_contiguous(&t->out)) {
    run_f32(t, begin, end);
    return;
  }
  for (int64_t i = begin; i < end; i++) {
    uint64_t k = t->offset + (uint64_t)i;
    double v;
    if (t->kind == UNIFORM) {
      v = t->a + (t->b - t->a) * ref_rng_uniform(t->seed, k);
    } else if (t->kind == INTEGERS) {
      draw_integer(t, i, k);
      continue;
    } else if (t->kind == NORMAL) {
      double mean = t->has_mean ? ref_get(&t->mean, i) : t->a;
      double std = t->has_std ? ref_get(&t->std, i) : t->b;
      v = mean + std * ref_rng_normal(t->seed, t->offset + 2 * (uint64_t)i);
    } else {
      double p = t->has_prob ? ref_get(&t->prob, i) : t->a;
      v = ref_rng_uniform(t->seed, k) < p;
    }
    ref_set(&t->out, i, v);
  }
}

static void run(void *args) {
  random_task_t *t = args;
  ref_parallel_for(t->out.numel, 1 << 14, run_range, t);
}

/* Checks t (out viewed as `arg`), reserves the draws and enqueues. */
static diopiError_t launch(diopiContextHandle_t ctx, const char *op,
                           const char *arg, random_task_t *t,
                           diopiConstTensorHandle_t out,
                           diopiGeneratorHandle_t generator) {
  diopiError_t err = ref_view(ctx, op, arg, out, &t->out);
  if (!err && (t->kind == UNIFORM || t->kind == NORMAL))
    err = ref_expect_kind(op, arg, &t->out, REF_OUT_FLOATING);
  if (!err && t->has_mean)
    err = ref_broadcast_to(op, "mean", &t->mean, t->out.shape, t->out.ndim);
  if (!err && t->has_std)
    err = ref_broadcast_to(op, "std", &t->std, t->out.shape, t->out.ndim);
  if (!err && t->kind == UNIFORM && !(t->a <= t->b))
    err = ref_fail(op, "from, to: expected from <= to, got %g and %g", t->a,
                   t->b);
  if (!err && t->kind == NORMAL && !(t->b >= 0))
    err = ref_fail(op, "std: expected >= 0, got %g", t->b);
  if (!err && t->kind == BERNOULLI && !t->has_prob && !(t->a >= 0 && t->a <= 1))
    err = ref_fail(op, "p: expected in [0, 1], got %g", t->a);
  if (!err && t->has_prob)
    err = ref_expect_shape(op, "input", &t->prob, t->out.shape, t->out.ndim);
  if (!err && t->has_prob)
    err = ref_expect_no_partial_overlap(op, "input", &t->out, &t->prob);
  /* A normal draw takes two counters. */
  uint64_t n = (uint64_t)t->out.numel * (t->kind == NORMAL ? 2 : 1);
  if (!err)
    err = ref_rng_reserve(op, generator, n, &t->seed, &t->offset);
  if (err || t->out.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, t, sizeof *t);
}

static diopiError_t fill(diopiContextHandle_t ctx, const char *op,
                         const char *arg, random_kind_t kind,
                         diopiConstTensorHandle_t out, double a, double b,
                         diopiGeneratorHandle_t generator) {
  random_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = kind;
  t.a = a;
  t.b = b;
  return launch(ctx, op, arg, &t, out, generator);
}

/* bernoulli with a tensor of probabilities (may be out itself). */
static diopiError_t bernoulli(diopiContextHandle_t ctx, const char *op,
                              const char *arg, diopiConstTensorHandle_t out,
                              diopiConstTensorHandle_t input,
                              diopiGeneratorHandle_t generator) {
  random_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = BERNOULLI;
  t.has_prob = true;
  diopiError_t err = ref_view(ctx, op, "input", input, &t.prob);
  return err ? err : launch(ctx, op, arg, &t, out, generator);
}

REF_EXPORT diopiError_t diopiUniformInp(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t inout, double from,
                                        double to,
                                        diopiGeneratorHandle_t generator) {
  return fill(ctx, "diopiUniformInp", "inout", UNIFORM, inout, from, to,
              generator);
}
REF_EXPORT diopiError_t diopiNormalInp(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t inout, double mean,
                                       double std,
                                       diopiGeneratorHandle_t generator) {
  return fill(ctx, "diopiNormalInp", "inout", NORMAL, inout, mean, std,
              generator);
}
REF_EXPORT diopiError_t diopiNormal(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out, double mean,
                                    double std,
                                    diopiGeneratorHandle_t generator) {
  return fill(ctx, "diopiNormal", "out", NORMAL, out, mean, std, generator);
}
REF_EXPORT diopiError_t diopiBernoulliScalar(diopiContextHandle_t ctx,
                                             diopiTensorHandle_t out, double p,
                                             diopiGeneratorHandle_t generator) {
  return fill(ctx, "diopiBernoulliScalar", "out", BERNOULLI, out, p, 0,
              generator);
}
REF_EXPORT diopiError_t diopiBernoulli(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t input,
                                       diopiGeneratorHandle_t generator) {
  return bernoulli(ctx, "diopiBernoulli", "out", out, input, generator);
}
REF_EXPORT diopiError_t diopiBernoulliInp(diopiContextHandle_t ctx,
                                          diopiTensorHandle_t inout,
                                          diopiGeneratorHandle_t generator) {
  return bernoulli(ctx, "diopiBernoulliInp", "inout", inout, inout, generator);
}

/* normal with a tensor mean and/or std (NULL: the scalar). */
static diopiError_t normal_tensors(diopiContextHandle_t ctx, const char *op,
                                   diopiConstTensorHandle_t out,
                                   diopiConstTensorHandle_t mean, double m,
                                   diopiConstTensorHandle_t std, double s,
                                   diopiGeneratorHandle_t generator) {
  random_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = NORMAL;
  t.a = m;
  t.b = s;
  t.has_mean = mean != NULL;
  t.has_std = std != NULL;
  diopiError_t err = diopiSuccess;
  if (mean)
    err = ref_view(ctx, op, "mean", mean, &t.mean);
  if (!err && std)
    err = ref_view(ctx, op, "std", std, &t.std);
  return err ? err : launch(ctx, op, "out", &t, out, generator);
}

REF_EXPORT diopiError_t
diopiNormalTensorScalar(diopiContextHandle_t ctx, diopiTensorHandle_t out,
                        diopiConstTensorHandle_t mean, double std,
                        diopiGeneratorHandle_t generator) {
  if (!mean)
    return ref_fail("diopiNormalTensorScalar", "mean: tensor is NULL");
  return normal_tensors(ctx, "diopiNormalTensorScalar", out, mean, 0, NULL, std,
                        generator);
}
REF_EXPORT diopiError_t diopiNormalScalarTensor(
    diopiContextHandle_t ctx, diopiTensorHandle_t out, double mean,
    diopiConstTensorHandle_t std, diopiGeneratorHandle_t generator) {
  if (!std)
    return ref_fail("diopiNormalScalarTensor", "std: tensor is NULL");
  return normal_tensors(ctx, "diopiNormalScalarTensor", out, NULL, mean, std, 0,
                        generator);
}
REF_EXPORT diopiError_t diopiNormalTensor(diopiContextHandle_t ctx,
                                          diopiTensorHandle_t out,
                                          diopiConstTensorHandle_t mean,
                                          diopiConstTensorHandle_t std,
                                          diopiGeneratorHandle_t generator) {
  if (!mean || !std)
    return ref_fail("diopiNormalTensor", "%s: tensor is NULL",
                    mean ? "std" : "mean");
  return normal_tensors(ctx, "diopiNormalTensor", out, mean, 0, std, 0,
                        generator);
}

/* Integers in [from, to); to NULL: up to the largest value out's dtype
 * holds (a float's: the largest integer below which all are exact, 2^digits),
 * as PyTorch's random_. */
REF_EXPORT diopiError_t diopiRandomInp(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t inout, int64_t from,
                                       const int64_t *to,
                                       diopiGeneratorHandle_t generator) {
  const char *op = "diopiRandomInp";
  random_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = INTEGERS;
  t.low = from;
  ref_view_t v;
  diopiError_t err = ref_view(ctx, op, "inout", inout, &v);
  if (err)
    return err;
  int64_t last; /* the largest value drawn */
  if (to) {
    if (*to <= from)
      return ref_fail(op, "from, to: expected from < to, got %lld and %lld",
                      (long long)from, (long long)*to);
    last = *to - 1;
  } else {
    switch (v.dtype) {
    case diopi_dtype_bool:
      last = 1;
      break;
    case diopi_dtype_int8:
      last = INT8_MAX;
      break;
    case diopi_dtype_uint8:
      last = UINT8_MAX;
      break;
    case diopi_dtype_int16:
      last = INT16_MAX;
      break;
    case diopi_dtype_int32:
      last = INT32_MAX;
      break;
    case diopi_dtype_int64:
      last = INT64_MAX;
      break;
    case diopi_dtype_float16:
      last = 2048;
      break;
    case diopi_dtype_bfloat16:
      last = 256;
      break;
    case diopi_dtype_float32:
      last = 16777216;
      break;
    default:
      last = INT64_C(9007199254740992);
      break;
    }
    if (last < from)
      return ref_fail(op,
                      "from: expected at most %lld (inout's largest), "
                      "got %lld",
                      (long long)last, (long long)from);
  }
  t.span = (uint64_t)last - (uint64_t)from + 1; /* 0: every int64 */
  return launch(ctx, op, "inout", &t, inout, generator);
}

REF_EXPORT diopiError_t diopiDropoutInp(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t input,
                                        diopiTensorHandle_t mask, double p,
                                        bool train,
                                        diopiGeneratorHandle_t generator) {
  return diopiDropout(ctx, input, mask, input, p, train, generator);
}
