/* The addend step of the add-a-product ops (addmv, addbmm): a context
 * tensor for the product, then out = beta * input + alpha * product in one
 * elementwise pass. */
#ifndef BACKPLANE_REF_OPS_ADD_PRODUCT_H_
#define BACKPLANE_REF_OPS_ADD_PRODUCT_H_

#include "ref_tensor.h"

/* A context-owned tensor of `shape` (ndim dims) with out's dtype and device
 * into *product; fails naming `op` when the context cannot allocate it. */
diopiError_t ref_product_tensor(diopiContextHandle_t ctx, const char *op,
                                diopiConstTensorHandle_t out,
                                const int64_t *shape, int ndim,
                                diopiTensorHandle_t *product);

/* Enqueues out = beta * input + alpha * product, input broadcast to out's
 * shape (product has it); beta 0 ignores input, NaN and Inf in it included,
 * as PyTorch. */
diopiError_t ref_add_product(diopiContextHandle_t ctx, const char *op,
                             diopiConstTensorHandle_t out,
                             diopiConstTensorHandle_t input,
                             diopiConstTensorHandle_t product, double beta,
                             double alpha);

#endif /* BACKPLANE_REF_OPS_ADD_PRODUCT_H_ */
