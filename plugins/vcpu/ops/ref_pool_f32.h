/* Float32 plane kernels of 2-d average pooling over fixed windows and of
 * adaptive max pooling, for planes whose rows are contiguous (unit column
 * stride). They compute what PyTorch's CPU kernels compute: an average is
 * a float sum of the window's taps in row-major order divided by the
 * divisor; a maximum is the window's first largest value (row-major), or
 * its last NaN. Vectorised along output rows; dispatched on ref_isa().
 * Pure: thread-safe for distinct output planes. */
#ifndef BACKPLANE_REF_OPS_POOL_F32_H_
#define BACKPLANE_REF_OPS_POOL_F32_H_

#include <stdbool.h>
#include <stdint.h>

/* One plane's geometry: input h x w, output oh x ow, row strides in
 * elements. Fixed windows (average): k, stride, pad per dim (height
 * first), include_pad (count_include_pad) and divisor (0: none given). */
typedef struct ref_pool_plane {
  int64_t h, w, in_row, oh, ow, out_row, index_row;
  int64_t k[2], stride[2], pad[2];
  bool include_pad;
  int64_t divisor;
} ref_pool_plane_t;

/* The widest input row ref_adaptive_max_plane_f32 takes. */
enum { REF_POOL_F32_MAX_W = 1024 };

/* out = average pooling of `in` (p: fixed windows). */
void ref_avg_pool_plane_f32(const ref_pool_plane_t *p, const float *in,
                            float *out);

/* out (and indices, flat h * w + w offsets, when not NULL) = adaptive max
 * pooling of `in`; p->w at most REF_POOL_F32_MAX_W. */
void ref_adaptive_max_plane_f32(const ref_pool_plane_t *p, const float *in,
                                float *out, int64_t *indices);

#endif /* BACKPLANE_REF_OPS_POOL_F32_H_ */
