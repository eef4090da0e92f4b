/* Geometry of 2-d sliding windows over the last two dims of a
 * (N, C, H, W) or (C, H, W) tensor: attribute pairs, PyTorch's output
 * sizes, and the element offset of (plane, h, w) in a strided view. For
 * the pooling ops (and convolution's attribute pairs). */
#ifndef BACKPLANE_REF_OPS_WINDOW_H_
#define BACKPLANE_REF_OPS_WINDOW_H_

#include "ref_tensor.h"

/* A 2-d tensor's planes: the view without its last two dims, and H, W. */
typedef struct ref_planes {
  ref_view_t outer; /* indexes a plane's first element */
  int64_t count, h, w, stride_h, stride_w;
} ref_planes_t;

/* The planes of `v` (3 or 4 dims), or a failure naming `op` and `arg`. */
diopiError_t ref_planes(const char *op, const char *arg, const ref_view_t *v,
                        ref_planes_t *out);

/* The element offset of (plane, h, w). */
static inline int64_t ref_plane_offset(const ref_planes_t *p, int64_t plane,
                                       int64_t h, int64_t w) {
  return ref_offset(&p->outer, plane) + h * p->stride_h + w * p->stride_w;
}

/* A 2-d attribute: 1 value (both dims) or 2, each >= min; empty: if_empty
 * for both. */
diopiError_t ref_window_pair(const char *op, const char *arg, diopiSize_t s,
                             int64_t min, int64_t if_empty, int64_t out[2]);

/* A 2-d pooling window: kernel_size (1 or 2 values, each >= 1; required),
 * stride (empty: the kernel size), padding (>= 0, at most half the kernel)
 * and dilation (>= 1; empty: 1), or a failure naming `op` and the
 * argument. */
diopiError_t ref_pool_window2(const char *op, diopiSize_t kernel_size,
                              diopiSize_t stride, diopiSize_t padding,
                              diopiSize_t dilation, int64_t k[2], int64_t s[2],
                              int64_t p[2], int64_t d[2]);

/* PyTorch's pooled length of `in` for kernel k, stride s, padding p,
 * dilation d, ceil_mode. */
int64_t ref_window_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                       bool ceil_mode);

/* Adaptive windows: output o of `out` over `in` covers [start, end). */
static inline int64_t ref_adaptive_start(int64_t o, int64_t in, int64_t out) {
  return o * in / out;
}
static inline int64_t ref_adaptive_end(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

#endif /* BACKPLANE_REF_OPS_WINDOW_H_ */
