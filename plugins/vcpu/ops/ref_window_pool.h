/* The generic engine of max and average pooling over windows of the last
 * three dims of strided volumes, any floating dtype, as PyTorch's CPU
 * kernels compute them: max windows step by the dilation, a NaN wins, the
 * index is the flat d * H * W + h * W + w within the volume; average
 * windows count the padding (count_include_pad) or only the input, unless
 * a divisor is given; backward scatters stay in their volume. 3-d pooling
 * runs on it directly, 2-d pooling's strided and non-float32 cases as
 * volumes of depth 1 (ref_volumes_of_planes). Pure: thread-safe for
 * disjoint volumes. */
#ifndef BACKPLANE_REF_OPS_WINDOW_POOL_H_
#define BACKPLANE_REF_OPS_WINDOW_POOL_H_

#include <stdbool.h>
#include <stdint.h>

#include "ref_volume.h"

typedef struct ref_window_pool {
  ref_volumes_t in, out;          /* out: the output, or grad_output */
  ref_volumes_t grad_in, indices; /* backward; indices: max's */
  bool is_max, has_out, has_indices, backward;
  bool count_include_pad, has_divisor;
  int64_t divisor;
  int64_t k[3], stride[3], padding[3], dilation[3];
} ref_window_pool_t;

/* Pools volumes [begin, end) of t->in (a ref_range_fn_t; context: the
 * ref_window_pool_t): max or average, forward (into out, and indices for
 * max when has_indices) or backward (grad_in zeroed, then the gradient in
 * out added at indices (max) or over each window (average)). */
void ref_window_pool_range(void *context, int64_t begin, int64_t end);

/* v, of 3 or 4 dims ((C, H, W) or (N, C, H, W)), as volumes of depth 1. */
void ref_volumes_of_planes(const ref_view_t *v, ref_volumes_t *out);

#endif /* BACKPLANE_REF_OPS_WINDOW_POOL_H_ */
