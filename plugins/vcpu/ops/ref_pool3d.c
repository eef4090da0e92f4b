/* 3-d pooling (DIOPI's diopiMaxPool3d, diopiMaxPool3dWithIndices,
 * diopiAvgPool3d and their backward) over (N, C, D, H, W) or (C, D, H, W)
 * strided views of any floating dtype: the arguments, the output views and
 * the launch; the windows are ref_window_pool's (shared with 2-d pooling),
 * one volume per pool item. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_volume.h"
#include "ref_window.h"
#include "ref_window_pool.h"

static void run(void *args) {
  ref_window_pool_t *t = args;
  ref_parallel_for(t->in.count, 1, ref_window_pool_range, t);
}

/* Attributes, the input's volumes and the output shape; `out`/`out_arg`:
 * the output or grad_output (NULL: none). */
static diopiError_t geometry(const char *op, ref_window_pool_t *t,
                             const ref_view_t *in, diopiSize_t kernel_size,
                             diopiSize_t stride, diopiSize_t padding,
                             diopiSize_t dilation, bool ceil_mode,
                             int64_t out_shape[5]) {
  diopiError_t err = ref_volumes(op, "input", in, true, &t->in);
  if (!err)
    err = ref_window_triple(op, "kernel_size", kernel_size, 1, 1, t->k);
  if (!err) /* an empty stride: the kernel size (below) */
    err = ref_window_attrs3(op, in->dtype, stride, padding, dilation, 0,
                            t->stride, t->padding, t->dilation);
  if (err)
    return err;
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
  ref_window_pool_t t;
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
  ref_window_pool_t t;
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
  ref_window_pool_t t;
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
