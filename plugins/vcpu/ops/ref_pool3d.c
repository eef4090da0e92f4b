/* 3-d pooling (DIOPI's diopiMaxPool3d, diopiMaxPool3dWithIndices,
 * diopiAvgPool3d and their backward) over (N, C, D, H, W) or (C, D, H, W)
 * strided views of any floating dtype, as PyTorch's CPU kernels compute
 * them: max windows step by the dilation, a NaN wins, and the index is the
 * flat d * H * W + h * W + w within the volume; average windows count the
 * padding (count_include_pad) or only the input, unless divisor_override
 * says the divisor. One volume per pool item: backward scatters stay in
 * their volume. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_volume.h"
#include "ref_window.h"

typedef struct pool3d_task {
  ref_volumes_t in, out;          /* out: the output, or grad_output */
  ref_volumes_t grad_in, indices; /* backward; indices: max's */
  bool is_max, has_out, has_indices, backward;
  bool count_include_pad, has_divisor;
  int64_t divisor;
  int64_t k[3], stride[3], padding[3], dilation[3];
} pool3d_task_t;

/* The window of output coordinate `o` in dim `dim`: [*start, *end) in
 * steps of the dilation, clipped to the input. avg: *pool is the
 * unclipped size counting the padding. */
static void window(const pool3d_task_t *t, int dim, int64_t o, int64_t *start,
                   int64_t *end, int64_t *pool) {
  int64_t s = o * t->stride[dim] - t->padding[dim];
  int64_t in = t->in.size[dim];
  if (t->is_max) {
    int64_t e = s + (t->k[dim] - 1) * t->dilation[dim] + 1;
    while (s < 0)
      s += t->dilation[dim];
    *start = s;
    *end = e < in ? e : in;
    *pool = 0;
    return;
  }
  int64_t e = s + t->k[dim];
  int64_t limit = in + t->padding[dim];
  *pool = (e < limit ? e : limit) - s;
  *start = s < 0 ? 0 : s;
  *end = e < in ? e : in;
}

/* The max of a window: its flat index, and value through *value. */
static int64_t window_max(const pool3d_task_t *t, int64_t v,
                          const int64_t start[3], const int64_t end[3],
                          double *value) {
  const int64_t *is = t->in.size;
  int64_t best = (start[0] * is[1] + start[1]) * is[2] + start[2];
  double max = -INFINITY;
  for (int64_t d = start[0]; d < end[0]; d += t->dilation[0])
    for (int64_t h = start[1]; h < end[1]; h += t->dilation[1])
      for (int64_t w = start[2]; w < end[2]; w += t->dilation[2]) {
        double x = ref_volume_get(&t->in, v, d, h, w);
        if (x > max || isnan(x)) {
          max = x;
          best = (d * is[1] + h) * is[2] + w;
          if (isnan(x))
            goto done;
        }
      }
done:
  *value = max;
  return best;
}

static double divisor(const pool3d_task_t *t, const int64_t start[3],
                      const int64_t end[3], const int64_t pool[3]) {
  if (t->has_divisor)
    return (double)t->divisor;
  if (t->count_include_pad)
    return (double)(pool[0] * pool[1] * pool[2]);
  return (double)((end[0] - start[0]) * (end[1] - start[1]) *
                  (end[2] - start[2]));
}

static void pool_range(void *context, int64_t begin, int64_t end_volume) {
  const pool3d_task_t *t = context;
  const int64_t *os = t->out.size, *is = t->in.size;
  for (int64_t v = begin; v < end_volume; v++) {
    if (t->backward)
      for (int64_t d = 0; d < is[0]; d++)
        for (int64_t h = 0; h < is[1]; h++)
          for (int64_t w = 0; w < is[2]; w++)
            ref_volume_set(&t->grad_in, v, d, h, w, 0);
    int64_t o[3];
    for (o[0] = 0; o[0] < os[0]; o[0]++)
      for (o[1] = 0; o[1] < os[1]; o[1]++)
        for (o[2] = 0; o[2] < os[2]; o[2]++) {
          int64_t start[3], end[3], pool[3];
          for (int i = 0; i < 3; i++)
            window(t, i, o[i], &start[i], &end[i], &pool[i]);
          if (t->is_max && t->backward) {
            int64_t at =
                (int64_t)ref_volume_get(&t->indices, v, o[0], o[1], o[2]);
            int64_t d = at / (is[1] * is[2]), h = at / is[2] % is[1],
                    w = at % is[2];
            double g = ref_volume_get(&t->out, v, o[0], o[1], o[2]);
            ref_volume_set(&t->grad_in, v, d, h, w,
                           ref_volume_get(&t->grad_in, v, d, h, w) + g);
          } else if (t->is_max) {
            double max;
            int64_t at = window_max(t, v, start, end, &max);
            if (t->has_out)
              ref_volume_set(&t->out, v, o[0], o[1], o[2], max);
            if (t->has_indices)
              ref_volume_set(&t->indices, v, o[0], o[1], o[2], (double)at);
          } else if (start[0] >= end[0] || start[1] >= end[1] ||
                     start[2] >= end[2]) {
            if (!t->backward) /* a window wholly in the padding */
              ref_volume_set(&t->out, v, o[0], o[1], o[2], 0);
          } else {
            double share = 1 / divisor(t, start, end, pool), sum = 0;
            double g =
                t->backward ? ref_volume_get(&t->out, v, o[0], o[1], o[2]) : 0;
            for (int64_t d = start[0]; d < end[0]; d++)
              for (int64_t h = start[1]; h < end[1]; h++)
                for (int64_t w = start[2]; w < end[2]; w++) {
                  if (t->backward)
                    ref_volume_set(&t->grad_in, v, d, h, w,
                                   ref_volume_get(&t->grad_in, v, d, h, w) +
                                       g * share);
                  else
                    sum += ref_volume_get(&t->in, v, d, h, w);
                }
            if (!t->backward)
              ref_volume_set(&t->out, v, o[0], o[1], o[2], sum * share);
          }
        }
  }
}

static void run(void *args) {
  pool3d_task_t *t = args;
  ref_parallel_for(t->in.count, 1, pool_range, t);
}

/* Attributes, the input's volumes and the output shape; `out`/`out_arg`:
 * the output or grad_output (NULL: none). */
static diopiError_t geometry(const char *op, pool3d_task_t *t,
                             const ref_view_t *in, diopiSize_t kernel_size,
                             diopiSize_t stride, diopiSize_t padding,
                             diopiSize_t dilation, bool ceil_mode,
                             int64_t out_shape[5]) {
  diopiError_t err = ref_volumes(op, "input", in, true, &t->in);
  if (!err)
    err = ref_window_triple(op, "kernel_size", kernel_size, 1, 1, t->k);
  if (!err)
    err = ref_window_triple(op, "stride", stride, 1, 0, t->stride);
  if (!err)
    err = ref_window_triple(op, "padding", padding, 0, 0, t->padding);
  if (!err)
    err = ref_window_triple(op, "dilation", dilation, 1, 1, t->dilation);
  if (err)
    return err;
  if (!ref_is_floating(in->dtype))
    return ref_fail(op, "input: expected a floating dtype, got dtype %d",
                    (int)in->dtype);
  for (int i = 0; i < in->ndim - 3; i++)
    out_shape[i] = in->shape[i];
  for (int i = 0; i < 3; i++) {
    if (t->stride[i] == 0) /* empty: the kernel size */
      t->stride[i] = t->k[i];
    if (2 * t->padding[i] > t->k[i])
      return ref_fail(op,
                      "padding: %lld in dim %d, expected at most half the "
                      "kernel size %lld",
                      (long long)t->padding[i], i, (long long)t->k[i]);
    int64_t o = ref_window_out(t->in.size[i], t->k[i], t->stride[i],
                               t->padding[i], t->dilation[i], ceil_mode);
    if (o < 1)
      return ref_fail(op, "input: %lld in dim %d gives an empty output",
                      (long long)t->in.size[i], in->ndim - 3 + i);
    out_shape[in->ndim - 3 + i] = o;
  }
  return diopiSuccess;
}

/* A view `arg` of the output's shape, as volumes. */
static diopiError_t output(const char *op, const char *arg, const ref_view_t *v,
                           const ref_view_t *in, const int64_t *shape,
                           ref_volumes_t *out) {
  diopiError_t err = ref_expect_shape(op, arg, v, shape, in->ndim);
  return err ? err : ref_volumes(op, arg, v, true, out);
}

static diopiError_t max_forward(diopiContextHandle_t ctx, const char *op,
                                diopiTensorHandle_t out,
                                diopiTensorHandle_t indices,
                                diopiConstTensorHandle_t input, diopiSize_t k,
                                diopiSize_t s, diopiSize_t p, diopiSize_t d,
                                bool ceil_mode) {
  pool3d_task_t t;
  memset(&t, 0, sizeof t);
  t.is_max = true;
  ref_view_t in, o, idx;
  const ref_arg_t args[] = {{"out", out, &o, NULL},
                            {"input", input, &in, NULL},
                            {"indices", indices, &idx, &t.has_indices}};
  int64_t shape[5];
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args) - !indices);
  if (!err)
    err = geometry(op, &t, &in, k, s, p, d, ceil_mode, shape);
  if (!err)
    err = output(op, "out", &o, &in, shape, &t.out);
  if (!err && t.has_indices)
    err = output(op, "indices", &idx, &in, shape, &t.indices);
  if (!err && t.has_indices && ref_is_floating(idx.dtype))
    err = ref_fail(op, "indices: expected an integer dtype, got dtype %d",
                   (int)idx.dtype);
  t.has_out = true;
  if (err || in.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiMaxPool3d(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t input,
                                       diopiSize_t kernel_size,
                                       diopiSize_t stride, diopiSize_t padding,
                                       diopiSize_t dilation, bool ceil_mode) {
  return max_forward(ctx, "diopiMaxPool3d", out, NULL, input, kernel_size,
                     stride, padding, dilation, ceil_mode);
}

REF_EXPORT diopiError_t diopiMaxPool3dWithIndices(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiTensorHandle_t indices, diopiConstTensorHandle_t input,
    diopiSize_t kernel_size, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, bool ceil_mode) {
  if (!indices)
    return ref_fail("diopiMaxPool3dWithIndices", "indices: is NULL");
  return max_forward(ctx, "diopiMaxPool3dWithIndices", out, indices, input,
                     kernel_size, stride, padding, dilation, ceil_mode);
}

REF_EXPORT diopiError_t diopiMaxPool3dBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiSize_t kernel_size, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, bool ceil_mode, diopiConstTensorHandle_t indices) {
  const char *op = "diopiMaxPool3dBackward";
  pool3d_task_t t;
  memset(&t, 0, sizeof t);
  t.is_max = t.backward = true;
  ref_view_t in, gi, go, idx;
  const ref_arg_t args[] = {{"grad_input", grad_input, &gi, NULL},
                            {"grad_output", grad_output, &go, NULL},
                            {"input", input, &in, NULL},
                            {"indices", indices, &idx, NULL}};
  int64_t shape[5];
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (!err)
    err = geometry(op, &t, &in, kernel_size, stride, padding, dilation,
                   ceil_mode, shape);
  if (!err)
    err = output(op, "grad_output", &go, &in, shape, &t.out);
  if (!err)
    err = output(op, "indices", &idx, &in, shape, &t.indices);
  if (!err)
    err = output(op, "grad_input", &gi, &in, in.shape, &t.grad_in);
  if (err || in.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

static diopiError_t
avg(diopiContextHandle_t ctx, const char *op, diopiTensorHandle_t result,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiSize_t k, diopiSize_t s, diopiSize_t p, bool ceil_mode,
    bool count_include_pad, const int64_t *divisor_override) {
  pool3d_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = grad_output != NULL;
  t.count_include_pad = count_include_pad;
  t.has_divisor = divisor_override != NULL;
  t.divisor = t.has_divisor ? *divisor_override : 0;
  if (t.has_divisor && t.divisor == 0)
    return ref_fail(op, "divisor_override: expected nonzero, got 0");
  ref_view_t in, r, go;
  const ref_arg_t args[] = {
      {t.backward ? "grad_input" : "out", result, &r, NULL},
      {"input", input, &in, NULL},
      {"grad_output", grad_output, &go, NULL}};
  int64_t shape[5];
  diopiSize_t no_dilation = {NULL, 0};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args) - !t.backward);
  if (!err)
    err = geometry(op, &t, &in, k, s, p, no_dilation, ceil_mode, shape);
  if (!err && t.backward)
    err = output(op, "grad_output", &go, &in, shape, &t.out);
  if (!err && t.backward)
    err = output(op, "grad_input", &r, &in, in.shape, &t.grad_in);
  if (!err && !t.backward)
    err = output(op, "out", &r, &in, shape, &t.out);
  if (err || in.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiAvgPool3d(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t input,
                                       diopiSize_t kernel_size,
                                       diopiSize_t stride, diopiSize_t padding,
                                       bool ceil_mode, bool count_include_pad,
                                       const int64_t *divisor_override) {
  return avg(ctx, "diopiAvgPool3d", out, NULL, input, kernel_size, stride,
             padding, ceil_mode, count_include_pad, divisor_override);
}

REF_EXPORT diopiError_t diopiAvgPool3dBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiSize_t kernel_size, diopiSize_t stride, diopiSize_t padding,
    bool ceil_mode, bool count_include_pad, const int64_t *divisor_override) {
  if (!grad_output)
    return ref_fail("diopiAvgPool3dBackward", "grad_output: is NULL");
  return avg(ctx, "diopiAvgPool3dBackward", grad_input, grad_output, input,
             kernel_size, stride, padding, ceil_mode, count_include_pad,
             divisor_override);
}
