/* Strided views as the op library takes them, positive strides only, of
 * what Paddle describes with negative ones: a slice with negative steps
 * (set_value), a strided tensor Paddle made (x[::-1] in eager mode). A dim
 * walked backwards is viewed in increasing order and marked reversed: its
 * i-th element is the original's (size - 1 - i)-th, and the kernels move
 * data through it with diopiFlip instead of a copy. */
#ifndef BACKPLANE_PADDLE_KERNELS_STRIDED_VIEWS_H_
#define BACKPLANE_PADDLE_KERNELS_STRIDED_VIEWS_H_

#include <vector>

#include "kernel_call.h"

/* The part of a contiguous tensor that a Paddle slice names (slice,
 * set_value and their gradients): each of `axes` cut to [start, end) by
 * step with Paddle's normalization of negative and out-of-range bounds,
 * then decrease_axes dropped and a unit dim inserted at each of none_axes. */
struct SliceView {
  diopiTensorHandle_t view;
  int ndim;
  int64_t shape[BP_OPS_MAX_DIMS];
  int64_t numel;
  /* The view's dims walked backwards by the slice, and how many. */
  int64_t reversed[BP_OPS_MAX_DIMS];
  int nreversed;
};

/* Fails (naming the argument) on a bad axis, a zero step, counts that do
 * not match axes, a decreased dim whose size is not 1, or too many dims.
 * `steps` empty: every step 1. */
SliceView slice_view(KernelCall &call, PD_Tensor *t,
                     const std::vector<int64_t> &axes,
                     const std::vector<int64_t> &starts,
                     const std::vector<int64_t> &ends,
                     const std::vector<int64_t> &steps,
                     const std::vector<int64_t> &decrease_axes,
                     const std::vector<int64_t> &none_axes);

/* `view` = `value` broadcast to the view's shape, flipped along its
 * reversed dims (through a scratch copy when there are any). */
void slice_assign(KernelCall &call, const SliceView &v,
                  diopiConstTensorHandle_t value);

/* The slice's elements in the slice's own order: the view itself, or a
 * flipped scratch copy when it has reversed dims. */
diopiConstTensorHandle_t slice_values(KernelCall &call, const SliceView &v);

/* Strided tensor `t` (Paddle's dims, strides and offset) as a view with
 * positive strides; its reversed dims into `reversed` (at most
 * BP_OPS_MAX_DIMS), their count into *nreversed. */
diopiTensorHandle_t positive_view(KernelCall &call, PD_Tensor *t,
                                  int64_t *reversed, int *nreversed);

/* dst = src where both may have reversed dims (positive_view's): a copy,
 * or a flip along the dims reversed in one of them only. */
void copy_views(KernelCall &call, diopiTensorHandle_t dst,
                const int64_t *dst_reversed, int dst_nreversed,
                diopiConstTensorHandle_t src, const int64_t *src_reversed,
                int src_nreversed);

#endif /* BACKPLANE_PADDLE_KERNELS_STRIDED_VIEWS_H_ */
