/* 2-d max pooling (with indices, ceil_mode, dilation) and its backward, on
 * dense float32 [N, C, H, W] or [C, H, W] tensors; indices are int64 flat
 * positions within each plane, as PyTorch's. */
#include <diopi/functions.h>

#include "co_error.h"
#include "co_exec.h"
#include "co_strided.h"
#include "co_window.h"

static const diopiDtype_t F32 = diopi_dtype_float32;

typedef struct pool {
  const char *op;
  co_view_t input;
  co_window w;
  long long planes;
  int64_t out_shape[4];
} pool_t;

static diopiError_t pool_check(pool_t *p, const char *op,
                               diopiConstTensorHandle_t input_t,
                               diopiSize_t kernel, diopiSize_t stride,
                               diopiSize_t padding, diopiSize_t dilation,
                               bool ceil_mode) {
  p->op = op;
  diopiError_t e;
  if ((e = co_view(op, "input", input_t, F32, &p->input)) ||
      (e = co_expect_dense(op, &p->input)))
    return e;
  int n = p->input.ndim;
  if (n != 3 && n != 4)
    return co_fail(op,
                   "input: expected [N, C, H, W] or [C, H, W], got %d "
                   "dims",
                   n);
  if ((kernel.len != 1 && kernel.len != 2) || !kernel.data ||
      kernel.data[0] < 1 || kernel.data[kernel.len - 1] < 1)
    return co_fail(op, "kernel_size: expected 1 or 2 values >= 1");
  p->planes = p->input.numel / (p->input.shape[n - 2] * p->input.shape[n - 1]);
  p->w.channels = 1;
  p->w.height = p->input.shape[n - 2];
  p->w.width = p->input.shape[n - 1];
  if ((e = co_window_set(op, &p->w, kernel.data[0], kernel.data[kernel.len - 1],
                         stride, padding, dilation, ceil_mode)))
    return e;
  if (p->w.pad_h * 2 > p->w.kernel_h || p->w.pad_w * 2 > p->w.kernel_w)
    return co_fail(op,
                   "padding: %lld, %lld is more than half the %lld x "
                   "%lld kernel",
                   p->w.pad_h, p->w.pad_w, p->w.kernel_h, p->w.kernel_w);
  for (int d = 0; d < n - 2; d++)
    p->out_shape[d] = p->input.shape[d];
  p->out_shape[n - 2] = p->w.out_height;
  p->out_shape[n - 1] = p->w.out_width;
  return diopiSuccess;
}

static diopiError_t expect_out(const pool_t *p, const co_view_t *v) {
  diopiError_t e = co_expect_shape(p->op, v, p->out_shape, p->input.ndim);
  return e ? e : co_expect_dense(p->op, v);
}

static diopiError_t
max_pool(diopiContextHandle_t ctx, const char *op, diopiTensorHandle_t out_t,
         diopiTensorHandle_t indices_t, diopiConstTensorHandle_t input_t,
         diopiSize_t kernel, diopiSize_t stride, diopiSize_t padding,
         diopiSize_t dilation, bool ceil_mode) {
  pool_t p;
  co_view_t out, indices;
  diopiError_t e;
  if ((e = pool_check(&p, op, input_t, kernel, stride, padding, dilation,
                      ceil_mode)) ||
      (e = co_view(op, "out", out_t, F32, &out)) || (e = expect_out(&p, &out)))
    return e;
  if (indices_t &&
      ((e = co_view(op, "indices", indices_t, diopi_dtype_int64, &indices)) ||
       (e = expect_out(&p, &indices))))
    return e;
  co_exec_t x;
  const co_view_t *views[] = {&out, &p.input, indices_t ? &indices : NULL};
  if ((e = co_begin(ctx, op, views, 3, &x)))
    return e;
  co_max_pool_args a = {.out = out.data,
                        .indices = indices_t ? indices.data : NULL,
                        .in = p.input.data,
                        .planes = p.planes,
                        .w = p.w};
  return co_launch(&x, CO_K_MAX_POOL, out.numel, &a);
}

CO_EXPORT diopiError_t diopiMaxPool2d(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t out,
                                      diopiConstTensorHandle_t input,
                                      diopiSize_t kernel_size,
                                      diopiSize_t stride, diopiSize_t padding,
                                      diopiSize_t dilation, bool ceil_mode) {
  return max_pool(ctx, "diopiMaxPool2d", out, NULL, input, kernel_size, stride,
                  padding, dilation, ceil_mode);
}

CO_EXPORT diopiError_t diopiMaxPool2dWithIndices(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiTensorHandle_t indices, diopiConstTensorHandle_t input,
    diopiSize_t kernel_size, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, bool ceil_mode) {
  const char *op = "diopiMaxPool2dWithIndices";
  if (!indices)
    return co_fail(op, "indices: expected a tensor, got NULL");
  return max_pool(ctx, op, out, indices, input, kernel_size, stride, padding,
                  dilation, ceil_mode);
}

CO_EXPORT diopiError_t diopiMaxPool2dBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input_t,
    diopiConstTensorHandle_t grad_output_t, diopiConstTensorHandle_t input_t,
    diopiSize_t kernel_size, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, bool ceil_mode, diopiConstTensorHandle_t indices_t) {
  const char *op = "diopiMaxPool2dBackward";
  pool_t p;
  co_view_t grad_input, grad_output, indices;
  diopiError_t e;
  if ((e = pool_check(&p, op, input_t, kernel_size, stride, padding, dilation,
                      ceil_mode)) ||
      (e = co_view(op, "grad_output", grad_output_t, F32, &grad_output)) ||
      (e = expect_out(&p, &grad_output)) ||
      (e = co_view(op, "indices", indices_t, diopi_dtype_int64, &indices)) ||
      (e = expect_out(&p, &indices)) ||
      (e = co_view(op, "grad_input", grad_input_t, F32, &grad_input)) ||
      (e = co_expect_shape(op, &grad_input, p.input.shape, p.input.ndim)) ||
      (e = co_expect_dense(op, &grad_input)))
    return e;
  co_exec_t x;
  const co_view_t *views[] = {&grad_input, &grad_output, &p.input, &indices};
  if ((e = co_begin(ctx, op, views, 4, &x)) ||
      (e = co_fill_view(&x, &grad_input, 0)))
    return e;
  co_max_pool_backward_args a = {.grad_input = grad_input.data,
                                 .grad_output = grad_output.data,
                                 .indices = indices.data,
                                 .planes = p.planes,
                                 .w = p.w};
  return co_launch(&x, CO_K_MAX_POOL_BACKWARD, grad_output.numel, &a);
}
