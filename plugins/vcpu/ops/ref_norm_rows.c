/* The row-normalization engine of group_norm, instance_norm and rms_norm
 * (ref_norm_rows.h): the views and the forward and backward loops. */
#include "ref_norm_rows.h"

#include <math.h>

#include "ref_enqueue.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_view_more.h"

ref_norm_rows_t ref_norm_split_at(const ref_view_t *v, int at) {
  ref_norm_rows_t r = {*v, *v};
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

ref_norm_rows_t ref_norm_groups_of(const ref_view_t *v, int64_t groups) {
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
  return ref_norm_split_at(&g, 2);
}

typedef ref_norm_task_t task_t;

static double load(const ref_norm_rows_t *rows, int64_t r, int64_t k) {
  return ref_load_at(&rows->outer,
                     ref_offset(&rows->outer, r) + ref_offset(&rows->inner, k));
}
static void store(const ref_norm_rows_t *rows, int64_t r, int64_t k,
                  double value) {
  ref_store_at(&rows->outer,
               ref_offset(&rows->outer, r) + ref_offset(&rows->inner, k),
               value);
}

static int64_t groups_of(const task_t *t) {
  return t->channels / t->per_group;
}

/* The weight index of element k of row r: its channel, or k (rms_norm). */
static int64_t weight_index(const task_t *t, int64_t r, int64_t k) {
  if (t->rms)
    return k;
  return (r % groups_of(t)) * t->per_group + k / t->spatial;
}

/* Row r's mean (0 for rms_norm, and for an empty row) and, when `rstd`,
 * 1 / sqrt(its biased variance, or mean square (rms_norm), + eps): two
 * passes, the variance about the mean. An empty row's rstd is NaN
 * (PyTorch). */
static void row_statistics(const task_t *t, int64_t r, double *mean,
                           double *rstd) {
  double sum = 0, sq = 0, n = (double)t->count;
  for (int64_t k = 0; k < t->count; k++) {
    double x = load(&t->x, r, k);
    sum += x;
    sq += x * x;
  }
  *mean = t->rms || t->count == 0 ? 0 : sum / n;
  if (!rstd)
    return;
  if (!t->rms) {
    sq = 0;
    for (int64_t k = 0; k < t->count; k++) {
      double d = load(&t->x, r, k) - *mean;
      sq += d * d;
    }
  }
  *rstd = 1.0 / sqrt(sq / n + t->eps);
}

static void save_statistics(const task_t *t, int64_t r, double mean,
                            double rstd) {
  if (!t->has_stats)
    return;
  if (t->rms) {
    ref_set(&t->stat_a, r, rstd);
  } else {
    ref_set(&t->stat_a, r, mean);
    ref_set(&t->stat_b, r, rstd);
  }
}

static void forward_row(const task_t *t, int64_t r) {
  double mean, rstd;
  row_statistics(t, r, &mean, &rstd);
  for (int64_t k = 0; k < t->count; k++) {
    double v = (load(&t->x, r, k) - mean) * rstd;
    int64_t c = weight_index(t, r, k);
    if (t->has_weight)
      v *= ref_get(&t->weight, c);
    if (t->has_bias)
      v += ref_get(&t->bias, c);
    store(&t->y, r, k, v);
  }
  save_statistics(t, r, mean, rstd);
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

/* Row r of float32 rows that are contiguous. */
static float *row_f32(const ref_norm_rows_t *rows, int64_t r) {
  return (float *)rows->outer.data + ref_offset(&rows->outer, r);
}

/* row_statistics of a contiguous float32 row x: sums in double over float
 * SIMD blocks. */
static void row_statistics_f32(const task_t *t, const float *x, double *mean,
                               double *rstd) {
  double n = (double)t->count;
  *mean = t->rms || t->count == 0 ? 0 : ref_f32_sum(x, t->count) / n;
  *rstd =
      1.0 / sqrt(ref_f32_sum_sq_dev(x, t->count, (float)*mean) / n + t->eps);
}

/* forward_row for float32 rows contiguous in x and y (weight and bias, when
 * given, float32 and contiguous). */
static void forward_row_f32(const task_t *t, int64_t r) {
  const float *x = row_f32(&t->x, r);
  float *y = row_f32(&t->y, r);
  const float *w = t->has_weight ? (const float *)t->weight.data : NULL,
              *b = t->has_bias ? (const float *)t->bias.data : NULL;
  double mean, rstd;
  row_statistics_f32(t, x, &mean, &rstd);
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
  save_statistics(t, r, mean, rstd);
}

/* Whether forward_row_f32 takes the task's rows. */
static bool rows_f32(const task_t *t) {
  if (!ref_f32_contiguous(&t->x.inner) || !ref_f32_contiguous(&t->y.inner) ||
      (t->has_weight && !ref_f32_contiguous(&t->weight)) ||
      (t->has_bias && !ref_f32_contiguous(&t->bias)))
    return false;
  return t->rms || t->spatial > 0;
}

/* Whether the backward's float32 loops take the task: x, dy and (when
 * wanted) grad_input float32 with contiguous rows, group or instance norm
 * (rms_norm keeps the generic loops). */
static bool backward_f32(const task_t *t) {
  return !t->rms && t->spatial > 0 && ref_f32_contiguous(&t->x.inner) &&
         ref_f32_contiguous(&t->dy.inner) &&
         (!t->has_y || ref_f32_contiguous(&t->y.inner));
}

/* sum(dy) and sum(dy (x - mean)) over n elements, in double. */
static void dy_sums_f32(const float *dy, const float *x, int64_t n, double mean,
                        double *sum_dy, double *sum_dyx) {
  double a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
  for (int64_t k = 0; k < n; k++) {
    a += dy[k];
    b += dy[k] * ((double)x[k] - mean);
  }
  *sum_dy = a;
  *sum_dyx = b;
}

/* Row r's statistics for the backward: recomputed, else saved. */
static double backward_mean(const task_t *t, int64_t r) {
  if (t->rms)
    return 0;
  return t->means ? t->means[r] : ref_get(&t->stat_a, r);
}
static double backward_rstd(const task_t *t, int64_t r) {
  if (t->rstds)
    return t->rstds[r];
  return ref_get(t->rms ? &t->stat_a : &t->stat_b, r);
}

static void statistics_range(void *context, int64_t begin, int64_t end) {
  const task_t *t = context;
  bool f32 = backward_f32(t);
  for (int64_t r = begin; r < end; r++) {
    if (!f32) {
      row_statistics(t, r, &t->means[r], t->rstds ? &t->rstds[r] : NULL);
      continue;
    }
    double rstd; /* as forward_row_f32 computes them */
    row_statistics_f32(t, row_f32(&t->x, r), &t->means[r], &rstd);
    if (t->rstds)
      t->rstds[r] = rstd;
  }
}

/* dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)), dxhat = dy w;
 * rms_norm has no mean term (xhat = x rstd). */
static void backward_row(const task_t *t, int64_t r) {
  double mean = backward_mean(t, r), rstd = backward_rstd(t, r);
  double s1 = 0, s2 = 0, n = (double)t->count;
  for (int64_t k = 0; k < t->count; k++) {
    double xhat = (load(&t->x, r, k) - mean) * rstd;
    double d = load(&t->dy, r, k);
    if (t->has_weight)
      d *= ref_get(&t->weight, weight_index(t, r, k));
    s1 += d;
    s2 += d * xhat;
  }
  for (int64_t k = 0; k < t->count; k++) {
    double xhat = (load(&t->x, r, k) - mean) * rstd;
    double d = load(&t->dy, r, k);
    if (t->has_weight)
      d *= ref_get(&t->weight, weight_index(t, r, k));
    double gi = rstd * (d - (t->rms ? 0 : s1 / n) - xhat * s2 / n);
    store(&t->y, r, k, gi);
  }
}

/* backward_row for backward_f32's tasks: per channel run (a weight
 * index's spatial extent), the sums in double, then the gradient. */
static void backward_row_f32(const task_t *t, int64_t r) {
  double mean = backward_mean(t, r), rstd = backward_rstd(t, r);
  const float *x = row_f32(&t->x, r), *dy = row_f32(&t->dy, r);
  float *gi = row_f32(&t->y, r);
  double s1 = 0, s2 = 0, n = (double)t->count;
  int64_t run = t->spatial;
  for (int64_t k0 = 0; k0 < t->count; k0 += run) {
    double w =
        t->has_weight ? ref_get(&t->weight, weight_index(t, r, k0)) : 1.0;
    double a, b;
    dy_sums_f32(dy + k0, x + k0, run, mean, &a, &b);
    s1 += w * a;
    s2 += w * b * rstd;
  }
  double c1 = s1 / n, c2 = s2 / n;
  for (int64_t k0 = 0; k0 < t->count; k0 += run) {
    double w =
        t->has_weight ? ref_get(&t->weight, weight_index(t, r, k0)) : 1.0;
#pragma omp simd
    for (int64_t k = k0; k < k0 + run; k++) {
      double xhat = ((double)x[k] - mean) * rstd;
      gi[k] = (float)(rstd * (w * dy[k] - c1 - xhat * c2));
    }
  }
}

/* grad_weight[c] = sum dy xhat, grad_bias[c] = sum dy over the elements of
 * weight index c in every row; each row's part of grad_weight is scaled by
 * its rstd once, so an empty group's NaN rstd makes it NaN (PyTorch). */
static void param_grads(const task_t *t, int64_t c) {
  /* rms_norm: element c of every row; else the spatial run of channel c in
   * the rows of its group */
  int64_t first = c, step = 1, r0 = 0, run = 1;
  if (!t->rms) {
    first = c % t->per_group * t->spatial;
    run = t->spatial;
    r0 = c / t->per_group;
    step = groups_of(t);
  }
  double gw = 0, gb = 0;
  bool f32 = backward_f32(t);
  for (int64_t r = r0; r < t->rows; r += step) {
    double mean = backward_mean(t, r), row_gw = 0;
    if (f32) {
      double a;
      dy_sums_f32(row_f32(&t->dy, r) + first, row_f32(&t->x, r) + first, run,
                  mean, &a, &row_gw);
      gb += a;
      gw += row_gw * backward_rstd(t, r);
      continue;
    }
    for (int64_t k = first; k < first + run; k++) {
      double d = load(&t->dy, r, k);
      row_gw += d * (load(&t->x, r, k) - mean);
      gb += d;
    }
    gw += row_gw * backward_rstd(t, r);
  }
  if (t->has_grad_w)
    ref_set(&t->grad_w, c, gw);
  if (t->has_grad_b)
    ref_set(&t->grad_b, c, gb);
}

static void rows_range(void *context, int64_t begin, int64_t end) {
  const task_t *t = context;
  bool f32 = t->backward ? backward_f32(t) : rows_f32(t);
  for (int64_t r = begin; r < end; r++) {
    if (f32 && t->backward)
      backward_row_f32(t, r);
    else if (f32)
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
  task_t *t = args;
  int64_t grain = (1 << 14) / (t->count ? t->count : 1) + 1;
  if (t->means)
    ref_parallel_for(t->rows, grain, statistics_range, t);
  if (!t->backward || t->has_y)
    ref_parallel_for(t->rows, grain, rows_range, t);
  if (t->backward && (t->has_grad_w || t->has_grad_b))
    ref_parallel_for(t->rms ? t->count : t->channels, 1, params_range, t);
}

diopiError_t ref_norm_parameter(diopiContextHandle_t ctx, const char *op,
                                const char *arg, diopiConstTensorHandle_t h,
                                ref_view_t *v, bool *present,
                                const int64_t *shape, int ndim) {
  diopiError_t err = ref_view_optional(ctx, op, arg, h, v, present);
  if (!err && *present)
    err = ref_expect_shape(op, arg, v, shape, ndim);
  return err;
}

diopiError_t ref_norm_enqueue(diopiContextHandle_t ctx, const char *op,
                              const ref_norm_task_t *task) {
  if (!task->backward && task->rows == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, task, sizeof *task);
}
