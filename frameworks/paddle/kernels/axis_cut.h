/* Part of a contiguous tensor along one dim, as a strided view. */
#ifndef BACKPLANE_PADDLE_KERNELS_AXIS_CUT_H_
#define BACKPLANE_PADDLE_KERNELS_AXIS_CUT_H_

#include "kernel_call.h"

/* A view of contiguous data of dtype T shaped `shape` whose dim `d` is cut
 * to `len` elements from `first`. */
template <typename T>
static inline diopiTensorHandle_t cut(KernelCall &call, void *data, int ndim,
                                      const int64_t *shape, int d,
                                      int64_t first, int64_t len) {
  int64_t part[BP_OPS_MAX_DIMS], strides[BP_OPS_MAX_DIMS], stride = 1;
  for (int k = ndim - 1; k >= 0; k--) {
    part[k] = k == d ? len : shape[k];
    strides[k] = stride;
    stride *= shape[k];
  }
  return call.wrap_data((T *)data + first * strides[d],
                        kernel_diopi_dtype(kernel_dtype_of<T>()), ndim, part,
                        strides);
}

#endif /* BACKPLANE_PADDLE_KERNELS_AXIS_CUT_H_ */
