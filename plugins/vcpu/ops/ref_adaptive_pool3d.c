/* 3-d adaptive pooling (DIOPI's diopiAdaptiveAvgPool3d,
 * diopiAdaptiveMaxPool3d, diopiAdaptiveMaxPool3dWithIndices and their
 * backward) over (N, C, D, H, W) or (C, D, H, W) strided views of any
 * floating dtype, in double, one volume per work item. Output o of `out`
 * along a dim of `in` covers [o * in / out, ceil((o + 1) * in / out)), as
 * PyTorch's adaptive pools; a max window's (last) NaN wins and its index is
 * the flat d * H * W + h * W + w within the volume. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_volume.h"
#include "ref_window.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

typedef struct adaptive3_task {
  bool max, backward, has_indices;
  ref_volumes_t in, out, indices; /* backward: in = grad_input, out = grad */
} adaptive3_task_t;

/* The window of output (o[0], o[1], o[2]): [lo, hi) per dim. */
static void window(const adaptive3_task_t *t, const int64_t o[3], int64_t lo[3],
                   int64_t hi[3]) {
  for (int i = 0; i < 3; i++) {
    lo[i] = ref_adaptive_start(o[i], t->in.size[i], t->out.size[i]);
    hi[i] = ref_adaptive_end(o[i], t->in.size[i], t->out.size[i]);
  }
}

static void forward_cell(const adaptive3_task_t *t, int64_t v,
                         const int64_t o[3]) {
  int64_t lo[3], hi[3], best = -1;
  window(t, o, lo, hi);
  double acc = t->max ? -INFINITY : 0;
  for (int64_t d = lo[0]; d < hi[0]; d++)
    for (int64_t h = lo[1]; h < hi[1]; h++)
      for (int64_t w = lo[2]; w < hi[2]; w++) {
        double x = ref_volume_get(&t->in, v, d, h, w);
        if (!t->max) {
          acc += x;
        } else if (best < 0 || x > acc || isnan(x)) {
          acc = x;
          best = (d * t->in.size[1] + h) * t->in.size[2] + w;
        }
      }
  if (!t->max)
    acc /= (double)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
  ref_volume_set(&t->out, v, o[0], o[1], o[2], acc);
  if (t->has_indices)
    ref_volume_set(&t->indices, v, o[0], o[1], o[2], (double)best);
}

/* grad_input of volume v: zeros, then each output's gradient added at its
 * index (max) or spread over its window (average). */
static void backward_volume(const adaptive3_task_t *t, int64_t v) {
  const int64_t *is = t->in.size;
  for (int64_t d = 0; d < is[0]; d++)
    for (int64_t h = 0; h < is[1]; h++)
      for (int64_t w = 0; w < is[2]; w++)
        ref_volume_set(&t->in, v, d, h, w, 0);
  int64_t o[3];
  for (o[0] = 0; o[0] < t->out.size[0]; o[0]++)
    for (o[1] = 0; o[1] < t->out.size[1]; o[1]++)
      for (o[2] = 0; o[2] < t->out.size[2]; o[2]++) {
        double g = ref_volume_get(&t->out, v, o[0], o[1], o[2]);
        if (t->max) {
          int64_t i = (int64_t)ref_volume_get(&t->indices, v, o[0], o[1], o[2]);
          int64_t d = i / (is[1] * is[2]), h = i / is[2] % is[1], w = i % is[2];
          ref_volume_set(&t->in, v, d, h, w,
                         ref_volume_get(&t->in, v, d, h, w) + g);
          continue;
        }
        int64_t lo[3], hi[3];
        window(t, o, lo, hi);
        g /= (double)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
        for (int64_t d = lo[0]; d < hi[0]; d++)
          for (int64_t h = lo[1]; h < hi[1]; h++)
            for (int64_t w = lo[2]; w < hi[2]; w++)
              ref_volume_set(&t->in, v, d, h, w,
                             ref_volume_get(&t->in, v, d, h, w) + g);
      }
}

static void volumes_range(void *context, int64_t begin, int64_t end) {
  const adaptive3_task_t *t = context;
  for (int64_t v = begin; v < end; v++) {
    if (t->backward) {
      backward_volume(t, v);
      continue;
    }
    int64_t o[3];
    for (o[0] = 0; o[0] < t->out.size[0]; o[0]++)
      for (o[1] = 0; o[1] < t->out.size[1]; o[1]++)
        for (o[2] = 0; o[2] < t->out.size[2]; o[2]++)
          forward_cell(t, v, o);
  }
}

static void run(void *args) {
  adaptive3_task_t *t = args;
  ref_parallel_for(t->in.count, 1, volumes_range, t);
}

/* `h` (named `arg`) of `shape` (input's leading dims, then 3), as volumes;
 * indices must be of an integer dtype. */
static diopiError_t volumes_of(CTX, const char *op, const char *arg, CT h,
                               const ref_view_t *in, const int64_t *shape,
                               ref_volumes_t *out) {
  ref_view_t v;
  diopiError_t err = ref_view(ctx, op, arg, h, &v);
  if (!err)
    err = ref_expect_shape(op, arg, &v, shape, in->ndim);
  if (!err && !strcmp(arg, "indices") && ref_is_floating(v.dtype))
    err = ref_fail(op, "indices: expected an integer dtype, got dtype %d",
                   (int)v.dtype);
  return err ? err : ref_volumes(op, arg, &v, true, out);
}

/* The input as volumes, of a floating dtype. */
static diopiError_t input_volumes(CTX, const char *op, CT input, ref_view_t *in,
                                  ref_volumes_t *out) {
  diopiError_t err = ref_view(ctx, op, "input", input, in);
  if (!err && !ref_is_floating(in->dtype))
    err = ref_fail(op, "input: expected a floating dtype, got dtype %d",
                   (int)in->dtype);
  return err ? err : ref_volumes(op, "input", in, true, out);
}

static diopiError_t forward(CTX, const char *op, bool max, T out, T indices,
                            CT input, diopiSize_t output_size) {
  adaptive3_task_t t;
  memset(&t, 0, sizeof t);
  t.max = max;
  t.has_indices = indices != NULL;
  ref_view_t in;
  int64_t size[3], shape[5];
  diopiError_t err = input_volumes(ctx, op, input, &in, &t.in);
  if (!err && output_size.len == 0)
    err = ref_fail(op, "output_size: expected 1 or 3 values, got none");
  if (!err) /* 0: an empty output, as PyTorch */
    err = ref_window_triple(op, "output_size", output_size, 0, 0, size);
  if (err)
    return err;
  int lead = in.ndim - 3;
  memcpy(shape, in.shape, (size_t)lead * sizeof *shape);
  memcpy(shape + lead, size, sizeof size);
  err = volumes_of(ctx, op, "out", out, &in, shape, &t.out);
  if (!err && indices)
    err = volumes_of(ctx, op, "indices", indices, &in, shape, &t.indices);
  if (!err)
    for (int i = 0; i < 3; i++)
      if (t.in.size[i] == 0 && size[i] > 0)
        err = ref_fail(op, "input: dim %d is empty, pooled to %lld", lead + i,
                       (long long)size[i]);
  if (err || in.numel == 0 || size[0] * size[1] * size[2] == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

static diopiError_t backward(CTX, const char *op, bool max, T grad_input,
                             CT grad_output, CT input, CT indices) {
  adaptive3_task_t t;
  memset(&t, 0, sizeof t);
  t.max = max;
  t.backward = true;
  ref_view_t in, go;
  diopiError_t err = input_volumes(ctx, op, input, &in, &t.in);
  if (!err && max && !indices)
    err = ref_fail(op, "indices: tensor is NULL");
  if (!err)
    err = ref_view(ctx, op, "grad_output", grad_output, &go);
  if (!err && go.ndim != in.ndim)
    err = ref_fail(op, "grad_output: %d dims, expected %d as input", go.ndim,
                   in.ndim);
  if (err)
    return err;
  int64_t shape[5];
  memcpy(shape, go.shape, (size_t)go.ndim * sizeof *shape);
  memcpy(shape, in.shape, (size_t)(in.ndim - 3) * sizeof *shape);
  err = volumes_of(ctx, op, "grad_output", grad_output, &in, shape, &t.out);
  if (!err && max)
    err = volumes_of(ctx, op, "indices", indices, &in, shape, &t.indices);
  if (!err)
    err = volumes_of(ctx, op, "grad_input", grad_input, &in, in.shape, &t.in);
  if (err || in.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiAdaptiveAvgPool3d(CTX, T out, CT input,
                                               diopiSize_t output_size) {
  return forward(ctx, "diopiAdaptiveAvgPool3d", false, out, NULL, input,
                 output_size);
}
REF_EXPORT diopiError_t diopiAdaptiveAvgPool3dBackward(CTX, T grad_input,
                                                       CT grad_output,
                                                       CT input) {
  return backward(ctx, "diopiAdaptiveAvgPool3dBackward", false, grad_input,
                  grad_output, input, NULL);
}
REF_EXPORT diopiError_t diopiAdaptiveMaxPool3d(CTX, T out, CT input,
                                               diopiSize_t output_size) {
  return forward(ctx, "diopiAdaptiveMaxPool3d", true, out, NULL, input,
                 output_size);
}
REF_EXPORT diopiError_t diopiAdaptiveMaxPool3dWithIndices(
    CTX, T out, T indices, CT input, diopiSize_t output_size) {
  const char *op = "diopiAdaptiveMaxPool3dWithIndices";
  if (!indices)
    return ref_fail(op, "indices: tensor is NULL");
  return forward(ctx, op, true, out, indices, input, output_size);
}
REF_EXPORT diopiError_t diopiAdaptiveMaxPool3dBackward(CTX, T grad_input,
                                                       CT grad_output, CT input,
                                                       CT indices) {
  return backward(ctx, "diopiAdaptiveMaxPool3dBackward", true, grad_input,
                  grad_output, input, indices);
}
