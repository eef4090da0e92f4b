/* conv2d forward for 3x3 kernels at stride 1 (no dilation, one group) by
 * Winograd F(4x4, 3x3): each 4x4 output tile is A^T [(G g G^T) . (B^T d B)] A
 * over the 6x6 input patch d, so the channel sums become 36 independent
 * products of [C_out x C_in] by [C_in x tiles] (a quarter of the direct
 * convolution's multiplies). Tiles are taken 32 at a time, each chunk's
 * transforms and products staying in the core's cache; chunks are split
 * across the worker pool. Runs on the stream's worker; the buffers are the
 * caller's, scratch included. */
#ifndef BACKPLANE_REF_OPS_WINOGRAD_H_
#define BACKPLANE_REF_OPS_WINOGRAD_H_

#include <stdbool.h>
#include <stdint.h>

#include "ref_tensor.h"

typedef struct ref_winograd {
  int64_t n, c, h, w, k; /* images, C_in, input H and W, C_out */
  int64_t pad_h, pad_w, oh, ow;
  const float *x;      /* (n, c, h, w) contiguous */
  const float *weight; /* (k, c, 3, 3) contiguous; flipped: (c, k, 3, 3) */
  bool flipped;        /* weight used transposed and turned by 180 degrees: the
                          input gradient of a convolution with that weight */
  const ref_view_t *bias; /* (k) of any float dtype, or NULL */
  float *y;               /* (n, k, oh, ow) contiguous */
} ref_winograd_t;

/* Whether the Winograd path computes this convolution: 3x3, stride 1, no
 * dilation, one group, 8 or more channels in and out. */
bool ref_winograd_applies(int64_t c, int64_t k, int64_t kh, int64_t kw,
                          const int64_t stride[2], const int64_t dil[2],
                          int64_t groups);

/* The scratch ref_winograd_forward needs, in floats, for w's geometry (its
 * pointers unused). */
int64_t ref_winograd_scratch_floats(const ref_winograd_t *w);

/* y = conv2d(x, weight) + bias, using `scratch`. */
void ref_winograd_forward(const ref_winograd_t *w, float *scratch);

#endif /* BACKPLANE_REF_OPS_WINOGRAD_H_ */
