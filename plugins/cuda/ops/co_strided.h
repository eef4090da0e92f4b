/* Filling and copying float32 views of any strides on the device (one
 * kernel, co_strided), with the source broadcast to the destination. */
#ifndef BACKPLANE_CUDA_OPS_STRIDED_H_
#define BACKPLANE_CUDA_OPS_STRIDED_H_

#include "co_exec.h"

/* Every element of `dst` = value. */
diopiError_t co_fill_view(const co_exec_t *x, const co_view_t *dst,
                          float value);
/* dst = src broadcast to dst's shape (co_expect_broadcast first). */
diopiError_t co_copy_view(const co_exec_t *x, const co_view_t *dst,
                          const co_view_t *src);
/* Fails (naming both) unless `src` broadcasts to `dst`'s shape. */
diopiError_t co_expect_broadcast(const char *op, const co_view_t *src,
                                 const co_view_t *dst);

#endif /* BACKPLANE_CUDA_OPS_STRIDED_H_ */
