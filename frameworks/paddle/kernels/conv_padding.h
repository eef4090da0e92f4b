/* A convolution's arguments over N spatial dims, and Paddle's explicit
 * paddings of a convolution or pooling over `n` spatial dims: one value per
 * dim, or a (before, after) pair per dim ([top, bottom, left, right] in 2-D);
 * DIOPI pads both sides of a dim alike. */
#ifndef BACKPLANE_PADDLE_KERNELS_CONV_PADDING_H_
#define BACKPLANE_PADDLE_KERNELS_CONV_PADDING_H_

#include <string>
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

/* A convolution's strides, paddings and dilations over N spatial dims. */
template <int N> struct conv_args {
  int64_t stride[N], padding[N], dilation[N];
};

/* Checks a convolution's layout (channels first: NCHW for 2 dims, NCDHW for
 * 3, or AnyLayout) and padding algorithm (EXPLICIT only) and takes its N-dim
 * arguments. */
template <int N>
static inline conv_args<N> conv_arguments(KernelCall &call,
                                          const std::vector<int> &strides,
                                          const std::vector<int> &paddings,
                                          const std::string &padding_algorithm,
                                          const std::vector<int> &dilations,
                                          const std::string &data_format) {
  const char *layout = N == 2 ? "NCHW" : "NCDHW";
  if (data_format != layout && data_format != "AnyLayout")
    call.fail("data_format %s: only %s is supported", data_format.c_str(),
              layout);
  if (padding_algorithm != "EXPLICIT")
    call.fail("padding_algorithm %s: only EXPLICIT is supported",
              padding_algorithm.c_str());
  if (strides.size() != (size_t)N || dilations.size() != (size_t)N)
    call.fail("strides and dilations must have %d values", N);
  conv_args<N> a;
  for (int d = 0; d < N; d++) {
    a.stride[d] = strides[d];
    a.dilation[d] = dilations[d];
  }
  symmetric_padding(call, paddings, N, a.padding);
  return a;
}

#endif /* BACKPLANE_PADDLE_KERNELS_CONV_PADDING_H_ */
