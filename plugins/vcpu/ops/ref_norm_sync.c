/* Synchronized batch norm's pieces (each rank computes, a collective
 * combines): per-channel statistics, their combination across ranks with
 * the running averages, the elementwise normalization, and the backward's
 * per-channel reductions and elementwise step. Input (N, C, ...), channels
 * along dim 1, values in double, one channel per work item. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

typedef enum sync_kind {
  STATS,
  GATHER,
  ELEMT,
  BACKWARD_REDUCE,
  BACKWARD_ELEMT
} sync_kind_t;

typedef struct sync_task {
  sync_kind_t kind;
  ref_view_t x, y, dy; /* input; out or grad_input; grad_out */
  ref_view_t spatial;  /* x's dims after the channel (offsets) */
  ref_view_t mean, invstd, weight, bias, sum_dy, sum_dy_xmu, grad_w, grad_b;
  ref_view_t mean_all, invstd_all, counts, running_mean, running_var;
  bool has_weight, has_bias, has_running, want_sums, want_w, want_b;
  int64_t n, c, per_image, ranks;
  double eps, momentum;
} sync_task_t;

/* The element offset of (image i, channel c, spatial s) in v. */
static int64_t at(const ref_view_t *v, const ref_view_t *spatial, int64_t i,
                  int64_t c, int64_t s) {
  return i * v->strides[0] + c * v->strides[1] + ref_offset(spatial, s);
}

/* The channel's spatial view of `v`: its dims after the channel. */
static ref_view_t spatial_of(const ref_view_t *v) {
  ref_view_t s = *v;
  s.ndim = v->ndim - 2;
  s.numel = 1;
  for (int d = 0; d < s.ndim; d++) {
    s.shape[d] = v->shape[d + 2];
    s.strides[d] = v->strides[d + 2];
    s.numel *= s.shape[d];
  }
  return s;
}

static double weight_of(const sync_task_t *t, int64_t c) {
  return t->has_weight ? ref_get(&t->weight, c) : 1;
}

static void channel(const sync_task_t *t, int64_t c) {
  if (t->kind == GATHER) { /* combine the ranks' statistics */
    double count = 0, mean = 0, sq = 0;
    for (int64_t r = 0; r < t->ranks; r++) {
      double k = ref_get(&t->counts, r),
             m = ref_get(&t->mean_all, r * t->c + c);
      double is = ref_get(&t->invstd_all, r * t->c + c);
      count += k;
      mean += k * m;
      sq += k * (1 / (is * is) - t->eps + m * m);
    }
    mean /= count;
    double var = sq / count - mean * mean;
    ref_set(&t->mean, c, mean);
    ref_set(&t->invstd, c, 1 / sqrt(var + t->eps));
    if (t->has_running) {
      double unbiased = count > 1 ? var * count / (count - 1) : var;
      ref_set(&t->running_mean, c,
              (1 - t->momentum) * ref_get(&t->running_mean, c) +
                  t->momentum * mean);
      ref_set(&t->running_var, c,
              (1 - t->momentum) * ref_get(&t->running_var, c) +
                  t->momentum * unbiased);
    }
    return;
  }
  if (t->kind == STATS) { /* two passes: mean, then the variance about it */
    double sum = 0, sq = 0, k = (double)(t->n * t->per_image);
    for (int64_t i = 0; i < t->n; i++)
      for (int64_t s = 0; s < t->per_image; s++)
        sum += ref_load_at(&t->x, at(&t->x, &t->spatial, i, c, s));
    double mean = k ? sum / k : 0;
    for (int64_t i = 0; i < t->n; i++)
      for (int64_t s = 0; s < t->per_image; s++) {
        double d = ref_load_at(&t->x, at(&t->x, &t->spatial, i, c, s)) - mean;
        sq += d * d;
      }
    ref_set(&t->mean, c, mean);
    ref_set(&t->invstd, c, 1 / sqrt((k ? sq / k : 0) + t->eps));
    return;
  }
  double mean = ref_get(&t->mean, c), invstd = ref_get(&t->invstd, c);
  ref_view_t dys = spatial_of(t->kind == ELEMT ? &t->x : &t->dy);
  if (t->kind == BACKWARD_REDUCE) {
    double sum_dy = 0, sum_dy_xmu = 0;
    for (int64_t i = 0; i < t->n; i++)
      for (int64_t s = 0; s < t->per_image; s++) {
        double dy = ref_load_at(&t->dy, at(&t->dy, &dys, i, c, s));
        sum_dy += dy;
        sum_dy_xmu +=
            dy * (ref_load_at(&t->x, at(&t->x, &t->spatial, i, c, s)) - mean);
      }
    if (t->want_sums) {
      ref_set(&t->sum_dy, c, sum_dy);
      ref_set(&t->sum_dy_xmu, c, sum_dy_xmu);
    }
    if (t->want_w)
      ref_set(&t->grad_w, c, sum_dy_xmu * invstd);
    if (t->want_b)
      ref_set(&t->grad_b, c, sum_dy);
    return;
  }
  ref_view_t ys = spatial_of(&t->y);
  double w = weight_of(t, c), b = t->has_bias ? ref_get(&t->bias, c) : 0;
  double mean_dy = 0, mean_dy_xmu = 0;
  if (t->kind == BACKWARD_ELEMT) {
    double count = 0;
    for (int64_t r = 0; r < t->ranks; r++)
      count += ref_get(&t->counts, r);
    mean_dy = ref_get(&t->sum_dy, c) / count;
    mean_dy_xmu = ref_get(&t->sum_dy_xmu, c) / count;
  }
  for (int64_t i = 0; i < t->n; i++)
    for (int64_t s = 0; s < t->per_image; s++) {
      double xmu = ref_load_at(&t->x, at(&t->x, &t->spatial, i, c, s)) - mean;
      double v;
      if (t->kind == ELEMT) {
        v = xmu * invstd * w + b;
      } else {
        double dy = ref_load_at(&t->dy, at(&t->dy, &dys, i, c, s));
        v = (dy - mean_dy - xmu * invstd * invstd * mean_dy_xmu) * invstd * w;
      }
      ref_store_at(&t->y, at(&t->y, &ys, i, c, s), v);
    }
}

static void channels_range(void *context, int64_t begin, int64_t end) {
  for (int64_t c = begin; c < end; c++)
    channel(context, c);
}

static void run(void *args) {
  sync_task_t *t = args;
  ref_parallel_for(t->c, 1, channels_range, t);
}

/* Views input (N, C, ...) into t. */
static diopiError_t input_of(diopiContextHandle_t ctx, const char *op,
                             sync_task_t *t, CT input) {
  diopiError_t err = ref_view(ctx, op, "input", input, &t->x);
  if (!err && t->x.ndim < 2)
    err = ref_fail(op, "input: expected (N, C, ...), got %d dims", t->x.ndim);
  if (err)
    return err;
  t->n = t->x.shape[0];
  t->c = t->x.shape[1];
  t->spatial = spatial_of(&t->x);
  t->per_image = t->spatial.numel;
  return diopiSuccess;
}

/* A required (or, with `present`, optional) per-channel tensor. */
static diopiError_t per_channel(diopiContextHandle_t ctx, const char *op,
                                const char *arg, CT h, ref_view_t *v,
                                bool *present, int64_t c) {
  diopiError_t err = present ? ref_view_optional(ctx, op, arg, h, v, present)
                             : ref_view(ctx, op, arg, h, v);
  if (!err && (!present || *present) && v->numel != c)
    err = ref_fail(op,
                   "%s: expected %lld elements (one per channel), got "
                   "%lld",
                   arg, (long long)c, (long long)v->numel);
  return err;
}

/* A tensor of input's shape. */
static diopiError_t like_input(diopiContextHandle_t ctx, const char *op,
                               const char *arg, CT h, ref_view_t *v,
                               const sync_task_t *t) {
  diopiError_t err = ref_view(ctx, op, arg, h, v);
  return err ? err : ref_expect_shape(op, arg, v, t->x.shape, t->x.ndim);
}

static diopiError_t enqueue(CTX, const char *op, sync_task_t *t) {
  return t->c ? ref_enqueue(ctx, op, run, t, sizeof *t) : diopiSuccess;
}

REF_EXPORT diopiError_t diopiBatchNormStats(CTX, T mean, T invstd, CT input,
                                            double eps) {
  const char *op = "diopiBatchNormStats";
  sync_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = STATS;
  t.eps = eps;
  diopiError_t err = input_of(ctx, op, &t, input);
  if (!err)
    err = per_channel(ctx, op, "mean", mean, &t.mean, NULL, t.c);
  if (!err)
    err = per_channel(ctx, op, "invstd", invstd, &t.invstd, NULL, t.c);
  return err ? err : enqueue(ctx, op, &t);
}

REF_EXPORT diopiError_t diopiBatchNormGatherStatsWithCounts(
    CTX, T mean, T invstd, CT input, CT mean_all, CT invstd_all, T running_mean,
    T running_var, float momentum, float eps, CT counts) {
  const char *op = "diopiBatchNormGatherStatsWithCounts";
  sync_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = GATHER;
  t.eps = eps;
  t.momentum = momentum;
  diopiError_t err = input_of(ctx, op, &t, input);
  if (!err)
    err = per_channel(ctx, op, "mean", mean, &t.mean, NULL, t.c);
  if (!err)
    err = per_channel(ctx, op, "invstd", invstd, &t.invstd, NULL, t.c);
  if (!err)
    err = ref_view(ctx, op, "counts", counts, &t.counts);
  t.ranks = t.counts.numel;
  int64_t all_shape[2] = {t.ranks, t.c};
  if (!err)
    err = ref_view(ctx, op, "mean_all", mean_all, &t.mean_all);
  if (!err)
    err = ref_expect_shape(op, "mean_all", &t.mean_all, all_shape, 2);
  if (!err)
    err = ref_view(ctx, op, "invstd_all", invstd_all, &t.invstd_all);
  if (!err)
    err = ref_expect_shape(op, "invstd_all", &t.invstd_all, all_shape, 2);
  bool has_var = false;
  if (!err)
    err = per_channel(ctx, op, "running_mean", running_mean, &t.running_mean,
                      &t.has_running, t.c);
  if (!err)
    err = per_channel(ctx, op, "running_var", running_var, &t.running_var,
                      &has_var, t.c);
  if (!err && has_var != t.has_running)
    err = ref_fail(op, "running_mean, running_var: give both or neither");
  return err ? err : enqueue(ctx, op, &t);
}

REF_EXPORT diopiError_t diopiBatchNormElemt(CTX, T out, CT input, CT weight,
                                            CT bias, CT mean, CT invstd,
                                            float eps) {
  const char *op = "diopiBatchNormElemt";
  sync_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = ELEMT;
  t.eps = eps;
  diopiError_t err = input_of(ctx, op, &t, input);
  if (!err)
    err = like_input(ctx, op, "out", out, &t.y, &t);
  if (!err)
    err = per_channel(ctx, op, "weight", weight, &t.weight, &t.has_weight, t.c);
  if (!err)
    err = per_channel(ctx, op, "bias", bias, &t.bias, &t.has_bias, t.c);
  if (!err)
    err = per_channel(ctx, op, "mean", mean, &t.mean, NULL, t.c);
  if (!err)
    err = per_channel(ctx, op, "invstd", invstd, &t.invstd, NULL, t.c);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.y, &t.x);
  return err ? err : enqueue(ctx, op, &t);
}

/* input_g: sum_dy and sum_dy_xmu; weight_g: grad_weight; bias_g:
 * grad_bias (each written only when asked for). */
REF_EXPORT diopiError_t diopiBatchNormBackwardReduce(
    CTX, T sum_dy, T sum_dy_xmu, T grad_weight, T grad_bias, CT grad_out,
    CT input, CT mean, CT invstd, CT weight, bool input_g, bool weight_g,
    bool bias_g) {
  const char *op = "diopiBatchNormBackwardReduce";
  sync_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = BACKWARD_REDUCE;
  t.want_sums = input_g;
  t.want_w = weight_g;
  t.want_b = bias_g;
  (void)weight; /* the reductions do not scale by it */
  diopiError_t err = input_of(ctx, op, &t, input);
  if (!err)
    err = like_input(ctx, op, "grad_out", grad_out, &t.dy, &t);
  if (!err)
    err = per_channel(ctx, op, "mean", mean, &t.mean, NULL, t.c);
  if (!err)
    err = per_channel(ctx, op, "invstd", invstd, &t.invstd, NULL, t.c);
  if (!err && input_g)
    err = per_channel(ctx, op, "sum_dy", sum_dy, &t.sum_dy, NULL, t.c);
  if (!err && input_g)
    err = per_channel(ctx, op, "sum_dy_xmu", sum_dy_xmu, &t.sum_dy_xmu, NULL,
                      t.c);
  if (!err && weight_g)
    err =
        per_channel(ctx, op, "grad_weight", grad_weight, &t.grad_w, NULL, t.c);
  if (!err && bias_g)
    err = per_channel(ctx, op, "grad_bias", grad_bias, &t.grad_b, NULL, t.c);
  return err ? err : enqueue(ctx, op, &t);
}

/* count: each rank's element count per channel; their sum divides. */
REF_EXPORT diopiError_t diopiBatchNormBackwardElemt(CTX, T grad_input,
                                                    CT grad_out, CT input,
                                                    CT mean, CT invstd,
                                                    CT weight, CT sum_dy,
                                                    CT sum_dy_xmu, CT count) {
  const char *op = "diopiBatchNormBackwardElemt";
  sync_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = BACKWARD_ELEMT;
  diopiError_t err = input_of(ctx, op, &t, input);
  if (!err)
    err = like_input(ctx, op, "grad_input", grad_input, &t.y, &t);
  if (!err)
    err = like_input(ctx, op, "grad_out", grad_out, &t.dy, &t);
  if (!err)
    err = per_channel(ctx, op, "mean", mean, &t.mean, NULL, t.c);
  if (!err)
    err = per_channel(ctx, op, "invstd", invstd, &t.invstd, NULL, t.c);
  if (!err)
    err = per_channel(ctx, op, "weight", weight, &t.weight, &t.has_weight, t.c);
  if (!err)
    err = per_channel(ctx, op, "sum_dy", sum_dy, &t.sum_dy, NULL, t.c);
  if (!err)
    err = per_channel(ctx, op, "sum_dy_xmu", sum_dy_xmu, &t.sum_dy_xmu, NULL,
                      t.c);
  if (!err)
    err = ref_view(ctx, op, "count", count, &t.counts);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "grad_out", &t.y, &t.dy);
  t.ranks = t.counts.numel;
  return err ? err : enqueue(ctx, op, &t);
}
