/* Random fills from the context's generator: uniform_ in [from, to),
 * normal (in place or into out) with a mean and standard deviation, and
 * bernoulli (1 with probability p: a scalar, or per element from a tensor,
 * in place or not). Element i of a call takes draw i (normal: draws 2i and
 * 2i + 1) of the call's reservation, so the result does not depend on how
 * the pool splits the work. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_pool.h"
#include "ref_rng.h"

typedef enum random_kind { UNIFORM, NORMAL, BERNOULLI } random_kind_t;

typedef struct random_task {
  random_kind_t kind;
  ref_view_t out, prob; /* prob: bernoulli's probabilities, if has_prob */
  bool has_prob;
  double a, b; /* uniform: from, to; normal: mean, std; bernoulli: p */
  uint64_t seed, offset;
} random_task_t;

static void run_range(void *context, int64_t begin, int64_t end) {
  const random_task_t *t = context;
  for (int64_t i = begin; i < end; i++) {
    uint64_t k = t->offset + (uint64_t)i;
    double v;
    if (t->kind == UNIFORM) {
      v = t->a + (t->b - t->a) * ref_rng_uniform(t->seed, k);
    } else if (t->kind == NORMAL) {
      v = t->a + t->b * ref_rng_normal(t->seed, t->offset + 2 * (uint64_t)i);
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
  diopiError_t err = ref_view(op, arg, out, &t->out);
  if (!err && t->kind != BERNOULLI)
    err = ref_expect_kind(op, arg, &t->out, REF_OUT_FLOATING);
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
  diopiError_t err = ref_view(op, "input", input, &t.prob);
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
