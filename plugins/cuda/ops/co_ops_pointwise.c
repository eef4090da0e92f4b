/* Elementwise ops: fill, copy, relu and its backward (threshold). */
#include <diopi/functions.h>

#include "co_error.h"
#include "co_exec.h"
#include "co_strided.h"
#include "kernels/co_kernel_args.h"

static const diopiDtype_t F32 = diopi_dtype_float32;

CO_EXPORT diopiError_t diopiFill(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t input_t,
                                 const diopiScalar_t *value) {
  const char *op = "diopiFill";
  co_view_t input;
  diopiError_t e = co_view(op, "input", input_t, F32, &input);
  if (e)
    return e;
  if (!value)
    return co_fail(op, "value: expected a scalar, got NULL");
  co_exec_t x;
  const co_view_t *views[] = {&input};
  if ((e = co_begin(ctx, op, views, 1, &x)))
    return e;
  return co_fill_view(&x, &input, (float)co_scalar(value));
}

CO_EXPORT diopiError_t diopiCopyInp(diopiContextHandle_t ctx,
                                    diopiConstTensorHandle_t src_t,
                                    diopiTensorHandle_t dest_t) {
  const char *op = "diopiCopyInp";
  co_view_t src, dest;
  diopiError_t e;
  if ((e = co_view(op, "src", src_t, F32, &src)) ||
      (e = co_view(op, "dest", dest_t, F32, &dest)) ||
      (e = co_expect_broadcast(op, &src, &dest)))
    return e;
  co_exec_t x;
  const co_view_t *views[] = {&src, &dest};
  if ((e = co_begin(ctx, op, views, 2, &x)))
    return e;
  return co_copy_view(&x, &dest, &src);
}

/* relu of input into out (NULL: in place); the kernel works on dense
 * memory: the target's own, or scratch for a strided one. */
static diopiError_t relu(diopiContextHandle_t ctx, const char *op,
                         diopiTensorHandle_t out_t,
                         diopiConstTensorHandle_t input_t) {
  co_view_t out, input;
  diopiError_t e;
  if ((e = co_view(op, "input", input_t, F32, &input)))
    return e;
  if (out_t && ((e = co_view(op, "out", out_t, F32, &out)) ||
                (e = co_expect_shape(op, &out, input.shape, input.ndim))))
    return e;
  co_exec_t x;
  const co_view_t *views[] = {&input, out_t ? &out : NULL};
  if ((e = co_begin(ctx, op, views, 2, &x)))
    return e;
  const co_view_t *target = out_t ? &out : &input;
  float *data;
  if ((e = co_dense_output(&x, target, &data)))
    return e;
  co_view_t dense = co_dense_view(&input, data);
  if (data != input.data && (e = co_copy_view(&x, &dense, &input)))
    return e;
  co_relu_args a = {.x = data, .n = input.numel};
  if ((e = co_launch(&x, CO_K_RELU, a.n, &a)))
    return e;
  return co_dense_store(&x, target, data);
}

CO_EXPORT diopiError_t diopiRelu(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t out,
                                 diopiConstTensorHandle_t input) {
  return relu(ctx, "diopiRelu", out, input);
}

CO_EXPORT diopiError_t diopiReluInp(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t input) {
  return relu(ctx, "diopiReluInp", NULL, input);
}

CO_EXPORT diopiError_t diopiThresholdBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input_t,
    diopiConstTensorHandle_t grad_output_t, diopiConstTensorHandle_t input_t,
    const diopiScalar_t *threshold) {
  const char *op = "diopiThresholdBackward";
  co_view_t grad_input, grad_output, input;
  diopiError_t e;
  if ((e = co_view(op, "grad_output", grad_output_t, F32, &grad_output)) ||
      (e = co_view(op, "input", input_t, F32, &input)) ||
      (e = co_view(op, "grad_input", grad_input_t, F32, &grad_input)) ||
      (e = co_expect_shape(op, &input, grad_output.shape, grad_output.ndim)) ||
      (e = co_expect_shape(op, &grad_input, grad_output.shape,
                           grad_output.ndim)))
    return e;
  if (!threshold)
    return co_fail(op, "threshold: expected a scalar, got NULL");
  co_exec_t x;
  const co_view_t *views[] = {&grad_input, &grad_output, &input};
  if ((e = co_begin(ctx, op, views, 3, &x)))
    return e;
  float *go, *in, *gi;
  if ((e = co_dense_input(&x, &grad_output, &go)) ||
      (e = co_dense_input(&x, &input, &in)) ||
      (e = co_dense_output(&x, &grad_input, &gi)))
    return e;
  co_threshold_backward_args a = {.grad_input = gi,
                                  .grad_output = go,
                                  .input = in,
                                  .n = input.numel,
                                  .threshold = (float)co_scalar(threshold)};
  if ((e = co_launch(&x, CO_K_THRESHOLD_BACKWARD, a.n, &a)))
    return e;
  return co_dense_store(&x, &grad_input, gi);
}
