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
/* A dense (row-major contiguous) view of `v`'s shape over `data`. */
co_view_t co_dense_view(const co_view_t *v, void *data);

/* For kernels that take dense memory: *out_data is `v`'s own data when it
 * is dense, else scratch holding a dense copy of it (co_dense_input) or
 * scratch to write (co_dense_output), which co_dense_store then copies into
 * `v`; nothing to store for a dense view. */
diopiError_t co_dense_input(const co_exec_t *x, const co_view_t *v,
                            float **out_data);
diopiError_t co_dense_output(const co_exec_t *x, const co_view_t *v,
                             float **out_data);
diopiError_t co_dense_store(const co_exec_t *x, const co_view_t *v,
                            float *data);

/* Fails (naming both) unless `src` broadcasts to `dst`'s shape. */
diopiError_t co_expect_broadcast(const char *op, const co_view_t *src,
                                 const co_view_t *dst);

#endif /* BACKPLANE_CUDA_OPS_STRIDED_H_ */
