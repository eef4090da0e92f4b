/* Rescaling to a norm bound: embedding_renorm_ (each row of weight that
 * indices name, whose p-norm exceeds max_norm, scaled to max_norm, as
 * embedding's max_norm does) and clip_grad_norm (every gradient scaled by
 * max_norm / (total norm + 1e-6) when below 1; the total norm returned to
 * the host, so the op waits for the stream before computing it). Norms of
 * every order p as torch.norm's: inf the largest |x|, -inf the least, 0
 * the nonzero count, any other p (negative too) (sum |x|^p)^(1/p); an
 * empty tensor's norm is 0. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_index_args.h"
#include "ref_pool.h"
#include "ref_settle.h"
#include "ref_tensor.h"

/* The p-norm of |values| folded one at a time from norm_start(p): sum of
 * |x|^p (a 0 to a negative power is inf, so the norm 0), the max for inf,
 * the min for -inf (p = 0: the nonzero count). NaN wins either extreme. */
static double norm_start(double p) {
  return p == -INFINITY ? INFINITY : 0;
}
static double norm_add(double acc, double x, double p) {
  x = fabs(x);
  if (p == INFINITY)
    return x > acc || isnan(x) ? x : acc;
  if (p == -INFINITY)
    return x < acc || isnan(x) ? x : acc;
  return p == 0   ? acc + (x != 0)
         : p == 1 ? acc + x
         : p == 2 ? acc + x * x
                  : acc + pow(x, p);
}
static double norm_finish(double acc, double p) {
  return isinf(p) || p == 0 || p == 1 ? acc
         : p == 2                     ? sqrt(acc)
                                      : pow(acc, 1.0 / p);
}

typedef struct renorm_task {
  ref_view_t weight, indices;
  double max_norm, p;
} renorm_task_t;

/* Serial: a row named twice is renormed once (the second time it is
 * within the bound already). */
static void run_renorm(void *args) {
  const renorm_task_t *t = args;
  int64_t rows = t->weight.shape[0], cols = t->weight.shape[1];
  for (int64_t k = 0; k < t->indices.numel; k++) {
    int64_t r = (int64_t)ref_get(&t->indices, k);
    if (r < 0 || r >= rows)
      continue;
    double acc = norm_start(t->p);
    for (int64_t c = 0; c < cols; c++)
      acc = norm_add(acc, ref_get(&t->weight, r * cols + c), t->p);
    double norm = norm_finish(acc, t->p);
    if (norm <= t->max_norm)
      continue;
    double scale = t->max_norm / (norm + 1e-7);
    for (int64_t c = 0; c < cols; c++)
      ref_set(&t->weight, r * cols + c,
              ref_get(&t->weight, r * cols + c) * scale);
  }
}

REF_EXPORT diopiError_t diopiEmbeddingRenorm_(diopiContextHandle_t ctx,
                                              diopiTensorHandle_t inout,
                                              diopiConstTensorHandle_t indices,
                                              double max_norm,
                                              double norm_type) {
  const char *op = "diopiEmbeddingRenorm_";
  renorm_task_t t;
  memset(&t, 0, sizeof t);
  t.max_norm = max_norm;
  t.p = norm_type;
  diopiError_t err = ref_view(ctx, op, "inout", inout, &t.weight);
  if (!err && t.weight.ndim != 2)
    err = ref_fail(op, "inout: expected 2 dims (rows, dim), got %d",
                   t.weight.ndim);
  if (!err)
    err = ref_view(ctx, op, "indices", indices, &t.indices);
  if (!err)
    err = ref_expect_index(op, "indices", &t.indices);
  if (!err && !(max_norm >= 0))
    err = ref_fail(op, "max_norm: expected >= 0, got %g", max_norm);
  if (!err && isnan(norm_type))
    err = ref_fail(op, "norm_type: expected a number, got nan");
  if (err || t.indices.numel == 0 || t.weight.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run_renorm, &t, sizeof t);
}

typedef struct scale_task {
  ref_view_t grad;
  double scale;
} scale_task_t;

/* In double, rounded once: the generic path's result, element for element. */
REF_ISA_BODY void scale_f32_body(float *x, int64_t n, double scale) {
  for (int64_t i = 0; i < n; i++)
    x[i] = (float)((double)x[i] * scale);
}
REF_ISA_DISPATCH_VOID(static, scale_f32, (float *x, int64_t n, double scale),
                      (x, n, scale))

static void scale_range(void *context, int64_t begin, int64_t end) {
  const scale_task_t *t = context;
  if (ref_f32_contiguous(&t->grad)) {
    scale_f32((float *)t->grad.data + begin, end - begin, t->scale);
    return;
  }
  for (int64_t i = begin; i < end; i++)
    ref_set(&t->grad, i, ref_get(&t->grad, i) * t->scale);
}
static void run_scale(void *args) {
  scale_task_t *t = args;
  ref_parallel_for(t->grad.numel, 1 << 15, scale_range, t);
}

enum { NORM_PARTS = 64 }; /* partial sums of one gradient's norm */

typedef struct norm_task {
  ref_view_t grad;
  double p;
  double parts[NORM_PARTS];
} norm_task_t;

/* The parts of a contiguous float32 gradient for p = 1, 2 and inf (float
 * lanes folded into double, as the row sums do); elsewhere one element at a
 * time in double. */
static void norm_parts(void *context, int64_t begin, int64_t end) {
  norm_task_t *t = context;
  int64_t n = t->grad.numel;
  for (int64_t part = begin; part < end; part++) {
    int64_t lo = n * part / NORM_PARTS, hi = n * (part + 1) / NORM_PARTS;
    const float *x = (const float *)t->grad.data + lo;
    double acc = norm_start(t->p);
    if (ref_f32_contiguous(&t->grad) && t->p == 2)
      acc = ref_f32_sum_sq_dev(x, hi - lo, 0.0f);
    else if (ref_f32_contiguous(&t->grad) && t->p == 1)
      acc = ref_f32_abs_sum(x, hi - lo);
    else if (ref_f32_contiguous(&t->grad) && t->p == INFINITY && hi > lo)
      acc = ref_f32_abs_max(x, hi - lo);
    else
      for (int64_t k = lo; k < hi; k++)
        acc = norm_add(acc, ref_get(&t->grad, k), t->p);
    t->parts[part] = acc;
  }
}

/* The p-norm of one gradient, split across the worker pool. */
static double grad_norm(const ref_view_t *grad, double p) {
  if (grad->numel == 0)
    return 0;
  norm_task_t t = {.grad = *grad, .p = p};
  ref_parallel_for(NORM_PARTS, grad->numel >= (1 << 16) ? 1 : NORM_PARTS,
                   norm_parts, &t);
  double acc = norm_start(p);
  for (int part = 0; part < NORM_PARTS; part++)
    acc = isinf(p) ? norm_add(acc, t.parts[part], p) : acc + t.parts[part];
  return norm_finish(acc, p);
}

REF_EXPORT diopiError_t diopiClipGradNorm(diopiContextHandle_t ctx, double *out,
                                          diopiTensorHandle_t *grads,
                                          int64_t num_grads, double max_norm,
                                          double norm_type,
                                          bool error_if_nonfinite) {
  const char *op = "diopiClipGradNorm";
  if (!out)
    return ref_fail(op, "out: NULL");
  if (num_grads < 0 || (num_grads && !grads))
    return ref_fail(op, "grads: expected %lld tensors, got a NULL list",
                    (long long)num_grads);
  if (isnan(norm_type))
    return ref_fail(op, "norm_type: expected a number, got nan");
  char name[32];
  for (int64_t i = 0; i < num_grads; i++) { /* every gradient viewable */
    ref_view_t v;
    snprintf(name, sizeof name, "grads[%lld]", (long long)i);
    diopiError_t err = ref_view(ctx, op, name, grads[i], &v);
    if (err)
      return err;
  }
  diopiError_t err = ref_settle(ctx, op);
  if (err)
    return err;
  /* The total: the norm of the per-tensor norms (inf: their max); 0 for
   * no gradients. */
  double acc = norm_start(norm_type);
  for (int64_t i = 0; i < num_grads; i++) {
    ref_view_t v;
    ref_view(ctx, op, "grads", grads[i], &v);
    acc = norm_add(acc, grad_norm(&v, norm_type), norm_type);
  }
  double total = num_grads ? norm_finish(acc, norm_type) : 0;
  *out = total;
  if (error_if_nonfinite && !isfinite(total))
    return ref_fail(op,
                    "grads: the total norm of order %g is %g "
                    "(error_if_nonfinite)",
                    norm_type, total);
  /* min(scale, 1) multiplies every gradient (PyTorch): NaN too. */
  double scale = max_norm / (total + 1e-6);
  for (int64_t i = 0; (scale < 1 || isnan(scale)) && i < num_grads; i++) {
    scale_task_t t = {.scale = scale};
    ref_view(ctx, op, "grads", grads[i], &t.grad);
    if (t.grad.numel && (err = ref_enqueue(ctx, op, run_scale, &t, sizeof t)))
      return err;
  }
  return diopiSuccess;
}
