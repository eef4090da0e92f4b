/* addbmm: out = beta * input + alpha * sum over b of batch1[b] @ batch2[b],
 * input broadcast to [n, m]; an extension op (DIOPI 1.0 declares none) with
 * diopiAddmm's conventions (NULL beta or alpha: 1; beta 0 ignores input,
 * NaN and Inf included, as PyTorch). Floating dtypes, any strides: the
 * products go through diopiBmm and diopiSum into context tensors, then one
 * elementwise pass. */
#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_add_product.h"
#include "ref_error.h"

static diopiError_t summed_batches_shape(const char *op, const ref_view_t *b1,
                                         const ref_view_t *b2, int64_t *shape,
                                         int *ndim) {
  if (b1->ndim != 3 || b2->ndim != 3)
    return ref_fail(op, "batch1, batch2: expected 3 dims each, got %d and %d",
                    b1->ndim, b2->ndim);
  if (b2->shape[0] != b1->shape[0] || b2->shape[1] != b1->shape[2])
    return ref_fail(op,
                    "batch2: expected shape [%lld, %lld, m], got "
                    "[%lld, %lld, %lld]",
                    (long long)b1->shape[0], (long long)b1->shape[2],
                    (long long)b2->shape[0], (long long)b2->shape[1],
                    (long long)b2->shape[2]);
  shape[0] = b1->shape[1];
  shape[1] = b2->shape[2];
  *ndim = 2;
  return diopiSuccess;
}

/* The [B, n, m] products, then their sum over B. */
static diopiError_t summed_batches(diopiContextHandle_t ctx, const char *op,
                                   diopiConstTensorHandle_t out,
                                   diopiConstTensorHandle_t batch1,
                                   diopiConstTensorHandle_t batch2,
                                   diopiTensorHandle_t sum) {
  diopiSize_t b1, b2;
  diopiTensorHandle_t products;
  int64_t batch_dim = 0;
  diopiError_t err = diopiGetTensorShape(batch1, &b1);
  if (!err)
    err = diopiGetTensorShape(batch2, &b2);
  if (err)
    return ref_fail(op, "batch1, batch2: cannot read their shapes");
  int64_t shape[3] = {b1.data[0], b1.data[1], b2.data[2]};
  if ((err = ref_product_tensor(ctx, op, out, shape, 3, &products)) ||
      (err = diopiBmm(ctx, products, batch1, batch2)))
    return err;
  return diopiSum(ctx, sum, products, (diopiSize_t){&batch_dim, 1});
}

/* grad_batch1[b, n, k] = alpha * sum over m of grad[n, m] * batch2[b, k, m];
 * grad_batch2[b, k, m] = alpha * sum over n of batch1[b, n, k] * grad[n, m]:
 * folds over 4-d views whose last dim is the one summed. */
static diopiError_t
summed_batches_grads(const char *op, const ref_view_t *go, const ref_view_t *b1,
                     const ref_view_t *b2, const ref_view_t *grad_b1,
                     const ref_view_t *grad_b2, double alpha,
                     ref_fold_t *fold_b1, ref_fold_t *fold_b2) {
  int64_t batch = b1->shape[0], n = b1->shape[1], k = b1->shape[2],
          m = b2->shape[2];
  diopiError_t err = diopiSuccess;
  if (grad_b1) {
    int64_t shape[4] = {batch, n, k, m}, kept[4] = {batch, n, k, 1};
    int64_t g_strides[4] = {0, go->strides[0], 0, go->strides[1]};
    int64_t b2_strides[4] = {b2->strides[0], 0, b2->strides[1], b2->strides[2]};
    int64_t out_strides[4] = {grad_b1->strides[0], grad_b1->strides[1],
                              grad_b1->strides[2], 0};
    ref_view_t g = ref_restrided(go, 4, shape, g_strides);
    ref_view_t x = ref_restrided(b2, 4, shape, b2_strides);
    ref_view_t out = ref_restrided(grad_b1, 4, kept, out_strides);
    err =
        ref_scaled_product_sum(op, "grad_batch1", &out, &g, &x, alpha, fold_b1);
  }
  if (!err && grad_b2) {
    int64_t shape[4] = {batch, k, m, n}, kept[4] = {batch, k, m, 1};
    int64_t b1_strides[4] = {b1->strides[0], b1->strides[2], 0, b1->strides[1]};
    int64_t g_strides[4] = {0, 0, go->strides[1], go->strides[0]};
    int64_t out_strides[4] = {grad_b2->strides[0], grad_b2->strides[1],
                              grad_b2->strides[2], 0};
    ref_view_t x = ref_restrided(b1, 4, shape, b1_strides);
    ref_view_t g = ref_restrided(go, 4, shape, g_strides);
    ref_view_t out = ref_restrided(grad_b2, 4, kept, out_strides);
    err =
        ref_scaled_product_sum(op, "grad_batch2", &out, &x, &g, alpha, fold_b2);
  }
  return err;
}

static const ref_product_kind_t addbmm = {"batch1", "batch2",
                                          summed_batches_shape, summed_batches,
                                          summed_batches_grads};

REF_EXPORT diopiError_t diopiAddbmm(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    diopiConstTensorHandle_t input,
                                    diopiConstTensorHandle_t batch1,
                                    diopiConstTensorHandle_t batch2,
                                    const diopiScalar_t *beta,
                                    const diopiScalar_t *alpha) {
  return ref_add_product(ctx, "diopiAddbmm", &addbmm, out, input, batch1,
                         batch2, beta, alpha);
}

REF_EXPORT diopiError_t diopiAddbmmInp(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t input,
                                       diopiConstTensorHandle_t batch1,
                                       diopiConstTensorHandle_t batch2,
                                       const diopiScalar_t *beta,
                                       const diopiScalar_t *alpha) {
  return ref_add_product(ctx, "diopiAddbmmInp", &addbmm, input, input, batch1,
                         batch2, beta, alpha);
}

REF_EXPORT diopiError_t diopiAddbmmBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiTensorHandle_t grad_batch1, diopiTensorHandle_t grad_batch2,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t batch1,
    diopiConstTensorHandle_t batch2, const diopiScalar_t *beta,
    const diopiScalar_t *alpha) {
  return ref_add_product_backward(ctx, "diopiAddbmmBackward", &addbmm,
                                  grad_input, grad_batch1, grad_batch2,
                                  grad_output, batch1, batch2, beta, alpha);
}
