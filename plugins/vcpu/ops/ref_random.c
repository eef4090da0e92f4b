/* Random fills from the context's generator: uniform_ in [from, to) and
 * normal (in place or into out) with a mean and standard deviation. Element
 * i of a call takes draw i (normal: draws 2i and 2i + 1) of the call's
 * reservation,
 * so the result does not depend on how the pool splits the work. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_pool.h"
#include "ref_rng.h"

typedef enum random_kind { UNIFORM, NORMAL } random_kind_t;

typedef struct random_task {
  random_kind_t kind;
  ref_view_t out;
  double a, b; /* uniform: from, to; normal: mean, std */
  uint64_t seed, offset;
} random_task_t;

static void run_range(void *context, int64_t begin, int64_t end) {
  const random_task_t *t = context;
  for (int64_t i = begin; i < end; i++) {
    double v =
        t->kind == UNIFORM
            ? t->a + (t->b - t->a) *
                         ref_rng_uniform(t->seed, t->offset + (uint64_t)i)
            : t->a +
                  t->b * ref_rng_normal(t->seed, t->offset + 2 * (uint64_t)i);
    ref_set(&t->out, i, v);
  }
}

static void run(void *args) {
  random_task_t *t = args;
  ref_parallel_for(t->out.numel, 1 << 14, run_range, t);
}

static diopiError_t launch(diopiContextHandle_t ctx, const char *op,
                           const char *arg, random_kind_t kind,
                           diopiConstTensorHandle_t out, double a, double b,
                           diopiGeneratorHandle_t generator) {
  random_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = kind;
  t.a = a;
  t.b = b;
  diopiError_t err = ref_view(ctx, op, arg, out, &t.out);
  if (!err)
    err = ref_expect_kind(op, arg, &t.out, REF_OUT_FLOATING);
  if (!err && kind == UNIFORM && !(a <= b))
    err = ref_fail(op, "from, to: expected from <= to, got %g and %g", a, b);
  if (!err && kind == NORMAL && !(b >= 0))
    err = ref_fail(op, "std: expected >= 0, got %g", b);
  /* A normal draw takes two counters. */
  uint64_t n = (uint64_t)t.out.numel * (kind == NORMAL ? 2 : 1);
  if (!err)
    err = ref_rng_reserve(op, generator, n, &t.seed, &t.offset);
  if (err || t.out.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiUniformInp(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t inout, double from,
                                        double to,
                                        diopiGeneratorHandle_t generator) {
  return launch(ctx, "diopiUniformInp", "inout", UNIFORM, inout, from, to,
                generator);
}
REF_EXPORT diopiError_t diopiNormalInp(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t inout, double mean,
                                       double std,
                                       diopiGeneratorHandle_t generator) {
  return launch(ctx, "diopiNormalInp", "inout", NORMAL, inout, mean, std,
                generator);
}
REF_EXPORT diopiError_t diopiNormal(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out, double mean,
                                    double std,
                                    diopiGeneratorHandle_t generator) {
  return launch(ctx, "diopiNormal", "out", NORMAL, out, mean, std, generator);
}
