/* argmax over one dim (or, with dim NULL, over everything): the first
 * index of the largest value, NaN counting as the largest (PyTorch). */
#include <diopi/functions.h>

#include "co_error.h"
#include "co_exec.h"
#include "kernels/co_kernel_args.h"

CO_EXPORT diopiError_t diopiArgmax(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out_t,
                                   diopiConstTensorHandle_t input_t,
                                   const int64_t *dim, bool keepdim) {
  const char *op = "diopiArgmax";
  co_view_t out, input;
  diopiError_t e;
  if ((e = co_view(op, "input", input_t, diopi_dtype_float32, &input)) ||
      (e = co_view(op, "out", out_t, diopi_dtype_int64, &out)) ||
      (e = co_expect_dense(op, &input)) || (e = co_expect_dense(op, &out)))
    return e;
  if (input.numel == 0)
    return co_fail(op, "input: argmax of an empty tensor");
  long long outer = 1, size = input.numel, inner = 1;
  int64_t shape[CO_MAX_VIEW_DIMS];
  int n = 0;
  if (dim) {
    int d = (int)(*dim < 0 ? *dim + (input.ndim ? input.ndim : 1) : *dim);
    if (d < 0 || d >= (input.ndim ? input.ndim : 1))
      return co_fail(op, "dim: %lld is out of range for %d dims",
                     (long long)*dim, input.ndim);
    size = input.ndim ? input.shape[d] : 1;
    for (int i = 0; i < input.ndim; i++) {
      if (i < d)
        outer *= input.shape[i];
      if (i > d)
        inner *= input.shape[i];
      if (i != d || keepdim)
        shape[n++] = i == d ? 1 : input.shape[i];
    }
  } else {
    for (int i = 0; keepdim && i < input.ndim; i++)
      shape[n++] = 1;
  }
  if ((e = co_expect_shape(op, &out, shape, n)))
    return e;
  co_exec_t x;
  const co_view_t *views[] = {&out, &input};
  if ((e = co_begin(ctx, op, views, 2, &x)))
    return e;
  co_argmax_args a = {.out = out.data,
                      .in = input.data,
                      .outer = outer,
                      .size = size,
                      .inner = inner};
  return co_launch(&x, CO_K_ARGMAX, outer * inner, &a);
}
