/* instance_norm (DIOPI's diopiInstanceNorm and its backward) over
 * (N, C, spatial...) strided views of any floating dtype, in double: each
 * (image, channel) row is normalized by its own mean and biased variance,
 * then scaled and shifted by its channel's scale and bias (optional), as
 * PyTorch's instance_norm with input statistics. The backward takes no
 * saved statistics: it recomputes each row's. */
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

/* A (N, C, spatial...) view as rows (n, c) of `count` elements. */
typedef struct rows {
  ref_view_t outer, inner;
} rows_t;

static rows_t rows_of(const ref_view_t *v) {
  rows_t r = {*v, *v};
  r.outer.ndim = 2;
  r.outer.numel = v->shape[0] * v->shape[1];
  r.inner.ndim = v->ndim - 2;
  r.inner.numel = 1;
  for (int d = 2; d < v->ndim; d++) {
    r.inner.shape[d - 2] = v->shape[d];
    r.inner.strides[d - 2] = v->strides[d];
    r.inner.numel *= v->shape[d];
  }
  return r;
}

static double load(const rows_t *r, int64_t row, int64_t k) {
  return ref_load_at(&r->outer,
                     ref_offset(&r->outer, row) + ref_offset(&r->inner, k));
}
static void store(const rows_t *r, int64_t row, int64_t k, double value) {
  ref_store_at(&r->outer, ref_offset(&r->outer, row) + ref_offset(&r->inner, k),
               value);
}

typedef struct instance_task {
  bool backward, has_scale, has_bias, has_grad_scale, has_grad_bias;
  rows_t x, y, dy; /* y: output, or grad_input (optional in the backward) */
  ref_view_t scale, bias, grad_scale, grad_bias;
  bool has_y;
  int64_t rows, channels, count;
  double eps;
} instance_task_t;

/* Row r's mean and 1 / sqrt(biased variance + eps), two passes. */
static void row_stats(const instance_task_t *t, int64_t r, double *mean,
                      double *rstd) {
  double sum = 0, sq = 0, n = (double)t->count;
  for (int64_t k = 0; k < t->count; k++)
    sum += load(&t->x, r, k);
  *mean = sum / n;
  for (int64_t k = 0; k < t->count; k++) {
    double d = load(&t->x, r, k) - *mean;
    sq += d * d;
  }
  *rstd = 1.0 / sqrt(sq / n + t->eps);
}

static double scale_of(const instance_task_t *t, int64_t r) {
  return t->has_scale ? ref_get(&t->scale, r % t->channels) : 1.0;
}

static void forward_row(const instance_task_t *t, int64_t r) {
  double mean, rstd;
  row_stats(t, r, &mean, &rstd);
  double w = scale_of(t, r),
         b = t->has_bias ? ref_get(&t->bias, r % t->channels) : 0.0;
  for (int64_t k = 0; k < t->count; k++)
    store(&t->y, r, k, (load(&t->x, r, k) - mean) * rstd * w + b);
}

/* dx = rstd w (dy - mean(dy) - xhat mean(dy xhat)). */
static void backward_row(const instance_task_t *t, int64_t r) {
  double mean, rstd, s1 = 0, s2 = 0, n = (double)t->count;
  row_stats(t, r, &mean, &rstd);
  for (int64_t k = 0; k < t->count; k++) {
    double d = load(&t->dy, r, k);
    s1 += d;
    s2 += d * (load(&t->x, r, k) - mean) * rstd;
  }
  double w = scale_of(t, r);
  for (int64_t k = 0; k < t->count; k++) {
    double xhat = (load(&t->x, r, k) - mean) * rstd;
    store(&t->y, r, k,
          rstd * w * (load(&t->dy, r, k) - s1 / n - xhat * s2 / n));
  }
}

static void rows_range(void *context, int64_t begin, int64_t end) {
  const instance_task_t *t = context;
  for (int64_t r = begin; r < end; r++)
    if (t->backward)
      backward_row(t, r);
    else
      forward_row(t, r);
}

/* grad_scale[c] = sum dy xhat and grad_bias[c] = sum dy over the rows of
 * channel c. */
static void params_range(void *context, int64_t begin, int64_t end) {
  const instance_task_t *t = context;
  for (int64_t c = begin; c < end; c++) {
    double gw = 0, gb = 0;
    for (int64_t r = c; r < t->rows; r += t->channels) {
      double mean, rstd, row = 0;
      row_stats(t, r, &mean, &rstd);
      for (int64_t k = 0; k < t->count; k++) {
        double d = load(&t->dy, r, k);
        row += d * (load(&t->x, r, k) - mean);
        gb += d;
      }
      gw += row * rstd;
    }
    if (t->has_grad_scale)
      ref_set(&t->grad_scale, c, gw);
    if (t->has_grad_bias)
      ref_set(&t->grad_bias, c, gb);
  }
}

static void run(void *args) {
  instance_task_t *t = args;
  int64_t grain = (1 << 14) / (t->count ? t->count : 1) + 1;
  if (!t->backward || t->has_y)
    ref_parallel_for(t->rows, grain, rows_range, t);
  if (t->has_grad_scale || t->has_grad_bias)
    ref_parallel_for(t->channels, 1, params_range, t);
}

/* An optional per-channel tensor of C elements. */
static diopiError_t per_channel(CTX, const char *op, const char *arg, CT h,
                                ref_view_t *v, bool *present, int64_t c) {
  diopiError_t err = ref_view_optional(ctx, op, arg, h, v, present);
  if (!err && *present)
    err = ref_expect_shape(op, arg, v, &c, 1);
  return err;
}

/* A tensor of input's shape as rows (required unless `present`). */
static diopiError_t like_input(CTX, const char *op, const char *arg, CT h,
                               const ref_view_t *x, rows_t *rows,
                               bool *present) {
  ref_view_t v;
  diopiError_t err = present ? ref_view_optional(ctx, op, arg, h, &v, present)
                             : ref_view(ctx, op, arg, h, &v);
  if (err || (present && !*present))
    return err;
  err = ref_expect_shape(op, arg, &v, x->shape, x->ndim);
  if (!err)
    *rows = rows_of(&v);
  return err;
}

/* The checks both directions share: input (N, C, spatial...) of a
 * floating dtype with a non-empty spatial extent, axis, scale and bias. */
static diopiError_t setup(CTX, const char *op, instance_task_t *t,
                          ref_view_t *x, CT input, int64_t axis, CT scale,
                          CT bias) {
  diopiError_t err = ref_view(ctx, op, "input", input, x);
  if (err)
    return err;
  if (!ref_is_floating(x->dtype))
    return ref_fail(op, "input: expected a floating dtype, got dtype %d",
                    (int)x->dtype);
  if (x->ndim < 3)
    return ref_fail(op, "input: expected (N, C, spatial...), got %d dims",
                    x->ndim);
  /* The channel dim (1) and the first normalized dim (2) both name
   * PyTorch's layout. */
  if (axis != 1 && axis != 2)
    return ref_fail(op,
                    "axis: expected 1 (the channel dim) or 2 (the first "
                    "normalized dim) of (N, C, spatial...), got %lld",
                    (long long)axis);
  t->x = rows_of(x);
  t->rows = t->x.outer.numel;
  t->channels = x->shape[1];
  t->count = t->x.inner.numel;
  if (t->count == 0 && t->rows > 0)
    return ref_fail(op, "input: expected spatial elements, got shape %s",
                    ref_shape_text(x->shape, x->ndim, (char[128]){0}, 128));
  err = per_channel(ctx, op, "scale", scale, &t->scale, &t->has_scale,
                    t->channels);
  if (!err)
    err =
        per_channel(ctx, op, "bias", bias, &t->bias, &t->has_bias, t->channels);
  return err;
}

REF_EXPORT diopiError_t diopiInstanceNorm(CTX, T output, CT input,
                                          const int64_t axis, CT scale, CT bias,
                                          const double eps) {
  const char *op = "diopiInstanceNorm";
  instance_task_t t;
  memset(&t, 0, sizeof t);
  t.eps = eps;
  ref_view_t x;
  diopiError_t err = setup(ctx, op, &t, &x, input, axis, scale, bias);
  if (!err)
    err = like_input(ctx, op, "output", output, &x, &t.y, NULL);
  if (err || t.rows == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiInstanceNormBackward(
    CTX, T grad_input, T grad_scale, T grad_bias, CT grad_output, CT input,
    CT scale, CT bias, const int64_t axis, const double eps) {
  const char *op = "diopiInstanceNormBackward";
  instance_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  t.eps = eps;
  ref_view_t x;
  diopiError_t err = setup(ctx, op, &t, &x, input, axis, scale, bias);
  if (!err)
    err = like_input(ctx, op, "grad_output", grad_output, &x, &t.dy, NULL);
  if (!err)
    err = like_input(ctx, op, "grad_input", grad_input, &x, &t.y, &t.has_y);
  if (!err)
    err = per_channel(ctx, op, "grad_scale", grad_scale, &t.grad_scale,
                      &t.has_grad_scale, t.channels);
  if (!err)
    err = per_channel(ctx, op, "grad_bias", grad_bias, &t.grad_bias,
                      &t.has_grad_bias, t.channels);
  if (err || (!t.has_y && !t.has_grad_scale && !t.has_grad_bias))
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
