/* One AdamW step (torch.optim.AdamW, amsgrad included) on dense float32
 * parameters and states. */
#include <math.h>

#include <diopi/functions.h>

#include "co_error.h"
#include "co_exec.h"
#include "kernels/co_kernel_args.h"

CO_EXPORT diopiError_t diopiAdamW(
    diopiContextHandle_t ctx, diopiTensorHandle_t param_t,
    diopiConstTensorHandle_t grad_t, diopiTensorHandle_t exp_avg_t,
    diopiTensorHandle_t exp_avg_sq_t, diopiTensorHandle_t max_exp_avg_sq_t,
    float lr, float beta1, float beta2, float eps, float weight_decay,
    int64_t step, bool amsgrad) {
  const char *op = "diopiAdamW";
  const diopiDtype_t f32 = diopi_dtype_float32;
  co_view_t v[5];
  const char *names[5] = {"param", "grad", "exp_avg", "exp_avg_sq",
                          "max_exp_avg_sq"};
  diopiConstTensorHandle_t tensors[5] = {param_t, grad_t, exp_avg_t,
                                         exp_avg_sq_t, max_exp_avg_sq_t};
  int count = amsgrad ? 5 : 4;
  diopiError_t e;
  for (int i = 0; i < count; i++)
    if ((e = co_view(op, names[i], tensors[i], f32, &v[i])) ||
        (i && (e = co_expect_shape(op, &v[i], v[0].shape, v[0].ndim))) ||
        (e = co_expect_dense(op, &v[i])))
      return e;
  if (step < 1)
    return co_fail(op, "step: expected >= 1, got %lld", (long long)step);
  co_exec_t x;
  const co_view_t *views[] = {&v[0], &v[1], &v[2], &v[3],
                              amsgrad ? &v[4] : NULL};
  if ((e = co_begin(ctx, op, views, 5, &x)))
    return e;
  co_adamw_args a = {
      .param = v[0].data,
      .grad = v[1].data,
      .exp_avg = v[2].data,
      .exp_avg_sq = v[3].data,
      .max_exp_avg_sq = amsgrad ? v[4].data : NULL,
      .n = v[0].numel,
      .lr = lr,
      .beta1 = beta1,
      .beta2 = beta2,
      .eps = eps,
      .weight_decay = weight_decay,
      .step_size = (float)(lr / (1.0 - pow(beta1, (double)step))),
      .correction2_sqrt = (float)sqrt(1.0 - pow(beta2, (double)step))};
  return co_launch(&x, CO_K_ADAMW, a.n, &a);
}
