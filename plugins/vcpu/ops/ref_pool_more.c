/* avg_pool2d (ceil_mode, count_include_pad, divisor_override) and
 * adaptive_max_pool2d (+ indices), with their backwards, and the 1-d
 * forms of those and of max_pool (dilation) and adaptive_avg_pool (a
 * (N, C, L) tensor pooled as (N, C, 1, L)). One plane (an image's
 * channel) per work item, values in double, any strides. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_pool_f32.h"
#include "ref_view_more.h"
#include "ref_window.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* A pooling: max (with its argmax) or average, over fixed windows
 * (kernel, stride, padding, dilation for max) or adaptive ones. */
typedef struct pool_task {
  bool adaptive, max, backward, has_indices, one_d;
  ref_view_t in, out, indices; /* backward: in = grad_input, out = grad */
  ref_planes_t in_planes, out_planes, index_planes;
  int64_t k[2], stride[2], pad[2], dil[2], oh, ow;
  bool include_pad;
  int64_t divisor; /* 0: none given */
} pool_task_t;

/* `h` viewed into *v; 1-d pooling lifts (N, C, L) or (C, L) to
 * (N, C, 1, L) or (C, 1, L). */
static diopiError_t view_lifted(diopiContextHandle_t ctx, const char *op,
                                const char *arg, CT h, ref_view_t *v,
                                bool one_d) {
  diopiError_t err = ref_view(ctx, op, arg, h, v);
  if (err || !one_d)
    return err;
  if (v->ndim != 2 && v->ndim != 3)
    return ref_fail(op, "%s: %d dims, expected (N, C, L) or (C, L)", arg,
                    v->ndim);
  int last = v->ndim - 1;
  v->shape[last + 1] = v->shape[last];
  v->strides[last + 1] = v->strides[last];
  v->shape[last] = 1;
  v->strides[last] = 0;
  v->ndim++;
  return diopiSuccess;
}

/* The window of output (i, j): rows h0, h0 + step[0], ... below h1, cols
 * likewise, clipped to the input, and its average's divisor. Max windows
 * step by the dilation. */
static void window(const pool_task_t *t, int64_t i, int64_t j, int64_t *h0,
                   int64_t *h1, int64_t *w0, int64_t *w1, int64_t step[2],
                   double *divisor) {
  int64_t h = t->in_planes.h, w = t->in_planes.w;
  step[0] = step[1] = 1;
  if (t->adaptive) {
    *h0 = ref_adaptive_start(i, h, t->oh);
    *h1 = ref_adaptive_end(i, h, t->oh);
    *w0 = ref_adaptive_start(j, w, t->ow);
    *w1 = ref_adaptive_end(j, w, t->ow);
    *divisor = (double)((*h1 - *h0) * (*w1 - *w0));
    return;
  }
  int64_t start[2] = {i * t->stride[0] - t->pad[0],
                      j * t->stride[1] - t->pad[1]};
  int64_t size[2] = {h, w}, lo[2], hi[2];
  for (int d = 0; d < 2; d++) {
    int64_t dil = t->max ? t->dil[d] : 1;
    int64_t end = start[d] + (t->k[d] - 1) * dil + 1;
    end = t->max || end < size[d] + t->pad[d] ? end : size[d] + t->pad[d];
    hi[d] = end < size[d] ? end : size[d];
    lo[d] = start[d];
    if (lo[d] < 0) /* the first tap inside */
      lo[d] += (-lo[d] + dil - 1) / dil * dil;
    step[d] = dil;
    if (d == 0)
      *divisor = (double)(end - start[0]);
    else
      *divisor *= (double)(end - start[1]);
  }
  *h0 = lo[0];
  *h1 = hi[0];
  *w0 = lo[1];
  *w1 = hi[1];
  if (t->divisor)
    *divisor = (double)t->divisor;
  else if (!t->include_pad)
    *divisor = (double)((*h1 - *h0) * (*w1 - *w0));
}

static void forward(const pool_task_t *t, int64_t plane) {
  const ref_planes_t *ip = &t->in_planes, *op = &t->out_planes;
  for (int64_t i = 0; i < t->oh; i++)
    for (int64_t j = 0; j < t->ow; j++) {
      int64_t h0, h1, w0, w1, step[2], best = -1;
      double divisor, acc = t->max ? -INFINITY : 0;
      window(t, i, j, &h0, &h1, &w0, &w1, step, &divisor);
      for (int64_t h = h0; h < h1; h += step[0])
        for (int64_t w = w0; w < w1; w += step[1]) {
          double x = ref_load_at(&t->in, ref_plane_offset(ip, plane, h, w));
          if (!t->max) {
            acc += x;
          } else if (best < 0 || x > acc || isnan(x)) {
            acc = x;
            best = h * ip->w + w;
          }
        }
      ref_store_at(&t->out, ref_plane_offset(op, plane, i, j),
                   t->max ? acc : acc / divisor);
      if (t->has_indices)
        ref_store_at(&t->indices,
                     ref_plane_offset(&t->index_planes, plane, i, j),
                     (double)best);
    }
}

/* forward for float32 in and out: the same windows, values in float. */
static void forward_f32(const pool_task_t *t, int64_t plane) {
  const ref_planes_t *ip = &t->in_planes, *op = &t->out_planes;
  const float *in = (const float *)t->in.data + ref_offset(&ip->outer, plane);
  float *out = (float *)t->out.data + ref_offset(&op->outer, plane);
  for (int64_t i = 0; i < t->oh; i++)
    for (int64_t j = 0; j < t->ow; j++) {
      int64_t h0, h1, w0, w1, step[2], best = -1;
      double divisor;
      float acc = t->max ? -INFINITY : 0.0f;
      window(t, i, j, &h0, &h1, &w0, &w1, step, &divisor);
      for (int64_t h = h0; h < h1; h += step[0]) {
        const float *row = in + h * ip->stride_h;
        if (!t->max) {
          for (int64_t w = w0; w < w1; w++)
            acc += row[w * ip->stride_w];
          continue;
        }
        for (int64_t w = w0; w < w1; w += step[1]) {
          float x = row[w * ip->stride_w];
          if (best < 0 || x > acc || isnan(x)) {
            acc = x;
            best = h * ip->w + w;
          }
        }
      }
      out[i * op->stride_h + j * op->stride_w] =
          t->max ? acc : (float)(acc / divisor);
      if (t->has_indices)
        ref_store_at(&t->indices,
                     ref_plane_offset(&t->index_planes, plane, i, j),
                     (double)best);
    }
}

/* grad_input's plane: zeroed, then each output's gradient spread over its
 * window (average) or added at its index (max). */
static void backward(const pool_task_t *t, int64_t plane) {
  const ref_planes_t *gp = &t->in_planes, *op = &t->out_planes;
  for (int64_t h = 0; h < gp->h; h++)
    for (int64_t w = 0; w < gp->w; w++)
      ref_store_at(&t->in, ref_plane_offset(gp, plane, h, w), 0);
  for (int64_t i = 0; i < t->oh; i++)
    for (int64_t j = 0; j < t->ow; j++) {
      double g = ref_load_at(&t->out, ref_plane_offset(op, plane, i, j));
      if (t->max) {
        int64_t k = (int64_t)ref_load_at(
            &t->indices, ref_plane_offset(&t->index_planes, plane, i, j));
        if (k < 0 || k >= gp->h * gp->w)
          continue; /* not an index this plane has */
        int64_t at = ref_plane_offset(gp, plane, k / gp->w, k % gp->w);
        ref_store_at(&t->in, at, ref_load_at(&t->in, at) + g);
        continue;
      }
      int64_t h0, h1, w0, w1, step[2];
      double divisor;
      window(t, i, j, &h0, &h1, &w0, &w1, step, &divisor);
      for (int64_t h = h0; h < h1; h += step[0])
        for (int64_t w = w0; w < w1; w += step[1]) {
          int64_t at = ref_plane_offset(gp, plane, h, w);
          ref_store_at(&t->in, at, ref_load_at(&t->in, at) + g / divisor);
        }
    }
}

/* Whether the forward runs on ref_pool_f32.h's kernels: float32 rows of
 * unit stride (int64 indices too), an average over fixed windows or an
 * adaptive maximum over rows they take. */
static bool plane_kernels_apply(const pool_task_t *t) {
  if (t->backward || t->in.dtype != diopi_dtype_float32 ||
      t->out.dtype != diopi_dtype_float32 || t->in_planes.stride_w != 1 ||
      t->out_planes.stride_w != 1)
    return false;
  if (t->has_indices &&
      (t->indices.dtype != diopi_dtype_int64 || t->index_planes.stride_w != 1))
    return false;
  return t->adaptive ? t->max && t->in_planes.w <= REF_POOL_F32_MAX_W : !t->max;
}

/* Planes [begin, end) on ref_pool_f32.h's kernels. */
static void run_planes_f32(const pool_task_t *t, int64_t begin, int64_t end) {
  const ref_planes_t *ip = &t->in_planes, *op = &t->out_planes;
  ref_pool_plane_t p = {.h = ip->h,
                        .w = ip->w,
                        .in_row = ip->stride_h,
                        .oh = t->oh,
                        .ow = t->ow,
                        .out_row = op->stride_h,
                        .index_row =
                            t->has_indices ? t->index_planes.stride_h : 0,
                        .k = {t->k[0], t->k[1]},
                        .stride = {t->stride[0], t->stride[1]},
                        .pad = {t->pad[0], t->pad[1]},
                        .include_pad = t->include_pad,
                        .divisor = t->divisor};
  for (int64_t plane = begin; plane < end; plane++) {
    const float *in = (const float *)t->in.data + ref_offset(&ip->outer, plane);
    float *out = (float *)t->out.data + ref_offset(&op->outer, plane);
    if (!t->adaptive) {
      ref_avg_pool_plane_f32(&p, in, out);
      continue;
    }
    int64_t *indices = t->has_indices
                           ? (int64_t *)t->indices.data +
                                 ref_offset(&t->index_planes.outer, plane)
                           : NULL;
    ref_adaptive_max_plane_f32(&p, in, out, indices);
  }
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const pool_task_t *t = context;
  bool f32 =
      t->in.dtype == diopi_dtype_float32 && t->out.dtype == diopi_dtype_float32;
  if (plane_kernels_apply(t)) {
    run_planes_f32(t, begin, end);
    return;
  }
  for (int64_t plane = begin; plane < end; plane++) {
    if (t->backward)
      backward(t, plane);
    else if (f32)
      forward_f32(t, plane);
    else
      forward(t, plane);
  }
}

static void run(void *args) {
  pool_task_t *t = args;
  ref_parallel_for(t->in_planes.count, 16, run_range, t);
}

/* Views `in` (input; grad_input backward) and `out` (out; grad_output
 * backward) and `indices` (may be NULL), checks out's pooled shape (oh, ow
 * set by the caller, or, for an adaptive backward, taken from out) and
 * enqueues. */
static diopiError_t launch(CTX, const char *op, pool_task_t *t,
                           const char *in_name, CT in, const char *out_name,
                           CT out, CT indices) {
  diopiError_t err = view_lifted(ctx, op, in_name, in, &t->in, t->one_d);
  if (!err)
    err = view_lifted(ctx, op, out_name, out, &t->out, t->one_d);
  if (!err)
    err = ref_planes(op, in_name, &t->in, &t->in_planes);
  if (!err && t->adaptive && t->backward)
    err = ref_planes(op, out_name, &t->out, &t->out_planes);
  if (err)
    return err;
  if (t->adaptive && t->backward) {
    t->oh = t->out_planes.h;
    t->ow = t->out_planes.w;
  }
  if (!t->adaptive && (t->oh < 1 || t->ow < 1))
    return ref_fail(op, "%s: %lldx%lld gives no window", in_name,
                    (long long)t->in_planes.h, (long long)t->in_planes.w);
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, t->in.shape, sizeof shape);
  shape[t->in.ndim - 2] = t->oh;
  shape[t->in.ndim - 1] = t->ow;
  err = ref_expect_shape(op, out_name, &t->out, shape, t->in.ndim);
  if (!err)
    err = ref_planes(op, out_name, &t->out, &t->out_planes);
  if (!err)
    err = ref_expect_no_partial_overlap(op, out_name, &t->in, &t->out);
  if (!err && indices) {
    t->has_indices = true;
    err = view_lifted(ctx, op, "indices", indices, &t->indices, t->one_d);
    if (!err)
      err = ref_expect_shape(op, "indices", &t->indices, shape, t->in.ndim);
    if (!err)
      err = ref_planes(op, "indices", &t->indices, &t->index_planes);
  }
  if (err || t->in.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, t, sizeof *t);
}

/* A fixed window: kernel (required), stride (empty: the kernel), padding
 * at most half the kernel, dilation (empty: 1; max only), divisor_override
 * nonzero if given (average only; negative divides by it, as PyTorch). */
static diopiError_t fixed_setup(diopiContextHandle_t ctx, const char *op,
                                pool_task_t *t, CT input,
                                diopiSize_t kernel_size, diopiSize_t stride,
                                diopiSize_t padding, diopiSize_t dilation,
                                bool ceil_mode, bool count_include_pad,
                                const int64_t *divisor_override) {
  ref_view_t in;
  ref_planes_t planes;
  diopiError_t err = view_lifted(ctx, op, "input", input, &in, t->one_d);
  if (!err)
    err = ref_planes(op, "input", &in, &planes);
  if (!err)
    err = ref_pool_window2(op, kernel_size, stride, padding, dilation, t->k,
                           t->stride, t->pad, t->dil);
  if (!err && divisor_override && *divisor_override == 0)
    err = ref_fail(op, "divisor_override: expected nonzero, got 0");
  if (err)
    return err;
  if (t->one_d) { /* the lifted dim: one row, no stride, no padding */
    t->k[0] = t->stride[0] = t->dil[0] = 1;
    t->pad[0] = 0;
  }
  t->include_pad = count_include_pad;
  t->divisor = divisor_override ? *divisor_override : 0;
  t->oh = ref_window_out(planes.h, t->k[0], t->stride[0], t->pad[0],
                         t->max ? t->dil[0] : 1, ceil_mode);
  t->ow = ref_window_out(planes.w, t->k[1], t->stride[1], t->pad[1],
                         t->max ? t->dil[1] : 1, ceil_mode);
  return diopiSuccess;
}

static diopiError_t avg_pool(CTX, const char *op, bool one_d, T out, CT input,
                             diopiSize_t kernel_size, diopiSize_t stride,
                             diopiSize_t padding, bool ceil_mode,
                             bool count_include_pad,
                             const int64_t *divisor_override) {
  pool_task_t t;
  memset(&t, 0, sizeof t);
  t.one_d = one_d;
  diopiSize_t no_dilation = {NULL, 0};
  diopiError_t err =
      fixed_setup(ctx, op, &t, input, kernel_size, stride, padding, no_dilation,
                  ceil_mode, count_include_pad, divisor_override);
  return err ? err : launch(ctx, op, &t, "input", input, "out", out, NULL);
}

static diopiError_t avg_pool_backward(CTX, const char *op, bool one_d,
                                      T grad_input, CT grad_output, CT input,
                                      diopiSize_t kernel_size,
                                      diopiSize_t stride, diopiSize_t padding,
                                      bool ceil_mode, bool count_include_pad,
                                      const int64_t *divisor_override) {
  pool_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  t.one_d = one_d;
  ref_view_t in, gi;
  diopiSize_t no_dilation = {NULL, 0};
  diopiError_t err =
      fixed_setup(ctx, op, &t, input, kernel_size, stride, padding, no_dilation,
                  ceil_mode, count_include_pad, divisor_override);
  if (!err)
    err = ref_view(ctx, op, "input", input, &in);
  if (!err)
    err = ref_view(ctx, op, "grad_input", grad_input, &gi);
  if (!err)
    err = ref_expect_shape(op, "grad_input", &gi, in.shape, in.ndim);
  return err ? err
             : launch(ctx, op, &t, "grad_input", grad_input, "grad_output",
                      grad_output, NULL);
}

REF_EXPORT diopiError_t diopiAvgPool2d(CTX, T out, CT input,
                                       diopiSize_t kernel_size,
                                       diopiSize_t stride, diopiSize_t padding,
                                       bool ceil_mode, bool count_include_pad,
                                       const int64_t *divisor_override) {
  return avg_pool(ctx, "diopiAvgPool2d", false, out, input, kernel_size, stride,
                  padding, ceil_mode, count_include_pad, divisor_override);
}
REF_EXPORT diopiError_t diopiAvgPool2dBackward(
    CTX, T grad_input, CT grad_output, CT input, diopiSize_t kernel_size,
    diopiSize_t stride, diopiSize_t padding, bool ceil_mode,
    bool count_include_pad, const int64_t *divisor_override) {
  return avg_pool_backward(ctx, "diopiAvgPool2dBackward", false, grad_input,
                           grad_output, input, kernel_size, stride, padding,
                           ceil_mode, count_include_pad, divisor_override);
}
REF_EXPORT diopiError_t diopiAvgPool1d(CTX, T out, CT input,
                                       diopiSize_t kernel_size,
                                       diopiSize_t stride, diopiSize_t padding,
                                       bool ceil_mode, bool count_include_pad) {
  return avg_pool(ctx, "diopiAvgPool1d", true, out, input, kernel_size, stride,
                  padding, ceil_mode, count_include_pad, NULL);
}
REF_EXPORT diopiError_t diopiAvgPool1dBackward(
    CTX, T grad_input, CT grad_output, CT input, diopiSize_t kernel_size,
    diopiSize_t stride, diopiSize_t padding, bool ceil_mode,
    bool count_include_pad) {
  return avg_pool_backward(ctx, "diopiAvgPool1dBackward", true, grad_input,
                           grad_output, input, kernel_size, stride, padding,
                           ceil_mode, count_include_pad, NULL);
}

/* An adaptive pooling forward (max, or average for the 1-d form; the 2-d
 * average is ref_pooling.c's) to output_size. */
static diopiError_t adaptive(CTX, const char *op, bool max, bool one_d, CT out,
                             CT indices, CT input, diopiSize_t output_size) {
  pool_task_t t;
  memset(&t, 0, sizeof t);
  t.adaptive = true;
  t.max = max;
  int64_t size[2];
  diopiError_t err = /* 0: an empty output, as PyTorch */
      ref_window_pair(op, "output_size", output_size, 0, 0, size);
  if (!err && output_size.len == 0)
    err = ref_fail(op, "output_size: expected %s, got none",
                   one_d ? "1 value" : "1 or 2 values");
  if (err)
    return err;
  t.oh = one_d ? 1 : size[0];
  t.ow = size[1];
  t.one_d = one_d;
  return launch(ctx, op, &t, "input", input, "out", out, indices);
}

REF_EXPORT diopiError_t diopiAdaptiveMaxPool2d(CTX, T out, CT input,
                                               diopiSize_t output_size) {
  return adaptive(ctx, "diopiAdaptiveMaxPool2d", true, false, out, NULL, input,
                  output_size);
}
REF_EXPORT diopiError_t diopiAdaptiveMaxPool2dWithIndices(
    CTX, T out, T indices, CT input, diopiSize_t output_size) {
  const char *op = "diopiAdaptiveMaxPool2dWithIndices";
  if (!indices)
    return ref_fail(op, "indices: tensor is NULL");
  return adaptive(ctx, op, true, false, out, indices, input, output_size);
}
/* An adaptive pooling backward: grad_input += grad_output at each output's
 * index within its plane (max, `indices` required) or spread evenly over
 * its window (average; window sizes from grad_output). */
static diopiError_t adaptive_backward(CTX, const char *op, bool max, bool one_d,
                                      T grad_input, CT grad_output, CT input,
                                      CT indices) {
  pool_task_t t;
  memset(&t, 0, sizeof t);
  t.adaptive = true;
  t.max = max;
  t.backward = true;
  t.one_d = one_d;
  ref_view_t in, gi;
  diopiError_t err = ref_view(ctx, op, "input", input, &in);
  if (!err)
    err = ref_view(ctx, op, "grad_input", grad_input, &gi);
  if (!err)
    err = ref_expect_shape(op, "grad_input", &gi, in.shape, in.ndim);
  if (!err && max && !indices)
    err = ref_fail(op, "indices: tensor is NULL");
  return err ? err
             : launch(ctx, op, &t, "grad_input", grad_input, "grad_output",
                      grad_output, indices);
}

REF_EXPORT diopiError_t diopiAdaptiveMaxPool2dBackward(CTX, T grad_input,
                                                       CT grad_output, CT input,
                                                       CT indices) {
  return adaptive_backward(ctx, "diopiAdaptiveMaxPool2dBackward", true, false,
                           grad_input, grad_output, input, indices);
}
REF_EXPORT diopiError_t diopiAdaptiveMaxPool1d(CTX, T out, CT input,
                                               diopiSize_t output_size) {
  return adaptive(ctx, "diopiAdaptiveMaxPool1d", true, true, out, NULL, input,
                  output_size);
}
REF_EXPORT diopiError_t diopiAdaptiveMaxPool1dWithIndices(
    CTX, T out, T indices, CT input, diopiSize_t output_size) {
  if (!indices)
    return ref_fail("diopiAdaptiveMaxPool1dWithIndices",
                    "indices: tensor is NULL");
  return adaptive(ctx, "diopiAdaptiveMaxPool1dWithIndices", true, true, out,
                  indices, input, output_size);
}
REF_EXPORT diopiError_t diopiAdaptiveMaxPool1dBackward(CTX, T grad_input,
                                                       CT grad_output, CT input,
                                                       CT indices) {
  return adaptive_backward(ctx, "diopiAdaptiveMaxPool1dBackward", true, true,
                           grad_input, grad_output, input, indices);
}
/* max_pool1d: fixed windows with dilation; indices are positions along
 * L. */
static diopiError_t max_pool1d(CTX, const char *op, T out, T indices, CT input,
                               diopiSize_t kernel_size, diopiSize_t stride,
                               diopiSize_t padding, diopiSize_t dilation,
                               bool ceil_mode) {
  pool_task_t t;
  memset(&t, 0, sizeof t);
  t.max = true;
  t.one_d = true;
  diopiError_t err = fixed_setup(ctx, op, &t, input, kernel_size, stride,
                                 padding, dilation, ceil_mode, false, NULL);
  return err ? err : launch(ctx, op, &t, "input", input, "out", out, indices);
}

REF_EXPORT diopiError_t diopiMaxPool1d(CTX, T out, CT input,
                                       diopiSize_t kernel_size,
                                       diopiSize_t stride, diopiSize_t padding,
                                       diopiSize_t dilation, bool ceil_mode) {
  return max_pool1d(ctx, "diopiMaxPool1d", out, NULL, input, kernel_size,
                    stride, padding, dilation, ceil_mode);
}
REF_EXPORT diopiError_t diopiMaxPool1dWithIndices(
    CTX, T out, T indices, CT input, diopiSize_t kernel_size,
    diopiSize_t stride, diopiSize_t padding, diopiSize_t dilation,
    bool ceil_mode) {
  if (!indices)
    return ref_fail("diopiMaxPool1dWithIndices", "indices: tensor is NULL");
  return max_pool1d(ctx, "diopiMaxPool1dWithIndices", out, indices, input,
                    kernel_size, stride, padding, dilation, ceil_mode);
}
/* grad_input += grad_output at each output's index, like the adaptive
 * backward: the window attributes are checked, the indices say where. */
REF_EXPORT diopiError_t diopiMaxPool1dBackward(
    CTX, T grad_input, CT grad_output, CT input, diopiSize_t kernel_size,
    diopiSize_t stride, diopiSize_t padding, diopiSize_t dilation,
    bool ceil_mode, CT indices) {
  const char *op = "diopiMaxPool1dBackward";
  pool_task_t t;
  memset(&t, 0, sizeof t);
  t.max = true;
  t.one_d = true;
  t.backward = true;
  ref_view_t in, gi;
  diopiError_t err = fixed_setup(ctx, op, &t, input, kernel_size, stride,
                                 padding, dilation, ceil_mode, false, NULL);
  if (!err)
    err = ref_view(ctx, op, "input", input, &in);
  if (!err)
    err = ref_view(ctx, op, "grad_input", grad_input, &gi);
  if (!err)
    err = ref_expect_shape(op, "grad_input", &gi, in.shape, in.ndim);
  if (!err && !indices)
    err = ref_fail(op, "indices: tensor is NULL");
  return err ? err
             : launch(ctx, op, &t, "grad_input", grad_input, "grad_output",
                      grad_output, indices);
}

REF_EXPORT diopiError_t diopiAdaptiveAvgPool1d(CTX, T out, CT input,
                                               diopiSize_t output_size) {
  return adaptive(ctx, "diopiAdaptiveAvgPool1d", false, true, out, NULL, input,
                  output_size);
}
REF_EXPORT diopiError_t diopiAdaptiveAvgPool1dBackward(CTX, T grad_input,
                                                       CT grad_output,
                                                       CT input) {
  return adaptive_backward(ctx, "diopiAdaptiveAvgPool1dBackward", false, true,
                           grad_input, grad_output, input, NULL);
}
