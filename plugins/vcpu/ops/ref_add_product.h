/* The add-a-product ops (addmv, addbmm): out = beta * input + alpha *
 * product(a, b), input broadcast to the product's shape, beta 0 ignoring
 * input (NaN and Inf in it too, as PyTorch), and their backwards. One
 * driver each checks the arguments; each op gives its factors' shape rule,
 * its multiplication into a context tensor and its factors' gradients as
 * folds (sums of products over restrided views, in double: correct rather
 * than fast). */
#ifndef BACKPLANE_REF_OPS_ADD_PRODUCT_H_
#define BACKPLANE_REF_OPS_ADD_PRODUCT_H_

#include "ref_fold.h"

typedef struct ref_product_kind {
  const char *a_name, *b_name; /* the factors, in messages */
  /* Checks the factors' shapes; the product's into shape/ndim (<= 3). */
  diopiError_t (*shape)(const char *op, const ref_view_t *a,
                        const ref_view_t *b, int64_t *shape, int *ndim);
  /* Enqueues the product of a and b into `product` (the product's shape,
   * out's dtype and device). */
  diopiError_t (*multiply)(diopiContextHandle_t ctx, const char *op,
                           diopiConstTensorHandle_t out,
                           diopiConstTensorHandle_t a,
                           diopiConstTensorHandle_t b,
                           diopiTensorHandle_t product);
  /* Prepares the folds of the factors' gradients from grad_output (the
   * product's shape, already checked): grad_a (when non-NULL; a's shape)
   * into *fold_a, grad_b likewise, each scaled by alpha. */
  diopiError_t (*factor_grads)(const char *op, const ref_view_t *grad_output,
                               const ref_view_t *a, const ref_view_t *b,
                               const ref_view_t *grad_a,
                               const ref_view_t *grad_b, double alpha,
                               ref_fold_t *fold_a, ref_fold_t *fold_b);
} ref_product_kind_t;

/* Enqueues out = beta * input + alpha * product(a, b) (NULL beta or
 * alpha: 1), failing with a message naming `op` and the argument unless
 * the factors multiply, out has the product's shape and a floating dtype,
 * and input broadcasts to it. */
diopiError_t
ref_add_product(diopiContextHandle_t ctx, const char *op,
                const ref_product_kind_t *kind, diopiConstTensorHandle_t out,
                diopiConstTensorHandle_t input, diopiConstTensorHandle_t a,
                diopiConstTensorHandle_t b, const diopiScalar_t *beta,
                const diopiScalar_t *alpha);

/* Enqueues the gradients of ref_add_product wanted (NULL: not wanted):
 * grad_input = beta * grad_output summed to grad_input's shape (input's),
 * grad_a and grad_b (a's and b's shapes) by the kind's factor_grads. */
diopiError_t ref_add_product_backward(
    diopiContextHandle_t ctx, const char *op, const ref_product_kind_t *kind,
    diopiConstTensorHandle_t grad_input, diopiConstTensorHandle_t grad_a,
    diopiConstTensorHandle_t grad_b, diopiConstTensorHandle_t grad_output,
    diopiConstTensorHandle_t a, diopiConstTensorHandle_t b,
    const diopiScalar_t *beta, const diopiScalar_t *alpha);

/* `v` read with `shape` and `strides` (ndim dims): another order of the
 * same elements, or a broadcast (stride 0). */
ref_view_t ref_restrided(const ref_view_t *v, int ndim, const int64_t *shape,
                         const int64_t *strides);

/* Prepares *f to fold scale * a (b NULL) or scale * a * b, a and b of one
 * shape, into `out` (named `arg`; aligned to a's trailing dims, 1 where
 * a's dims are summed). */
diopiError_t ref_scaled_product_sum(const char *op, const char *arg,
                                    const ref_view_t *out, const ref_view_t *a,
                                    const ref_view_t *b, double scale,
                                    ref_fold_t *f);

/* A context-owned tensor of `shape` (ndim dims) with out's dtype and device
 * into *product; fails naming `op` when the context cannot allocate it. */
diopiError_t ref_product_tensor(diopiContextHandle_t ctx, const char *op,
                                diopiConstTensorHandle_t out,
                                const int64_t *shape, int ndim,
                                diopiTensorHandle_t *product);

#endif /* BACKPLANE_REF_OPS_ADD_PRODUCT_H_ */
