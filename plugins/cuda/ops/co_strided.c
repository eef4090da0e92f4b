/* The strided fill and copy. */
#include "co_strided.h"

#include <string.h>

#include "co_error.h"
#include "kernels/co_kernel_args.h"

diopiError_t co_expect_broadcast(const char *op, const co_view_t *src,
                                 const co_view_t *dst) {
  bool fits = src->ndim <= dst->ndim;
  for (int d = 0; fits && d < src->ndim; d++) {
    int64_t s = src->shape[src->ndim - 1 - d];
    fits = s == 1 || s == dst->shape[dst->ndim - 1 - d];
  }
  if (fits)
    return diopiSuccess;
  char a[160], b[160];
  return co_fail(op, "%s: shape %s does not broadcast to %s's %s", src->name,
                 co_shape_text(src->shape, src->ndim, a, sizeof a), dst->name,
                 co_shape_text(dst->shape, dst->ndim, b, sizeof b));
}

static diopiError_t run(const co_exec_t *x, const co_view_t *dst,
                        const co_view_t *src, float value) {
  co_strided_args a;
  memset(&a, 0, sizeof a);
  a.dst = dst->data;
  a.src = src ? src->data : NULL;
  a.n = dst->numel;
  a.ndim = dst->ndim;
  a.value = value;
  for (int d = 0; d < dst->ndim; d++) {
    a.shape[d] = dst->shape[d];
    a.dst_strides[d] = dst->strides[d];
    int sd = src ? d - (dst->ndim - src->ndim) : -1;
    a.src_strides[d] = sd >= 0 && src->shape[sd] != 1 ? src->strides[sd] : 0;
  }
  return co_launch(x, CO_K_STRIDED, a.n, &a);
}

diopiError_t co_fill_view(const co_exec_t *x, const co_view_t *dst,
                          float value) {
  return run(x, dst, NULL, value);
}

diopiError_t co_copy_view(const co_exec_t *x, const co_view_t *dst,
                          const co_view_t *src) {
  return run(x, dst, src, 0);
}

co_view_t co_dense_view(const co_view_t *v, void *data) {
  co_view_t d = *v;
  d.data = data;
  int64_t stride = 1;
  for (int i = v->ndim - 1; i >= 0; i--) {
    d.strides[i] = stride;
    stride *= v->shape[i];
  }
  return d;
}

diopiError_t co_dense_output(const co_exec_t *x, const co_view_t *v,
                             float **out_data) {
  if (co_dense(v)) {
    *out_data = v->data;
    return diopiSuccess;
  }
  return co_scratch(x, sizeof(float) * (size_t)v->numel, (void **)out_data);
}

diopiError_t co_dense_input(const co_exec_t *x, const co_view_t *v,
                            float **out_data) {
  diopiError_t e = co_dense_output(x, v, out_data);
  if (e || *out_data == v->data)
    return e;
  co_view_t dense = co_dense_view(v, *out_data);
  return co_copy_view(x, &dense, v);
}

diopiError_t co_dense_store(const co_exec_t *x, const co_view_t *v,
                            float *data) {
  if (data == v->data)
    return diopiSuccess;
  co_view_t dense = co_dense_view(v, data);
  return co_copy_view(x, v, &dense);
}
