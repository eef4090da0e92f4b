/* group_norm and rms_norm, forward and backward, in double, any strides.
 * Both see the input as rows of a (outer, inner) split: group_norm's rows
 * are (image, group) with inner = the group's channels x spatial, rms_norm's
 * are the leading dims with inner = normalized_shape. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_scratch.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* A tensor read as rows: row r, element k at ref_offset(outer, r) +
 * ref_offset(inner, k) (group_norm: rows n * G + g over (N, G), elements
 * (c, spatial) of the group). */
typedef struct rows {
  ref_view_t outer, inner;
} rows_t;

/* `v` split after dim `at`. */
static rows_t split_at(const ref_view_t *v, int at) {
  rows_t r = {*v, *v};
  r.outer.ndim = at;
  r.inner.ndim = v->ndim - at;
  r.outer.numel = r.inner.numel = 1;
  for (int d = 0; d < v->ndim; d++) {
    ref_view_t *to = d < at ? &r.outer : &r.inner;
    int i = d < at ? d : d - at;
    to->shape[i] = v->shape[d];
    to->strides[i] = v->strides[d];
    to->numel *= v->shape[d];
  }
  return r;
}

/* (N, C, S...) as rows (N, G) x elements (C / G, S...). */
static rows_t groups_of(const ref_view_t *v, int64_t groups) {
  ref_view_t g = *v; /* (N, G, C / G, S...) */
  g.ndim = v->ndim + 1;
  g.shape[0] = v->shape[0];
  g.strides[0] = v->strides[0];
  g.shape[1] = groups;
  g.strides[1] = v->strides[1] * (v->shape[1] / groups);
  g.shape[2] = v->shape[1] / groups;
  g.strides[2] = v->strides[1];
  for (int d = 2; d < v->ndim; d++) {
    g.shape[d + 1] = v->shape[d];
    g.strides[d + 1] = v->strides[d];
  }
  return split_at(&g, 2);
}

static int64_t offset_of(const rows_t *r, int64_t row, int64_t k) {
  return ref_offset(&r->outer, row) + ref_offset(&r->inner, k);
}

typedef struct norm_task {
  bool rms, backward;
  rows_t x, y, dy;           /* y: out or grad_input */
  ref_view_t weight, bias;   /* per channel (group) or per element (rms) */
  ref_view_t stat_a, stat_b; /* group: mean, rstd (N, G); rms: inv_rms */
  ref_view_t grad_w, grad_b; /* backward, optional */
  /* group_norm's backward from a mean rounded to a 16-bit float: each
   * row's mean recomputed from x in double (scratch, one per row), as
   * PyTorch's 16-bit results are its float32 ones rounded once. A mean off
   * by a 16-bit ulp leaves xhat's mean away from 0, and gradients that
   * cancel to 0 off by far more than the 16-bit tolerance. */
  double *exact_means;
  bool has_weight, has_bias, has_grad_w, has_grad_b;
  int64_t rows, count, channels, per_group, spatial;
  double eps;
} norm_task_t;

/* The weight index of element k of row r: its channel (group_norm) or k
 * itself (rms_norm). */
static int64_t weight_index(const norm_task_t *t, int64_t r, int64_t k) {
  if (t->rms)
    return k;
  int64_t groups = t->channels / t->per_group;
  return (r % groups) * t->per_group + k / t->spatial;
}

static void forward_row(const norm_task_t *t, int64_t r) {
  double mean = 0, sq = 0, n = (double)t->count;
  for (int64_t k = 0; k < t->count; k++) {
    double x = ref_load_at(&t->x.outer, offset_of(&t->x, r, k));
    mean += x;
    sq += x * x;
  }
  /* An empty group's mean is 0 and its variance 0/0, NaN (PyTorch). */
  mean = t->rms || t->count == 0 ? 0 : mean / n;
  if (!t->rms) { /* two passes: the variance about the mean */
    sq = 0;
    for (int64_t k = 0; k < t->count; k++) {
      double d = ref_load_at(&t->x.outer, offset_of(&t->x, r, k)) - mean;
      sq += d * d;
    }
  }
  double rstd = 1.0 / sqrt(sq / n + t->eps);
  for (int64_t k = 0; k < t->count; k++) {
    double v = (ref_load_at(&t->x.outer, offset_of(&t->x, r, k)) - mean) * rstd;
    int64_t c = weight_index(t, r, k);
    if (t->has_weight)
      v *= ref_get(&t->weight, c);
    if (t->has_bias)
      v += ref_get(&t->bias, c);
    ref_store_at(&t->y.outer, offset_of(&t->y, r, k), v);
  }
  if (t->rms) {
    ref_set(&t->stat_a, r, rstd);
  } else {
    ref_set(&t->stat_a, r, mean);
    ref_set(&t->stat_b, r, rstd);
  }
}

/* y[k] = (x[k] - m) s (* w[k]) (+ b[k]) for k < n: rms_norm's row. */
REF_ISA_BODY void normalize_row_body(float *y, const float *x, int64_t n,
                                     float m, float s, const float *w,
                                     const float *b) {
  for (int64_t k = 0; k < n; k++) {
    float v = (x[k] - m) * s;
    v = w ? v * w[k] : v;
    y[k] = b ? v + b[k] : v;
  }
}
REF_ISA_DISPATCH_VOID(static, normalize_row,
                      (float *y, const float *x, int64_t n, float m, float s,
                       const float *w, const float *b),
                      (y, x, n, m, s, w, b))

/* forward_row for float32 rows contiguous in x and y (weight and bias, when
 * given, float32 and contiguous): sums in double over float SIMD blocks. */
static void forward_row_f32(const norm_task_t *t, int64_t r) {
  const float *x = (const float *)t->x.outer.data + ref_offset(&t->x.outer, r);
  float *y = (float *)t->y.outer.data + ref_offset(&t->y.outer, r);
  const float *w = t->has_weight ? (const float *)t->weight.data : NULL,
              *b = t->has_bias ? (const float *)t->bias.data : NULL;
  double n = (double)t->count;
  double mean = t->rms || t->count == 0 ? 0 : ref_f32_sum(x, t->count) / n;
  double sq = ref_f32_sum_sq_dev(x, t->count, (float)mean);
  double rstd = 1.0 / sqrt(sq / n + t->eps);
  float m = (float)mean, s = (float)rstd;
  /* runs of elements sharing a weight index: a channel's spatial extent
   * (group_norm) or single elements (rms_norm) */
  int64_t run = t->rms ? t->count : t->spatial;
  for (int64_t k0 = 0; k0 < t->count; k0 += run) {
    int64_t c = weight_index(t, r, k0);
    if (t->rms) {
      normalize_row(y, x, run, m, s, w, b);
    } else {
      float scale = w ? s * w[c] : s, shift = (b ? b[c] : 0.0f) - m * scale;
      for (int64_t k = k0; k < k0 + run; k++)
        y[k] = x[k] * scale + shift;
    }
  }
  if (t->rms) {
    ref_set(&t->stat_a, r, rstd);
  } else {
    ref_set(&t->stat_a, r, mean);
    ref_set(&t->stat_b, r, rstd);
  }
}

/* Whether forward_row_f32 takes the task's rows. */
static bool rows_f32(const norm_task_t *t) {
  if (!ref_f32_contiguous(&t->x.inner) || !ref_f32_contiguous(&t->y.inner) ||
      (t->has_weight && !ref_f32_contiguous(&t->weight)) ||
      (t->has_bias && !ref_f32_contiguous(&t->bias)))
    return false;
  return t->rms || t->spatial > 0;
}

/* Row r's mean for the backward: the given one, or the one recomputed
 * (group_norm_means) where the given is rounded to a 16-bit float. */
static double backward_mean(const norm_task_t *t, int64_t r) {
  if (t->rms)
    return 0;
  return t->exact_means ? t->exact_means[r] : ref_get(&t->stat_a, r);
}
static void means_range(void *context, int64_t begin, int64_t end) {
  const norm_task_t *t = context;
  for (int64_t r = begin; r < end; r++) {
    double sum = 0;
    for (int64_t k = 0; k < t->count; k++)
      sum += ref_load_at(&t->x.outer, offset_of(&t->x, r, k));
    t->exact_means[r] = sum / (double)t->count;
  }
}

/* dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)), dxhat = dy w;
 * rms_norm has no mean term (xhat = x rstd). */
static void backward_row(const norm_task_t *t, int64_t r) {
  double mean = backward_mean(t, r);
  double rstd = ref_get(t->rms ? &t->stat_a : &t->stat_b, r);
  double s1 = 0, s2 = 0, n = (double)t->count;
  for (int64_t k = 0; k < t->count; k++) {
    double xhat =
        (ref_load_at(&t->x.outer, offset_of(&t->x, r, k)) - mean) * rstd;
    double d = ref_load_at(&t->dy.outer, offset_of(&t->dy, r, k));
    if (t->has_weight)
      d *= ref_get(&t->weight, weight_index(t, r, k));
    s1 += d;
    s2 += d * xhat;
  }
  for (int64_t k = 0; k < t->count; k++) {
    double xhat =
        (ref_load_at(&t->x.outer, offset_of(&t->x, r, k)) - mean) * rstd;
    double d = ref_load_at(&t->dy.outer, offset_of(&t->dy, r, k));
    if (t->has_weight)
      d *= ref_get(&t->weight, weight_index(t, r, k));
    double gi = rstd * (d - (t->rms ? 0 : s1 / n) - xhat * s2 / n);
    ref_store_at(&t->y.outer, offset_of(&t->y, r, k), gi);
  }
}

/* grad_weight[c] = sum dy xhat, grad_bias[c] = sum dy over the elements of
 * weight index c in every row; each row's part of grad_weight is scaled by
 * its rstd once, so an empty group's NaN rstd makes it NaN (PyTorch). */
static void param_grads(const norm_task_t *t, int64_t c) {
  double gw = 0, gb = 0;
  for (int64_t r = 0; r < t->rows; r++) {
    double mean = backward_mean(t, r);
    double rstd = ref_get(t->rms ? &t->stat_a : &t->stat_b, r);
    int64_t first = 0, last = t->count; /* the row's elements of c */
    if (!t->rms) {
      int64_t groups = t->channels / t->per_group;
      if (c / t->per_group != r % groups)
        continue;
      first = c % t->per_group * t->spatial;
      last = first + t->spatial;
    } else {
      first = c;
      last = c + 1;
    }
    double row_gw = 0;
    for (int64_t k = first; k < last; k++) {
      double d = ref_load_at(&t->dy.outer, offset_of(&t->dy, r, k));
      row_gw += d * (ref_load_at(&t->x.outer, offset_of(&t->x, r, k)) - mean);
      gb += d;
    }
    gw += row_gw * rstd;
  }
  if (t->has_grad_w)
    ref_set(&t->grad_w, c, gw);
  if (t->has_grad_b)
    ref_set(&t->grad_b, c, gb);
}

static void rows_range(void *context, int64_t begin, int64_t end) {
  const norm_task_t *t = context;
  bool f32 = !t->backward && rows_f32(t);
  for (int64_t r = begin; r < end; r++) {
    if (f32)
      forward_row_f32(t, r);
    else if (t->backward)
      backward_row(t, r);
    else
      forward_row(t, r);
  }
}
static void params_range(void *context, int64_t begin, int64_t end) {
  for (int64_t c = begin; c < end; c++)
    param_grads(context, c);
}

static void run(void *args) {
  norm_task_t *t = args;
  int64_t grain = (1 << 14) / (t->count ? t->count : 1) + 1;
  if (t->exact_means)
    ref_parallel_for(t->rows, grain, means_range, t);
  ref_parallel_for(t->rows, grain, rows_range, t);
  if (t->backward && (t->has_grad_w || t->has_grad_b))
    ref_parallel_for(t->rms ? t->count : t->channels, 1, params_range, t);
}

/* An optional per-channel (or per-element) tensor of `n` elements. */
static diopiError_t optional_vector(diopiContextHandle_t ctx, const char *op,
                                    const char *arg, CT h, ref_view_t *v,
                                    bool *present, const int64_t *shape,
                                    int ndim) {
  diopiError_t err = ref_view_optional(ctx, op, arg, h, v, present);
  if (!err && *present)
    err = ref_expect_shape(op, arg, v, shape, ndim);
  return err;
}

/* A backward over no rows still runs: grad_weight and grad_bias are sums
 * over an empty batch, zeros. A forward over empty rows writes their
 * statistics. */
static diopiError_t enqueue(CTX, const char *op, norm_task_t *t) {
  if (!t->backward && t->rows == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, t, sizeof *t);
}

/* group_norm's checks: input (N, C, ...) with C divisible by num_groups;
 * weight, bias (C); mean, rstd (N, G). */
static diopiError_t group_setup(diopiContextHandle_t ctx, const char *op,
                                norm_task_t *t, CT input, int64_t num_groups,
                                CT weight, CT bias, const char *mean_name,
                                CT mean, const char *rstd_name, CT rstd) {
  ref_view_t x;
  diopiError_t err = ref_view(ctx, op, "input", input, &x);
  if (!err && x.ndim < 2)
    err = ref_fail(op, "input: expected (N, C, ...), got %d dims", x.ndim);
  if (!err && (num_groups < 1 || x.shape[1] % num_groups))
    err = ref_fail(op, "num_groups: %lld does not divide the %lld channels",
                   (long long)num_groups, (long long)x.shape[1]);
  if (err)
    return err;
  int64_t c = x.shape[1], stat_shape[2] = {x.shape[0], num_groups};
  t->channels = c;
  t->per_group = c / num_groups;
  t->spatial = 1; /* from the dims, not numel: N or C may be 0 */
  for (int d = 2; d < x.ndim; d++)
    t->spatial *= x.shape[d];
  t->x = groups_of(&x, num_groups);
  t->rows = t->x.outer.numel;
  t->count = t->x.inner.numel;
  err = optional_vector(ctx, op, "weight", weight, &t->weight, &t->has_weight,
                        &c, 1);
  if (!err)
    err = optional_vector(ctx, op, "bias", bias, &t->bias, &t->has_bias, &c, 1);
  if (!err)
    err = ref_view(ctx, op, mean_name, mean, &t->stat_a);
  if (!err)
    err = ref_expect_shape(op, mean_name, &t->stat_a, stat_shape, 2);
  if (!err)
    err = ref_view(ctx, op, rstd_name, rstd, &t->stat_b);
  if (!err)
    err = ref_expect_shape(op, rstd_name, &t->stat_b, stat_shape, 2);
  return err;
}

/* A tensor of input's shape (out, grad_input, grad_output) as rows. */
static diopiError_t like_input(diopiContextHandle_t ctx, const char *op,
                               const char *arg, CT h, CT input, rows_t *rows,
                               const norm_task_t *t, int64_t num_groups,
                               int at) {
  ref_view_t v, x;
  diopiError_t err = ref_view(ctx, op, arg, h, &v);
  if (!err)
    err = ref_view(ctx, op, "input", input, &x);
  if (!err)
    err = ref_expect_shape(op, arg, &v, x.shape, x.ndim);
  if (!err)
    *rows = t->rms ? split_at(&v, at) : groups_of(&v, num_groups);
  return err;
}

REF_EXPORT diopiError_t diopiGroupNorm(CTX, T out, T save_mean, T save_invstd,
                                       CT input, CT weight, CT bias,
                                       int64_t num_groups, double eps) {
  const char *op = "diopiGroupNorm";
  norm_task_t t;
  memset(&t, 0, sizeof t);
  t.eps = eps;
  diopiError_t err =
      group_setup(ctx, op, &t, input, num_groups, weight, bias, "save_mean",
                  save_mean, "save_invstd", save_invstd);
  if (!err)
    err = like_input(ctx, op, "out", out, input, &t.y, &t, num_groups, 0);
  return err ? err : enqueue(ctx, op, &t);
}

REF_EXPORT diopiError_t diopiGroupNormBackward(CTX, T grad_input, T grad_weight,
                                               T grad_bias, CT grad_output,
                                               CT input, CT weight, CT mean,
                                               CT rstd, int64_t num_groups) {
  const char *op = "diopiGroupNormBackward";
  norm_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  diopiError_t err = group_setup(ctx, op, &t, input, num_groups, weight, NULL,
                                 "mean", mean, "rstd", rstd);
  if (!err)
    err = like_input(ctx, op, "grad_input", grad_input, input, &t.y, &t,
                     num_groups, 0);
  if (!err)
    err = like_input(ctx, op, "grad_output", grad_output, input, &t.dy, &t,
                     num_groups, 0);
  if (!err)
    err = optional_vector(ctx, op, "grad_weight", grad_weight, &t.grad_w,
                          &t.has_grad_w, &t.channels, 1);
  if (!err)
    err = optional_vector(ctx, op, "grad_bias", grad_bias, &t.grad_b,
                          &t.has_grad_b, &t.channels, 1);
  if (!err && (t.stat_a.dtype == diopi_dtype_float16 ||
               t.stat_a.dtype == diopi_dtype_bfloat16))
    err = ref_scratch(ctx, op, (size_t)t.rows * sizeof(double),
                      (void **)&t.exact_means);
  return err ? err : enqueue(ctx, op, &t);
}

/* rms_norm's checks: input's trailing dims are normalized_shape; weight
 * and bias (optional) of that shape; inv_rms one value per row. */
static diopiError_t rms_setup(diopiContextHandle_t ctx, const char *op,
                              norm_task_t *t, CT input,
                              diopiSize_t normalized_shape, CT weight, CT bias,
                              CT inv_rms, int *at) {
  ref_view_t x;
  diopiError_t err = ref_view(ctx, op, "input", input, &x);
  if (!err && (normalized_shape.len < 1 || normalized_shape.len > x.ndim))
    err = ref_fail(op, "normalized_shape: %lld dims for an input of %d",
                   (long long)normalized_shape.len, x.ndim);
  if (err)
    return err;
  *at = x.ndim - (int)normalized_shape.len;
  for (int d = *at; d < x.ndim; d++)
    if (x.shape[d] != normalized_shape.data[d - *at]) {
      char want[128], have[128];
      return ref_fail(op,
                      "normalized_shape: %s is not the trailing dims of "
                      "input %s",
                      ref_shape_text(normalized_shape.data,
                                     (int)normalized_shape.len, want,
                                     sizeof want),
                      ref_shape_text(x.shape, x.ndim, have, sizeof have));
    }
  t->rms = true;
  t->x = split_at(&x, *at);
  t->rows = t->x.outer.numel;
  t->count = t->x.inner.numel;
  err = optional_vector(ctx, op, "weight", weight, &t->weight, &t->has_weight,
                        normalized_shape.data, (int)normalized_shape.len);
  if (!err)
    err = optional_vector(ctx, op, "bias", bias, &t->bias, &t->has_bias,
                          normalized_shape.data, (int)normalized_shape.len);
  if (!err)
    err = ref_view(ctx, op, "inv_rms", inv_rms, &t->stat_a);
  if (!err && t->stat_a.numel != t->rows)
    err = ref_fail(op,
                   "inv_rms: expected %lld elements (one per row), got "
                   "%lld",
                   (long long)t->rows, (long long)t->stat_a.numel);
  return err;
}

REF_EXPORT diopiError_t diopiRMSNorm(CTX, T out, T inv_rms, CT input,
                                     diopiSize_t normalized_shape, CT weight,
                                     CT bias, double eps) {
  const char *op = "diopiRMSNorm";
  norm_task_t t;
  memset(&t, 0, sizeof t);
  t.eps = eps;
  int at = 0;
  diopiError_t err = rms_setup(ctx, op, &t, input, normalized_shape, weight,
                               bias, inv_rms, &at);
  if (!err)
    err = like_input(ctx, op, "out", out, input, &t.y, &t, 0, at);
  return err ? err : enqueue(ctx, op, &t);
}

REF_EXPORT diopiError_t diopiRMSNormBackward(
    CTX, T grad_input, T grad_weight, T grad_bias, CT grad_output, CT input,
    CT weight, CT bias, CT inv_rms, diopiSize_t normalized_shape, double eps) {
  const char *op = "diopiRMSNormBackward";
  (void)eps; /* inv_rms holds it */
  norm_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  int at = 0;
  diopiError_t err = rms_setup(ctx, op, &t, input, normalized_shape, weight,
                               bias, inv_rms, &at);
  if (!err)
    err = like_input(ctx, op, "grad_input", grad_input, input, &t.y, &t, 0, at);
  if (!err)
    err = like_input(ctx, op, "grad_output", grad_output, input, &t.dy, &t, 0,
                     at);
  if (!err)
    err = optional_vector(ctx, op, "grad_weight", grad_weight, &t.grad_w,
                          &t.has_grad_w, normalized_shape.data,
                          (int)normalized_shape.len);
  if (!err)
    err = optional_vector(ctx, op, "grad_bias", grad_bias, &t.grad_b,
                          &t.has_grad_b, normalized_shape.data,
                          (int)normalized_shape.len);
  return err ? err : enqueue(ctx, op, &t);
}
