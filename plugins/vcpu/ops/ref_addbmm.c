/* addbmm: out = beta * input + alpha * sum over b of batch1[b] @ batch2[b],
 * input broadcast to [n, m]; an extension op (DIOPI 1.0 declares none) with
 * diopiAddmm's conventions (NULL beta or alpha: 1; beta 0 ignores input,
 * NaN and Inf included, as PyTorch). Floating dtypes, any strides: the
 * products go through diopiBmm and diopiSum into context tensors, then one
 * elementwise pass. */
#include <diopi/functions.h>

#include "ref_add_product.h"
#include "ref_error.h"
#include "ref_ew_call.h"

static diopiError_t
addbmm(diopiContextHandle_t ctx, const char *op, diopiConstTensorHandle_t out,
       diopiConstTensorHandle_t input, diopiConstTensorHandle_t batch1,
       diopiConstTensorHandle_t batch2, const diopiScalar_t *beta,
       const diopiScalar_t *alpha) {
  ref_view_t o, x, b1, b2;
  ref_arg_t args[] = {{"out", out, &o, NULL},
                      {"input", input, &x, NULL},
                      {"batch1", batch1, &b1, NULL},
                      {"batch2", batch2, &b2, NULL}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (err)
    return err;
  if (b1.ndim != 3 || b2.ndim != 3)
    return ref_fail(op, "batch1, batch2: expected 3 dims each, got %d and %d",
                    b1.ndim, b2.ndim);
  if (b2.shape[0] != b1.shape[0] || b2.shape[1] != b1.shape[2])
    return ref_fail(op,
                    "batch2: expected shape [%lld, %lld, m], got "
                    "[%lld, %lld, %lld]",
                    (long long)b1.shape[0], (long long)b1.shape[2],
                    (long long)b2.shape[0], (long long)b2.shape[1],
                    (long long)b2.shape[2]);
  int64_t batched[3] = {b1.shape[0], b1.shape[1], b2.shape[2]};
  int64_t batch_dim = 0;
  diopiTensorHandle_t products, sum;
  if ((err = ref_expect_shape(op, "out", &o, batched + 1, 2)) ||
      (err = ref_expect_kind(op, "out", &o, REF_OUT_FLOATING)) ||
      (err = ref_expect_kind(op, "batch1", &b1, REF_OUT_FLOATING)) ||
      (err = ref_product_tensor(ctx, op, out, batched, 3, &products)) ||
      (err = ref_product_tensor(ctx, op, out, batched + 1, 2, &sum)) ||
      (err = diopiBmm(ctx, products, batch1, batch2)) ||
      (err = diopiSum(ctx, sum, products, (diopiSize_t){&batch_dim, 1})))
    return err;
  return ref_add_product(ctx, op, out, input, sum, ref_scalar(beta, 1),
                         ref_scalar(alpha, 1));
}

REF_EXPORT diopiError_t diopiAddbmm(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    diopiConstTensorHandle_t input,
                                    diopiConstTensorHandle_t batch1,
                                    diopiConstTensorHandle_t batch2,
                                    const diopiScalar_t *beta,
                                    const diopiScalar_t *alpha) {
  return addbmm(ctx, "diopiAddbmm", out, input, batch1, batch2, beta, alpha);
}

REF_EXPORT diopiError_t diopiAddbmmInp(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t input,
                                       diopiConstTensorHandle_t batch1,
                                       diopiConstTensorHandle_t batch2,
                                       const diopiScalar_t *beta,
                                       const diopiScalar_t *alpha) {
  return addbmm(ctx, "diopiAddbmmInp", input, input, batch1, batch2, beta,
                alpha);
}
