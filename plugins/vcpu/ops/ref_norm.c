/* layer_norm and batch_norm, forward and backward. Statistics in double.
 * layer_norm: a row is the trailing normalized_shape; rows split across the
 * worker pool. batch_norm: a channel is dim 1 of (N, C, *); channels split
 * across the pool. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_tensor.h"

typedef struct norm_task {
  ref_view_t out, mean, invstd, input, grad_output, weight, bias;
  ref_view_t grad_weight, grad_bias;
  bool has_out, has_mean, has_invstd, has_weight, has_bias;
  bool has_grad_weight, has_grad_bias;
  /* batch_norm */
  ref_view_t running_mean, running_var;
  bool has_running_mean, has_running_var, training;
  double momentum, eps;
  int64_t rows, row; /* layer_norm: rows x row; batch_norm: N, C, inner */
  int64_t n, c, inner;
} norm_task_t;

/* ---- float32 row kernels ------------------------------------------------- */

/* Whether the op's element-sized tensors are contiguous float32 (the per-row
 * and per-channel statistics are read and written through ref_get/ref_set
 * whatever their dtype). */
static bool fast_f32(const norm_task_t *t, bool backward) {
  const ref_view_t *v[] = {&t->input, &t->out, &t->grad_output};
  const bool has[] = {true, t->has_out, backward};
  for (int i = 0; i < 3; i++)
    if (has[i] && !ref_f32_contiguous(v[i]))
      return false;
  return true;
}

/* The mean and variance of x[0, n); for n = 0, mean 0 and variance NaN
 * (0/0), as PyTorch reports an empty row. */
static void stats_f32(const float *x, int64_t n, double *mean, double *var) {
  if (n == 0) {
    *mean = 0;
    *var = NAN;
    return;
  }
  *mean = ref_f32_sum(x, n) / (double)n;
  float center = (float)*mean;
  double shift = *mean - center;
  *var = ref_f32_sum_sq_dev(x, n, center) / (double)n - shift * shift;
}

/* sum(g[k] w[k]) and sum(g[k] w[k] (x[k] - center)) over [0, n); w NULL
 * stands for ones. Blocked like ref_f32.h. */
static void grad_sums_f32(const float *restrict g, const float *restrict w,
                          const float *restrict x, int64_t n, float center,
                          double *sum_gw, double *sum_gwx) {
  double a = 0, b = 0;
  for (int64_t o = 0; o < n; o += REF_F32_BLOCK) {
    int64_t e = n - o < REF_F32_BLOCK ? n : o + REF_F32_BLOCK;
    float sa = 0, sb = 0;
    if (w) {
#pragma omp simd reduction(+ : sa, sb)
      for (int64_t k = o; k < e; k++) {
        float gw = g[k] * w[k];
        sa += gw;
        sb += gw * (x[k] - center);
      }
    } else {
#pragma omp simd reduction(+ : sa, sb)
      for (int64_t k = o; k < e; k++) {
        sa += g[k];
        sb += g[k] * (x[k] - center);
      }
    }
    a += sa;
    b += sb;
  }
  *sum_gw = a;
  *sum_gwx = b;
}

/* y[k] = (x[k] - center) * scale + shift, then times w[k] and plus b[k]
 * where given. y may be x. */
REF_ISA_BODY void affine_f32_body(float *y, const float *x, int64_t n,
                                  float center, float scale, float shift,
                                  const float *restrict w,
                                  const float *restrict b) {
  for (int64_t k = 0; k < n; k++)
    y[k] = (x[k] - center) * scale + shift;
  if (w)
    for (int64_t k = 0; k < n; k++)
      y[k] *= w[k];
  if (b)
    for (int64_t k = 0; k < n; k++)
      y[k] += b[k];
}
REF_ISA_DISPATCH_VOID(static, affine_f32,
                      (float *y, const float *x, int64_t n, float center,
                       float scale, float shift, const float *restrict w,
                       const float *restrict b),
                      (y, x, n, center, scale, shift, w, b))

typedef diopiConstTensorHandle_t CT;

/* The forwards' common tensors; out shaped like input. */
static diopiError_t forward_views(diopiContextHandle_t ctx, const char *op,
                                  norm_task_t *t, CT out, CT save_mean,
                                  CT save_invstd, CT input, CT weight,
                                  CT bias) {
  const ref_arg_t args[] = {
      {"input", input, &t->input, NULL},
      {"out", out, &t->out, NULL},
      {"save_mean", save_mean, &t->mean, &t->has_mean},
      {"save_invstd", save_invstd, &t->invstd, &t->has_invstd},
      {"weight", weight, &t->weight, &t->has_weight},
      {"bias", bias, &t->bias, &t->has_bias}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  return err ? err
             : ref_expect_shape(op, "out", &t->out, t->input.shape,
                                t->input.ndim);
}

/* The backwards' common tensors; grad_output, and grad_input when given,
 * shaped like input. */
static diopiError_t backward_views(diopiContextHandle_t ctx, const char *op,
                                   norm_task_t *t, CT grad_input,
                                   CT grad_weight, CT grad_bias, CT grad_output,
                                   CT input, CT weight) {
  const ref_arg_t args[] = {
      {"input", input, &t->input, NULL},
      {"grad_output", grad_output, &t->grad_output, NULL},
      {"grad_input", grad_input, &t->out, &t->has_out},
      {"grad_weight", grad_weight, &t->grad_weight, &t->has_grad_weight},
      {"grad_bias", grad_bias, &t->grad_bias, &t->has_grad_bias},
      {"weight", weight, &t->weight, &t->has_weight}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (!err)
    err = ref_expect_shape(op, "grad_output", &t->grad_output, t->input.shape,
                           t->input.ndim);
  if (!err && t->has_out)
    err = ref_expect_shape(op, "grad_input", &t->out, t->input.shape,
                           t->input.ndim);
  return err;
}

/* ---- layer_norm ---------------------------------------------------------- */

static void layer_forward(void *context, int64_t begin, int64_t end) {
  const norm_task_t *t = context;
  for (int64_t r = begin; r < end; r++) {
    int64_t base = r * t->row;
    double sum = 0, sq = 0;
    for (int64_t k = 0; k < t->row; k++)
      sum += ref_get(&t->input, base + k);
    /* An empty row: mean 0 and variance 0/0 (NaN), as PyTorch reports. */
    double mean = t->row ? sum / (double)t->row : 0;
    for (int64_t k = 0; k < t->row; k++) {
      double d = ref_get(&t->input, base + k) - mean;
      sq += d * d;
    }
    double rstd = 1.0 / sqrt(sq / (double)t->row + t->eps);
    for (int64_t k = 0; k < t->row; k++) {
      double y = (ref_get(&t->input, base + k) - mean) * rstd;
      if (t->has_weight)
        y *= ref_get(&t->weight, k);
      if (t->has_bias)
        y += ref_get(&t->bias, k);
      ref_set(&t->out, base + k, y);
    }
    if (t->has_mean)
      ref_set(&t->mean, r, mean);
    if (t->has_invstd)
      ref_set(&t->invstd, r, rstd);
  }
}

static void layer_forward_f32(void *context, int64_t begin, int64_t end) {
  const norm_task_t *t = context;
  const float *w = t->has_weight ? (const float *)t->weight.data : NULL;
  const float *b = t->has_bias ? (const float *)t->bias.data : NULL;
  for (int64_t r = begin; r < end; r++) {
    const float *x = (const float *)t->input.data + r * t->row;
    double mean, var;
    stats_f32(x, t->row, &mean, &var);
    double rstd = 1.0 / sqrt(var + t->eps);
    float center = (float)mean;
    affine_f32((float *)t->out.data + r * t->row, x, t->row, center,
               (float)rstd, (float)((center - mean) * rstd), w, b);
    if (t->has_mean)
      ref_set(&t->mean, r, mean);
    if (t->has_invstd)
      ref_set(&t->invstd, r, rstd);
  }
}

/* Whether weight and bias (when given) are contiguous float32 too. */
static bool layer_params_f32(const norm_task_t *t) {
  return fast_f32(t, false) &&
         (!t->has_weight || ref_f32_contiguous(&t->weight)) &&
         (!t->has_bias || ref_f32_contiguous(&t->bias));
}

static void run_layer_forward(void *args) {
  norm_task_t *t = args;
  ref_parallel_for(t->rows, (1 << 14) / (t->row + 1) + 1,
                   layer_params_f32(t) ? layer_forward_f32 : layer_forward, t);
}

/* gi = rstd * (g w - mean(g w) - xhat mean(g w xhat)) per row. */
static void layer_backward_rows(void *context, int64_t begin, int64_t end) {
  const norm_task_t *t = context;
  for (int64_t r = begin; r < end; r++) {
    int64_t base = r * t->row;
    double mean = ref_get(&t->mean, r), rstd = ref_get(&t->invstd, r);
    double a = 0, b = 0;
    for (int64_t k = 0; k < t->row; k++) {
      double gw = ref_get(&t->grad_output, base + k) *
                  (t->has_weight ? ref_get(&t->weight, k) : 1.0);
      double xhat = (ref_get(&t->input, base + k) - mean) * rstd;
      a += gw;
      b += gw * xhat;
    }
    a /= (double)t->row;
    b /= (double)t->row;
    for (int64_t k = 0; k < t->row; k++) {
      double gw = ref_get(&t->grad_output, base + k) *
                  (t->has_weight ? ref_get(&t->weight, k) : 1.0);
      double xhat = (ref_get(&t->input, base + k) - mean) * rstd;
      ref_set(&t->out, base + k, rstd * (gw - a - xhat * b));
    }
  }
}

/* The same as gi = g w rstd - (x - c) rstd^2 b + ((mean - c) rstd^2 b -
 * rstd a), c the mean rounded to float (no cancellation for large means). */
static void layer_backward_rows_f32(void *context, int64_t begin, int64_t end) {
  const norm_task_t *t = context;
  const float *w = t->has_weight ? (const float *)t->weight.data : NULL;
  for (int64_t r = begin; r < end; r++) {
    const float *g = (const float *)t->grad_output.data + r * t->row;
    const float *x = (const float *)t->input.data + r * t->row;
    float *gi = (float *)t->out.data + r * t->row; /* may be g */
    double mean = ref_get(&t->mean, r), rstd = ref_get(&t->invstd, r);
    float center = (float)mean;
    double a, b;
    grad_sums_f32(g, w, x, t->row, center, &a, &b);
    a /= (double)t->row;
    b = (b - a * (double)t->row * (mean - center)) * rstd / (double)t->row;
    float gain = (float)rstd, slope = (float)(rstd * rstd * b);
    float offset = (float)((mean - center) * rstd * rstd * b - rstd * a);
    if (w)
      for (int64_t k = 0; k < t->row; k++)
        gi[k] = g[k] * w[k] * gain - (x[k] - center) * slope + offset;
    else
      for (int64_t k = 0; k < t->row; k++)
        gi[k] = g[k] * gain - (x[k] - center) * slope + offset;
  }
}

/* grad_weight/grad_bias: columns summed over rows. */
static void layer_backward_cols(void *context, int64_t begin, int64_t end) {
  const norm_task_t *t = context;
  for (int64_t k = begin; k < end; k++) {
    double gw = 0, gb = 0;
    for (int64_t r = 0; r < t->rows; r++) {
      double g = ref_get(&t->grad_output, r * t->row + k);
      gw += g * (ref_get(&t->input, r * t->row + k) - ref_get(&t->mean, r)) *
            ref_get(&t->invstd, r);
      gb += g;
    }
    if (t->has_grad_weight)
      ref_set(&t->grad_weight, k, gw);
    if (t->has_grad_bias)
      ref_set(&t->grad_bias, k, gb);
  }
}

/* The same a block of REF_F32_BLOCK columns at a time, row by row, in
 * float32 as PyTorch 1.13's CPU kernel sums them (one thread: rows in
 * order): gw = fma(g, fma(rstd, x, -rstd mean), gw), gb += g. Its float32
 * rounding over thousands of rows exceeds DIOPI's rtol of 1e-5, so a sum
 * more exact than PyTorch's fails its cases. */
static void layer_backward_cols_f32(void *context, int64_t begin, int64_t end) {
  const norm_task_t *t = context;
  float gw[REF_F32_BLOCK], gb[REF_F32_BLOCK];
  for (int64_t c0 = begin; c0 < end; c0 += REF_F32_BLOCK) {
    int64_t n = end - c0 < REF_F32_BLOCK ? end - c0 : REF_F32_BLOCK;
    memset(gw, 0, sizeof gw);
    memset(gb, 0, sizeof gb);
    for (int64_t r = 0; r < t->rows; r++) {
      const float *restrict g =
          (const float *)t->grad_output.data + r * t->row + c0;
      const float *restrict x = (const float *)t->input.data + r * t->row + c0;
      float scale = (float)ref_get(&t->invstd, r);
      float shift = -scale * (float)ref_get(&t->mean, r);
      for (int64_t k = 0; k < n; k++) {
        gw[k] = fmaf(g[k], fmaf(scale, x[k], shift), gw[k]);
        gb[k] += g[k];
      }
    }
    for (int64_t k = 0; k < n; k++) {
      if (t->has_grad_weight)
        ref_set(&t->grad_weight, c0 + k, gw[k]);
      if (t->has_grad_bias)
        ref_set(&t->grad_bias, c0 + k, gb[k]);
    }
  }
}

static void run_layer_backward(void *args) {
  norm_task_t *t = args;
  bool fast =
      fast_f32(t, true) && (!t->has_weight || ref_f32_contiguous(&t->weight));
  int64_t grain = (1 << 14) / (t->row + 1) + 1;
  if (t->has_out)
    ref_parallel_for(t->rows, grain,
                     fast ? layer_backward_rows_f32 : layer_backward_rows, t);
  if (t->has_grad_weight || t->has_grad_bias)
    ref_parallel_for(t->row, (1 << 14) / (t->rows + 1) + 1,
                     fast ? layer_backward_cols_f32 : layer_backward_cols, t);
}

/* Splits input's shape at normalized_shape: rows x row; checks the
 * per-row and per-element tensors. */
static diopiError_t layer_shapes(const char *op, norm_task_t *t,
                                 diopiSize_t normalized_shape) {
  int64_t k = normalized_shape.len;
  if (k < 0 || k > t->input.ndim || (k && !normalized_shape.data))
    return ref_fail(op, "normalized_shape: %lld dims for an input of %d",
                    (long long)k, t->input.ndim);
  int lead = t->input.ndim - (int)k;
  for (int i = 0; i < k; i++)
    if (t->input.shape[lead + i] != normalized_shape.data[i]) {
      char want[128], have[128];
      return ref_fail(
          op, "input: shape %s does not end in normalized_shape %s",
          ref_shape_text(t->input.shape, t->input.ndim, have, sizeof have),
          ref_shape_text(normalized_shape.data, (int)k, want, sizeof want));
    }
  t->rows = 1;
  for (int i = 0; i < lead; i++)
    t->rows *= t->input.shape[i];
  t->row = t->rows ? t->input.numel / t->rows : 1;
  diopiError_t err = diopiSuccess;
  const ref_view_t *per_elem[] = {&t->weight, &t->bias, &t->grad_weight,
                                  &t->grad_bias};
  const bool has_elem[] = {t->has_weight, t->has_bias, t->has_grad_weight,
                           t->has_grad_bias};
  const char *elem_names[] = {"weight", "bias", "grad_weight", "grad_bias"};
  for (int i = 0; !err && i < 4; i++)
    if (has_elem[i] && per_elem[i]->numel != t->row)
      err = ref_expect_shape(op, elem_names[i], per_elem[i],
                             normalized_shape.data, (int)k);
  const ref_view_t *per_row[] = {&t->mean, &t->invstd};
  const bool has_row[] = {t->has_mean, t->has_invstd};
  const char *row_names[] = {"save_mean", "save_invstd"};
  for (int i = 0; !err && i < 2; i++)
    if (has_row[i] && per_row[i]->numel != t->rows)
      err =
          ref_expect_shape(op, row_names[i], per_row[i], t->input.shape, lead);
  return err;
}

REF_EXPORT diopiError_t diopiLayerNorm(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiTensorHandle_t save_mean, diopiTensorHandle_t save_invstd,
    diopiConstTensorHandle_t input, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t bias, diopiSize_t normalized_shape, double eps) {
  const char *op = "diopiLayerNorm";
  norm_task_t t;
  memset(&t, 0, sizeof t);
  t.eps = eps;
  diopiError_t err = forward_views(ctx, op, &t, out, save_mean, save_invstd,
                                   input, weight, bias);
  if (!err)
    err = layer_shapes(op, &t, normalized_shape);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input);
  if (err || t.rows == 0) /* empty rows still get their statistics */
    return err;
  return ref_enqueue(ctx, op, run_layer_forward, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiLayerNormBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiTensorHandle_t grad_weight, diopiTensorHandle_t grad_bias,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t weight, diopiConstTensorHandle_t bias,
    diopiConstTensorHandle_t mean, diopiConstTensorHandle_t rstd,
    diopiSize_t normalized_shape) {
  const char *op = "diopiLayerNormBackward";
  (void)bias; /* the gradient does not depend on it */
  norm_task_t t;
  memset(&t, 0, sizeof t);
  const ref_arg_t stats[] = {{"mean", mean, &t.mean, NULL},
                             {"rstd", rstd, &t.invstd, NULL}};
  diopiError_t err = backward_views(ctx, op, &t, grad_input, grad_weight,
                                    grad_bias, grad_output, input, weight);
  if (!err)
    err = ref_views(ctx, op, stats, REF_COUNT(stats));
  t.has_mean = t.has_invstd = true;
  if (!err)
    err = layer_shapes(op, &t, normalized_shape);
  if (err)
    return err;
  return ref_enqueue(ctx, op, run_layer_backward, &t, sizeof t);
}

/* ---- batch_norm ---------------------------------------------------------- */

static int64_t bn_index(const norm_task_t *t, int64_t n, int64_t c, int64_t s) {
  return (n * t->c + c) * t->inner + s;
}

static double bn_param(const ref_view_t *v, bool present, int64_t c,
                       double if_absent) {
  return present ? ref_get(v, c) : if_absent;
}

/* Channel c's mean and (biased) variance over N and inner. */
static void bn_stats(const norm_task_t *t, bool fast, int64_t c, double *mean,
                     double *var) {
  double count = (double)(t->n * t->inner), sum = 0, sq = 0;
  if (fast) {
    const float *x = (const float *)t->input.data + c * t->inner;
    int64_t slab = t->c * t->inner;
    for (int64_t n = 0; n < t->n; n++)
      sum += ref_f32_sum(x + n * slab, t->inner);
    *mean = sum / count;
    float center = (float)*mean;
    for (int64_t n = 0; n < t->n; n++)
      sq += ref_f32_sum_sq_dev(x + n * slab, t->inner, center);
    double shift = *mean - center;
    *var = sq / count - shift * shift;
    return;
  }
  for (int64_t n = 0; n < t->n; n++)
    for (int64_t s = 0; s < t->inner; s++)
      sum += ref_get(&t->input, bn_index(t, n, c, s));
  *mean = sum / count;
  for (int64_t n = 0; n < t->n; n++)
    for (int64_t s = 0; s < t->inner; s++) {
      double d = ref_get(&t->input, bn_index(t, n, c, s)) - *mean;
      sq += d * d;
    }
  *var = sq / count;
}

/* Channel c of out = (input - mean) * scale + shift. */
static void bn_apply(const norm_task_t *t, bool fast, int64_t c, double mean,
                     double scale, double shift) {
  for (int64_t n = 0; n < t->n; n++) {
    int64_t i = bn_index(t, n, c, 0);
    if (fast) {
      float center = (float)mean;
      affine_f32((float *)t->out.data + i, (const float *)t->input.data + i,
                 t->inner, center, (float)scale,
                 (float)(shift + (center - mean) * scale), NULL, NULL);
      continue;
    }
    for (int64_t s = 0; s < t->inner; s++)
      ref_set(&t->out, i + s,
              (ref_get(&t->input, i + s) - mean) * scale + shift);
  }
}

static void bn_forward(void *context, int64_t begin, int64_t end) {
  const norm_task_t *t = context;
  double count = (double)(t->n * t->inner);
  bool fast = fast_f32(t, false);
  for (int64_t c = begin; c < end; c++) {
    double mean, invstd;
    if (t->training) {
      double var;
      bn_stats(t, fast, c, &mean, &var);
      invstd = 1.0 / sqrt(var + t->eps);
      if (t->has_mean)
        ref_set(&t->mean, c, mean);
      if (t->has_invstd)
        ref_set(&t->invstd, c, invstd);
      double m = t->momentum;
      if (t->has_running_mean)
        ref_set(&t->running_mean, c,
                (1 - m) * ref_get(&t->running_mean, c) + m * mean);
      if (t->has_running_var)
        ref_set(&t->running_var, c,
                (1 - m) * ref_get(&t->running_var, c) +
                    m * var * count / (count > 1 ? count - 1 : 1));
    } else {
      mean = ref_get(&t->running_mean, c);
      invstd = 1.0 / sqrt(ref_get(&t->running_var, c) + t->eps);
    }
    double w = bn_param(&t->weight, t->has_weight, c, 1.0);
    double b = bn_param(&t->bias, t->has_bias, c, 0.0);
    bn_apply(t, fast, c, mean, invstd * w, b);
  }
}

static void run_bn_forward(void *args) {
  norm_task_t *t = args;
  ref_parallel_for(t->c, (1 << 14) / (t->n * t->inner + 1) + 1, bn_forward, t);
}

/* Channel c's sum(g) and sum(g * (x - mean)). */
static void bn_grad_sums(const norm_task_t *t, bool fast, int64_t c,
                         double mean, double *sum_g, double *sum_gx) {
  double a = 0, b = 0;
  if (fast) {
    float center = (float)mean;
    for (int64_t n = 0; n < t->n; n++) {
      int64_t i = bn_index(t, n, c, 0);
      double sa, sb;
      grad_sums_f32((const float *)t->grad_output.data + i, NULL,
                    (const float *)t->input.data + i, t->inner, center, &sa,
                    &sb);
      a += sa;
      b += sb;
    }
    *sum_g = a;
    *sum_gx = b - a * (mean - center);
    return;
  }
  for (int64_t n = 0; n < t->n; n++)
    for (int64_t s = 0; s < t->inner; s++) {
      int64_t i = bn_index(t, n, c, s);
      double g = ref_get(&t->grad_output, i);
      a += g;
      b += g * (ref_get(&t->input, i) - mean);
    }
  *sum_g = a;
  *sum_gx = b;
}

/* Channel c of grad_input = g * gain - (x - mean) * slope + offset. */
static void bn_grad_input(const norm_task_t *t, bool fast, int64_t c,
                          double mean, double gain, double slope,
                          double offset) {
  for (int64_t n = 0; n < t->n; n++) {
    int64_t i = bn_index(t, n, c, 0);
    if (fast) {
      const float *g = (const float *)t->grad_output.data + i;
      const float *x = (const float *)t->input.data + i;
      float *gi = (float *)t->out.data + i; /* may be g */
      float center = (float)mean, fgain = (float)gain, fslope = (float)slope;
      float foffset = (float)(offset + (mean - center) * slope);
      for (int64_t s = 0; s < t->inner; s++)
        gi[s] = g[s] * fgain - (x[s] - center) * fslope + foffset;
      continue;
    }
    for (int64_t s = 0; s < t->inner; s++)
      ref_set(&t->out, i + s,
              ref_get(&t->grad_output, i + s) * gain -
                  (ref_get(&t->input, i + s) - mean) * slope + offset);
  }
}

static void bn_backward(void *context, int64_t begin, int64_t end) {
  const norm_task_t *t = context;
  double count = (double)(t->n * t->inner);
  bool fast = fast_f32(t, true);
  for (int64_t c = begin; c < end; c++) {
    double mean, invstd;
    if (t->training) {
      mean = ref_get(&t->mean, c);
      invstd = ref_get(&t->invstd, c);
    } else {
      mean = ref_get(&t->running_mean, c);
      invstd = 1.0 / sqrt(ref_get(&t->running_var, c) + t->eps);
    }
    double gb, gx;
    bn_grad_sums(t, fast, c, mean, &gb, &gx);
    double gw = gx * invstd;
    if (t->has_grad_weight)
      ref_set(&t->grad_weight, c, gw);
    if (t->has_grad_bias)
      ref_set(&t->grad_bias, c, gb);
    if (!t->has_out)
      continue;
    /* training: gi = w invstd (g - gb/count - (x - mean) invstd gw/count);
     * eval: gi = g w invstd. */
    double w = bn_param(&t->weight, t->has_weight, c, 1.0), gain = w * invstd;
    if (t->training)
      bn_grad_input(t, fast, c, mean, gain, gain * invstd * gw / count,
                    -gain * gb / count);
    else
      bn_grad_input(t, fast, c, mean, gain, 0, 0);
  }
}

static void run_bn_backward(void *args) {
  norm_task_t *t = args;
  ref_parallel_for(t->c, (1 << 14) / (t->n * t->inner + 1) + 1, bn_backward, t);
}

/* Sets n, c, inner from input (N, C, *) and checks per-channel tensors. */
static diopiError_t bn_shapes(const char *op, norm_task_t *t) {
  if (t->input.ndim < 2)
    return ref_fail(op, "input: %d dims, expected (N, C, ...)", t->input.ndim);
  t->n = t->input.shape[0];
  t->c = t->input.shape[1];
  t->inner = t->n * t->c != 0 ? t->input.numel / (t->n * t->c) : 0;
  const ref_view_t *v[] = {&t->weight,      &t->bias,         &t->mean,
                           &t->invstd,      &t->running_mean, &t->running_var,
                           &t->grad_weight, &t->grad_bias};
  const bool has[] = {t->has_weight,       t->has_bias,
                      t->has_mean,         t->has_invstd,
                      t->has_running_mean, t->has_running_var,
                      t->has_grad_weight,  t->has_grad_bias};
  const char *names[] = {"weight",      "bias",         "save_mean",
                         "save_invstd", "running_mean", "running_var",
                         "grad_weight", "grad_bias"};
  for (int i = 0; i < 8; i++)
    if (has[i]) {
      diopiError_t err = ref_expect_shape(op, names[i], v[i], &t->c, 1);
      if (err)
        return err;
    }
  return diopiSuccess;
}

REF_EXPORT diopiError_t
diopiBatchNorm(diopiContextHandle_t ctx, diopiTensorHandle_t out,
               diopiTensorHandle_t save_mean, diopiTensorHandle_t save_invstd,
               diopiConstTensorHandle_t input, diopiConstTensorHandle_t weight,
               diopiConstTensorHandle_t bias, diopiTensorHandle_t running_mean,
               diopiTensorHandle_t running_var, bool training, double momentum,
               double eps) {
  const char *op = "diopiBatchNorm";
  norm_task_t t;
  memset(&t, 0, sizeof t);
  t.training = training;
  t.momentum = momentum;
  t.eps = eps;
  const ref_arg_t running[] = {
      {"running_mean", running_mean, &t.running_mean, &t.has_running_mean},
      {"running_var", running_var, &t.running_var, &t.has_running_var}};
  diopiError_t err = forward_views(ctx, op, &t, out, save_mean, save_invstd,
                                   input, weight, bias);
  if (!err)
    err = ref_views(ctx, op, running, REF_COUNT(running));
  if (!err && !training && !(t.has_running_mean && t.has_running_var))
    err = ref_fail(op, "running_mean, running_var: required when not "
                       "training");
  if (!err)
    err = bn_shapes(op, &t);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input);
  if (err || t.c == 0)
    return err;
  return ref_enqueue(ctx, op, run_bn_forward, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiBatchNormBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiTensorHandle_t grad_weight, diopiTensorHandle_t grad_bias,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t weight, diopiConstTensorHandle_t running_mean,
    diopiConstTensorHandle_t running_var, diopiConstTensorHandle_t save_mean,
    diopiConstTensorHandle_t save_invstd, bool training, double eps) {
  const char *op = "diopiBatchNormBackward";
  norm_task_t t;
  memset(&t, 0, sizeof t);
  t.training = training;
  t.eps = eps;
  const ref_arg_t stats[] = {
      {"running_mean", running_mean, &t.running_mean, &t.has_running_mean},
      {"running_var", running_var, &t.running_var, &t.has_running_var},
      {"save_mean", save_mean, &t.mean, &t.has_mean},
      {"save_invstd", save_invstd, &t.invstd, &t.has_invstd}};
  diopiError_t err = backward_views(ctx, op, &t, grad_input, grad_weight,
                                    grad_bias, grad_output, input, weight);
  if (!err)
    err = ref_views(ctx, op, stats, REF_COUNT(stats));
  if (!err && training && !(t.has_mean && t.has_invstd))
    err = ref_fail(op, "save_mean, save_invstd: required when training");
  if (!err && !training && !(t.has_running_mean && t.has_running_var))
    err = ref_fail(op, "running_mean, running_var: required when not "
                       "training");
  if (!err)
    err = bn_shapes(op, &t);
  if (err || t.c == 0)
    return err;
  return ref_enqueue(ctx, op, run_bn_backward, &t, sizeof t);
}
