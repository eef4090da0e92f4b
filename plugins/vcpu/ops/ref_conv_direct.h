/* Direct float32 convolution forward for unpadded windows (any stride,
 * dilation and groups, 2-d as depth 1): no column buffer; a register tile
 * of 6 output positions of a row by two vectors of output channels adds
 * each tap's input values, read where they lie, times the tap's weights,
 * packed once per call into panels of those channels. For the strided and
 * grouped convolutions whose im2col costs as much as their products.
 * The work splits across the worker pool by output rows. */
#ifndef BACKPLANE_REF_OPS_CONV_DIRECT_H_
#define BACKPLANE_REF_OPS_CONV_DIRECT_H_

#include <stddef.h>
#include <stdint.h>

/* A convolution over contiguous float32: x (n, cin, d, h, w), weight
 * (cout, cin / groups, kd, kh, kw), bias (cout floats, or NULL), y (n,
 * cout, od, oh, ow); per dim (depth, height, width) stride and dilation,
 * no padding. */
typedef struct ref_conv_direct {
  int64_t n, cin, d, h, w, cout, groups, kd, kh, kw, od, oh, ow;
  int64_t stride[3], dil[3];
  const float *x, *weight, *bias;
  float *y;
} ref_conv_direct_t;

/* The scratch bytes ref_conv_direct_forward needs (packed weights, bias
 * and tap offsets), for ref_isa()'s vector width. */
size_t ref_conv_direct_scratch_bytes(const ref_conv_direct_t *c);

/* y = conv(x, weight) + bias; scratch: ref_conv_direct_scratch_bytes, 64-byte
 * aligned or not. */
void ref_conv_direct_forward(const ref_conv_direct_t *c, void *scratch);

#endif /* BACKPLANE_REF_OPS_CONV_DIRECT_H_ */
