/* max_pool2d (with indices, and backward) and adaptive_avg_pool2d (and
 * backward) over (N, C, H, W) or (C, H, W). A plane is one (n, c) image;
 * planes split across the worker pool. Indices are flat offsets in a
 * plane's H x W, as PyTorch's. Max pooling of contiguous float32 has loops
 * of its own; other dtypes and strides run on the generic window engine
 * that 3-d pooling uses (ref_window_pool.h), planes as volumes of depth 1. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_tensor.h"
#include "ref_window.h"
#include "ref_window_pool.h"

typedef struct pool_task {
  ref_view_t input, out, indices, grad_output;
  bool has_indices, backward;
  bool f32; /* contiguous float32 data, int64 indices: the direct loops */
  int64_t planes, h, w, oh, ow;
  int64_t k[2], stride[2], pad[2], dil[2];
} pool_task_t;

/* max_pool2d_backward's indices, flat offsets in a plane: checked on the
 * stream, once the forward has written them (ref_enqueue_checked). */
static diopiError_t check_plane_offsets(const void *args) {
  const pool_task_t *t = args;
  return ref_expect_indices_below("diopiMaxPool2dBackward", "indices",
                                  &t->indices, t->h * t->w, false, 0);
}

/* Whether max pooling's tensors suit the direct float32 loops. */
static bool max_f32(const pool_task_t *t) {
  bool indices =
      !(t->has_indices || t->backward) ||
      (t->indices.dtype == diopi_dtype_int64 && ref_contiguous(&t->indices));
  return indices && ref_f32_contiguous(&t->input) &&
         ref_f32_contiguous(&t->out) &&
         (!t->backward || ref_f32_contiguous(&t->grad_output));
}

/* The usual 2x2 window with stride 2, no padding or dilation: the four
 * candidates read in max_window_exact's order (a NaN wins at its first
 * place, a tie keeps the first). */
static bool max_2x2(const pool_task_t *t) {
  return t->k[0] == 2 && t->k[1] == 2 && t->stride[0] == 2 &&
         t->stride[1] == 2 && t->pad[0] == 0 && t->pad[1] == 0 &&
         t->dil[0] == 1 && t->dil[1] == 1 && t->oh * 2 <= t->h &&
         t->ow * 2 <= t->w;
}

/* One candidate of a window: taken when it is larger or NaN, unless a NaN
 * was taken already. */
static inline void max_take(float v, int64_t at, float *best,
                            int64_t *best_at) {
  if ((v > *best || isnan(v)) && !isnan(*best)) {
    *best = v;
    *best_at = at;
  }
}

/* The same without NaNs, written as selects (maxss and cmov): random data
 * would mispredict every compare of a branch. */
static inline void max_take_finite(float v, int64_t at, float *best,
                                   int64_t *best_at) {
  bool take = v > *best;
  *best_at = take ? at : *best_at;
  *best = *best < v ? v : *best;
}

static void max_forward_2x2(const pool_task_t *t, int64_t begin, int64_t end) {
  const float *in = (const float *)t->input.data;
  float *out = (float *)t->out.data;
  int64_t *indices = t->has_indices ? (int64_t *)t->indices.data : NULL;
  int64_t w = t->w;
  for (int64_t pl = begin; pl < end; pl++) {
    const float *plane = in + pl * t->h * w;
    for (int64_t oy = 0; oy < t->oh; oy++) {
      int64_t o = (pl * t->oh + oy) * t->ow;
      for (int64_t ox = 0; ox < t->ow; ox++, o++) {
        int64_t top = 2 * oy * w + 2 * ox;
        float a = plane[top], b = plane[top + 1], c = plane[top + w],
              d = plane[top + w + 1];
        float best = a;
        int64_t at = top;
        if (isnan(a) | isnan(b) | isnan(c) | isnan(d)) {
          max_take(b, top + 1, &best, &at);
          max_take(c, top + w, &best, &at);
          max_take(d, top + w + 1, &best, &at);
        } else {
          max_take_finite(b, top + 1, &best, &at);
          max_take_finite(c, top + w, &best, &at);
          max_take_finite(d, top + w + 1, &best, &at);
        }
        out[o] = best;
        if (indices)
          indices[o] = at;
      }
    }
  }
}

/* The window's taps inside the input along one dim: the tap indices
 * [*first, *last) of k taps at out * stride - pad + tap * dil. */
static void window_taps(int64_t out, int64_t size, int64_t k, int64_t stride,
                        int64_t pad, int64_t dil, int64_t *first,
                        int64_t *last) {
  int64_t origin = out * stride - pad;
  *first = origin >= 0 ? 0 : (-origin + dil - 1) / dil;
  *last = origin >= size                  ? 0
          : origin + (k - 1) * dil < size ? k
                                          : (size - 1 - origin) / dil + 1;
  if (*last < *first)
    *last = *first;
}

/* One window, first maximum, a NaN winning at its first place (PyTorch's
 * rule). *best = -inf and *at = -1 for a window with no tap inside. */
static void max_window_exact(const pool_task_t *t, const float *plane,
                             int64_t oy, int64_t ox, float *best, int64_t *at) {
  *best = -INFINITY;
  *at = -1;
  for (int64_t i = 0; i < t->k[0] && !(*at >= 0 && isnan(*best)); i++) {
    int64_t y = oy * t->stride[0] - t->pad[0] + i * t->dil[0];
    if (y < 0 || y >= t->h)
      continue;
    for (int64_t j = 0; j < t->k[1]; j++) {
      int64_t x = ox * t->stride[1] - t->pad[1] + j * t->dil[1];
      if (x < 0 || x >= t->w)
        continue;
      float v = plane[y * t->w + x];
      if (*at < 0 || v > *best || isnan(v)) {
        *best = v;
        *at = y * t->w + x;
        if (isnan(v))
          break;
      }
    }
  }
}

/* max pooling over contiguous float32: each window's taps compared as
 * selects (random data would mispredict a branch per tap), which is the
 * exact rule when the window holds no NaN; one that does is redone by
 * max_window_exact. */
static void max_forward(void *context, int64_t begin, int64_t end) {
  const pool_task_t *t = context;
  if (max_2x2(t)) {
    max_forward_2x2(t, begin, end);
    return;
  }
  const float *in = (const float *)t->input.data;
  float *out = (float *)t->out.data;
  int64_t *indices = t->has_indices ? (int64_t *)t->indices.data : NULL;
  int64_t w = t->w;
  for (int64_t pl = begin; pl < end; pl++) {
    const float *plane = in + pl * t->h * w;
    for (int64_t oy = 0; oy < t->oh; oy++) {
      int64_t i0, i1, y0 = oy * t->stride[0] - t->pad[0];
      window_taps(oy, t->h, t->k[0], t->stride[0], t->pad[0], t->dil[0], &i0,
                  &i1);
      for (int64_t ox = 0; ox < t->ow; ox++) {
        int64_t j0, j1, x0 = ox * t->stride[1] - t->pad[1];
        window_taps(ox, w, t->k[1], t->stride[1], t->pad[1], t->dil[1], &j0,
                    &j1);
        float best = -INFINITY;
        int64_t at = -1;
        if (i0 < i1 && j0 < j1) {
          at = (y0 + i0 * t->dil[0]) * w + x0 + j0 * t->dil[1];
          best = plane[at];
          bool nan = false;
          for (int64_t i = i0; i < i1; i++) {
            int64_t row = (y0 + i * t->dil[0]) * w;
            for (int64_t j = j0; j < j1; j++) {
              int64_t p = row + x0 + j * t->dil[1];
              float v = plane[p];
              nan |= v != v;
              int64_t take = -(int64_t)(v > best); /* all ones or zero */
              at = (p & take) | (at & ~take);
              best = best < v ? v : best;
            }
          }
          if (nan)
            max_window_exact(t, plane, oy, ox, &best, &at);
        }
        int64_t o = (pl * t->oh + oy) * t->ow + ox;
        out[o] = best;
        if (indices)
          indices[o] = at;
      }
    }
  }
}

/* Each plane's gradient: zero, then grad_output added at each index. */
static void max_backward(void *context, int64_t begin, int64_t end) {
  const pool_task_t *t = context;
  int64_t plane = t->h * t->w, cells = t->oh * t->ow;
  float *grad_in = (float *)t->out.data;
  const float *grad_out = (const float *)t->grad_output.data;
  const int64_t *indices = (const int64_t *)t->indices.data;
  for (int64_t pl = begin; pl < end; pl++) {
    float *g = grad_in + pl * plane;
    memset(g, 0, (size_t)plane * sizeof *g);
    for (int64_t o = 0; o < cells; o++) {
      int64_t at = indices[pl * cells + o];
      if (at >= 0 && at < plane) /* refused by the op otherwise */
        g[at] += grad_out[pl * cells + o];
    }
  }
}

/* Strided or not float32: the generic window engine, planes as volumes of
 * depth 1. */
static void max_generic(const pool_task_t *t, ref_window_pool_t *w) {
  memset(w, 0, sizeof *w);
  w->is_max = true;
  w->backward = t->backward;
  ref_volumes_of_planes(&t->input, &w->in);
  if (t->backward) {
    ref_volumes_of_planes(&t->grad_output, &w->out);
    ref_volumes_of_planes(&t->out, &w->grad_in);
    ref_volumes_of_planes(&t->indices, &w->indices);
  } else {
    w->has_out = true;
    ref_volumes_of_planes(&t->out, &w->out);
    w->has_indices = t->has_indices;
    if (t->has_indices)
      ref_volumes_of_planes(&t->indices, &w->indices);
  }
  w->k[0] = w->stride[0] = w->dilation[0] = 1;
  for (int i = 0; i < 2; i++) {
    w->k[1 + i] = t->k[i];
    w->stride[1 + i] = t->stride[i];
    w->padding[1 + i] = t->pad[i];
    w->dilation[1 + i] = t->dil[i];
  }
}

static int64_t start_of(int64_t o, int64_t in, int64_t out) {
  return (o * in) / out;
}
static int64_t end_of(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

/* Planes' width up to which avg_forward_f32 keeps a row of column sums. */
enum { AVG_ROW_MAX = 4096 };

/* Contiguous float32 planes: per output row, its window's input rows summed
 * column by column in double (a pass over each row that vectorizes), then
 * each output's columns of those sums. A 2x32x130x130 input pooled to 7x7
 * took 464 us summing window by window, one double add after another. */
static void avg_forward_f32(const pool_task_t *t, int64_t begin, int64_t end) {
  const float *in = (const float *)t->input.data;
  double cols[AVG_ROW_MAX];
  for (int64_t pl = begin; pl < end; pl++)
    for (int64_t oy = 0; oy < t->oh; oy++) {
      int64_t y0 = start_of(oy, t->h, t->oh), y1 = end_of(oy, t->h, t->oh);
      for (int64_t x = 0; x < t->w; x++)
        cols[x] = 0;
      for (int64_t y = y0; y < y1; y++) {
        const float *row = in + (pl * t->h + y) * t->w;
        for (int64_t x = 0; x < t->w; x++)
          cols[x] += row[x];
      }
      for (int64_t ox = 0; ox < t->ow; ox++) {
        int64_t x0 = start_of(ox, t->w, t->ow), x1 = end_of(ox, t->w, t->ow);
        double sum = 0;
        for (int64_t x = x0; x < x1; x++)
          sum += cols[x];
        ref_set(&t->out, (pl * t->oh + oy) * t->ow + ox,
                sum / (double)((y1 - y0) * (x1 - x0)));
      }
    }
}

static void avg_forward(void *context, int64_t begin, int64_t end) {
  const pool_task_t *t = context;
  if (ref_f32_contiguous(&t->input) && t->w <= AVG_ROW_MAX) {
    avg_forward_f32(t, begin, end);
    return;
  }
  for (int64_t pl = begin; pl < end; pl++)
    for (int64_t oy = 0; oy < t->oh; oy++)
      for (int64_t ox = 0; ox < t->ow; ox++) {
        int64_t y0 = start_of(oy, t->h, t->oh), y1 = end_of(oy, t->h, t->oh);
        int64_t x0 = start_of(ox, t->w, t->ow), x1 = end_of(ox, t->w, t->ow);
        double sum = 0;
        for (int64_t y = y0; y < y1; y++)
          for (int64_t x = x0; x < x1; x++)
            sum += ref_get(&t->input, (pl * t->h + y) * t->w + x);
        ref_set(&t->out, (pl * t->oh + oy) * t->ow + ox,
                sum / (double)((y1 - y0) * (x1 - x0)));
      }
}

static void avg_backward(void *context, int64_t begin, int64_t end) {
  const pool_task_t *t = context;
  for (int64_t pl = begin; pl < end; pl++)
    for (int64_t y = 0; y < t->h; y++)
      for (int64_t x = 0; x < t->w; x++) {
        double sum = 0;
        /* The output cells whose window covers (y, x). */
        for (int64_t oy = 0; oy < t->oh; oy++) {
          int64_t y0 = start_of(oy, t->h, t->oh), y1 = end_of(oy, t->h, t->oh);
          if (y < y0 || y >= y1)
            continue;
          for (int64_t ox = 0; ox < t->ow; ox++) {
            int64_t x0 = start_of(ox, t->w, t->ow),
                    x1 = end_of(ox, t->w, t->ow);
            if (x >= x0 && x < x1)
              sum += ref_get(&t->grad_output, (pl * t->oh + oy) * t->ow + ox) /
                     (double)((y1 - y0) * (x1 - x0));
          }
        }
        ref_set(&t->out, (pl * t->h + y) * t->w + x, sum);
      }
}

static void run_max(void *args) {
  pool_task_t *t = args;
  /* a plane is h * w elements: a few planes make a chunk */
  int64_t grain = (1 << 14) / (t->h * t->w + 1) + 1;
  if (!t->f32) {
    ref_window_pool_t w;
    max_generic(t, &w);
    ref_parallel_for(w.in.count, grain, ref_window_pool_range, &w);
    return;
  }
  ref_parallel_for(t->planes, grain, t->backward ? max_backward : max_forward,
                   t);
}
static void run_avg(void *args) {
  pool_task_t *t = args;
  /* a plane is h * w elements: a few planes make a chunk */
  ref_parallel_for(t->planes, (1 << 14) / (t->h * t->w + 1) + 1,
                   t->backward ? avg_backward : avg_forward, t);
}

/* planes, h, w from a (N, C, H, W) or (C, H, W) input. */
static diopiError_t planes_of(const char *op, pool_task_t *t) {
  if (t->input.ndim != 3 && t->input.ndim != 4)
    return ref_fail(op, "input: %d dims, expected (N, C, H, W) or (C, H, W)",
                    t->input.ndim);
  int nd = t->input.ndim;
  t->h = t->input.shape[nd - 2];
  t->w = t->input.shape[nd - 1];
  t->planes = t->h * t->w != 0 ? t->input.numel / (t->h * t->w) : 0;
  return diopiSuccess;
}

/* The pooled shape: input's with H, W replaced. */
static void pooled_shape(const pool_task_t *t, int64_t *shape) {
  memcpy(shape, t->input.shape, sizeof(int64_t) * (size_t)t->input.ndim);
  shape[t->input.ndim - 2] = t->oh;
  shape[t->input.ndim - 1] = t->ow;
}

static diopiError_t max_setup(const char *op, pool_task_t *t,
                              diopiSize_t kernel_size, diopiSize_t stride,
                              diopiSize_t padding, diopiSize_t dilation,
                              bool ceil_mode) {
  diopiError_t err = planes_of(op, t);
  if (!err)
    err = ref_pool_window2(op, kernel_size, stride, padding, dilation, t->k,
                           t->stride, t->pad, t->dil);
  if (err)
    return err;
  t->oh = ref_window_out(t->h, t->k[0], t->stride[0], t->pad[0], t->dil[0],
                         ceil_mode);
  t->ow = ref_window_out(t->w, t->k[1], t->stride[1], t->pad[1], t->dil[1],
                         ceil_mode);
  if (t->oh < 1 || t->ow < 1)
    return ref_fail(op, "input: %lldx%lld is smaller than the window",
                    (long long)t->h, (long long)t->w);
  return diopiSuccess;
}

static diopiError_t max_forward_op(diopiContextHandle_t ctx, const char *op,
                                   diopiTensorHandle_t out,
                                   diopiTensorHandle_t indices,
                                   diopiConstTensorHandle_t input,
                                   diopiSize_t kernel_size, diopiSize_t stride,
                                   diopiSize_t padding, diopiSize_t dilation,
                                   bool ceil_mode) {
  pool_task_t t;
  memset(&t, 0, sizeof t);
  int64_t shape[4];
  diopiError_t err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view_optional(ctx, op, "indices", indices, &t.indices,
                            &t.has_indices);
  if (!err)
    err = max_setup(op, &t, kernel_size, stride, padding, dilation, ceil_mode);
  if (err)
    return err;
  pooled_shape(&t, shape);
  err = ref_expect_shape(op, "out", &t.out, shape, t.input.ndim);
  if (!err && t.has_indices)
    err = ref_expect_shape(op, "indices", &t.indices, shape, t.input.ndim);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input);
  if (err || t.out.numel == 0)
    return err;
  t.f32 = max_f32(&t);
  return ref_enqueue(ctx, op, run_max, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiMaxPool2d(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t input,
                                       diopiSize_t kernel_size,
                                       diopiSize_t stride, diopiSize_t padding,
                                       diopiSize_t dilation, bool ceil_mode) {
  return max_forward_op(ctx, "diopiMaxPool2d", out, NULL, input, kernel_size,
                        stride, padding, dilation, ceil_mode);
}

REF_EXPORT diopiError_t diopiMaxPool2dWithIndices(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiTensorHandle_t indices, diopiConstTensorHandle_t input,
    diopiSize_t kernel_size, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, bool ceil_mode) {
  if (!indices)
    return ref_fail("diopiMaxPool2dWithIndices", "indices: tensor is NULL");
  return max_forward_op(ctx, "diopiMaxPool2dWithIndices", out, indices, input,
                        kernel_size, stride, padding, dilation, ceil_mode);
}

REF_EXPORT diopiError_t diopiMaxPool2dBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiSize_t kernel_size, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, bool ceil_mode, diopiConstTensorHandle_t indices) {
  const char *op = "diopiMaxPool2dBackward";
  pool_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  int64_t shape[4];
  diopiError_t err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "grad_input", grad_input, &t.out);
  if (!err)
    err = ref_view(ctx, op, "grad_output", grad_output, &t.grad_output);
  if (!err)
    err = ref_view(ctx, op, "indices", indices, &t.indices);
  if (!err)
    err = max_setup(op, &t, kernel_size, stride, padding, dilation, ceil_mode);
  if (err)
    return err;
  pooled_shape(&t, shape);
  err =
      ref_expect_shape(op, "grad_output", &t.grad_output, shape, t.input.ndim);
  if (!err)
    err = ref_expect_shape(op, "indices", &t.indices, shape, t.input.ndim);
  if (!err)
    err =
        ref_expect_shape(op, "grad_input", &t.out, t.input.shape, t.input.ndim);
  if (err || t.out.numel == 0)
    return err;
  t.f32 = max_f32(&t);
  return ref_enqueue_checked(ctx, op,
                             t.indices.numel ? check_plane_offsets : NULL,
                             run_max, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiAdaptiveAvgPool2d(diopiContextHandle_t ctx,
                                               diopiTensorHandle_t out,
                                               diopiConstTensorHandle_t input,
                                               diopiSize_t output_size) {
  const char *op = "diopiAdaptiveAvgPool2d";
  pool_task_t t;
  memset(&t, 0, sizeof t);
  int64_t size[2] = {0, 0}, shape[4];
  diopiError_t err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = planes_of(op, &t);
  if (!err)
    err = ref_window_pair(op, "output_size", output_size, 0, 0, size);
  if (!err && output_size.len == 0)
    err = ref_fail(op, "output_size: empty");
  if (err)
    return err;
  t.oh = size[0];
  t.ow = size[1];
  pooled_shape(&t, shape);
  err = ref_expect_shape(op, "out", &t.out, shape, t.input.ndim);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input);
  if (err || t.out.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run_avg, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiAdaptiveAvgPool2dBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input) {
  const char *op = "diopiAdaptiveAvgPool2dBackward";
  pool_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  diopiError_t err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "grad_input", grad_input, &t.out);
  if (!err)
    err = ref_view(ctx, op, "grad_output", grad_output, &t.grad_output);
  if (!err)
    err = planes_of(op, &t);
  if (!err && t.grad_output.ndim != t.input.ndim)
    err = ref_fail(op, "grad_output: %d dims, input has %d", t.grad_output.ndim,
                   t.input.ndim);
  if (!err)
    err =
        ref_expect_shape(op, "grad_input", &t.out, t.input.shape, t.input.ndim);
  if (err)
    return err;
  t.oh = t.grad_output.shape[t.input.ndim - 2];
  t.ow = t.grad_output.shape[t.input.ndim - 1];
  int64_t shape[4];
  pooled_shape(&t, shape);
  err =
      ref_expect_shape(op, "grad_output", &t.grad_output, shape, t.input.ndim);
  if (err || t.out.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run_avg, &t, sizeof t);
}
