/* Paddle's explicit paddings of a convolution or pooling over `n` spatial
 * dims: one value per dim, or a (before, after) pair per dim ([top, bottom,
 * left, right] in 2-D); DIOPI pads both sides of a dim alike. */
#ifndef BACKPLANE_PADDLE_KERNELS_CONV_PADDING_H_
#define BACKPLANE_PADDLE_KERNELS_CONV_PADDING_H_

#include <vector>

#include "kernel_call.h"

/* The padding of each dim into out[0..n); fails on pairs that differ. */
template <typename I>
static inline void symmetric_padding(KernelCall &call,
                                     const std::vector<I> &pads, int n,
                                     int64_t *out) {
  bool pairs = pads.size() == (size_t)(2 * n);
  if (pads.size() != (size_t)n && !pairs)
    call.fail("paddings of %zu values: expected %d or %d", pads.size(), n,
              2 * n);
  for (int d = 0; d < n; d++) {
    if (pairs && pads[2 * d] != pads[2 * d + 1])
      call.fail("paddings: dim %d pads %lld before and %lld after; only "
                "symmetric padding is supported",
                d, (long long)pads[2 * d], (long long)pads[2 * d + 1]);
    out[d] = pairs ? pads[2 * d] : pads[d];
  }
}

#endif /* BACKPLANE_PADDLE_KERNELS_CONV_PADDING_H_ */
