/* The 2-d window geometry of convolution and pooling ops: the int lists
 * (one value for both dims, or two) checked, and output sizes computed as
 * PyTorch computes them. */
#ifndef BACKPLANE_CUDA_OPS_WINDOW_H_
#define BACKPLANE_CUDA_OPS_WINDOW_H_

#include <stdbool.h>

#include <diopi/diopirt.h>

#include "kernels/co_kernel_args.h"

/* Fills w's kernel, stride, padding and dilation (stride empty: the
 * kernel, as pooling defaults) and, from w->height/width, the output size
 * (ceil_mode: pooling's rounding up, never starting in the padding).
 * Fails naming the list that is malformed or an output that is empty. */
diopiError_t co_window_set(const char *op, co_window *w, long long kernel_h,
                           long long kernel_w, diopiSize_t stride,
                           diopiSize_t padding, diopiSize_t dilation,
                           bool ceil_mode);

#endif /* BACKPLANE_CUDA_OPS_WINDOW_H_ */
