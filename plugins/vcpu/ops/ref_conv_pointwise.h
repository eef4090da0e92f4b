/* Pointwise (1x1x1 kernel, stride 1) float32 convolution forward: per image
 * and group one GEMM of the weights (og x cg) by the input read in place
 * as a (cg x d*h*w) matrix, no column buffer. Padding only surrounds the
 * product with bias: the product goes to scratch, then output rows are
 * written as bias plus the product's row, in parallel across the worker
 * pool; unpadded, it lands in the output itself and only gets its bias. */
#ifndef BACKPLANE_REF_OPS_CONV_POINTWISE_H_
#define BACKPLANE_REF_OPS_CONV_POINTWISE_H_

#include <stdbool.h>
#include <stdint.h>

/* x (n, cin, d, h, w), weight (cout, cin / groups), bias (cout floats or
 * NULL), y (n, cout, d + 2 pad[0], h + 2 pad[1], w + 2 pad[2]); all
 * contiguous float32, y not overlapping x. */
typedef struct ref_conv_pointwise {
  int64_t n, cin, d, h, w, cout, groups;
  int64_t pad[3]; /* depth, height, width */
  const float *x, *weight, *bias;
  float *y;
} ref_conv_pointwise_t;

/* Whether a convolution with these kernel sizes and strides (depth,
 * height, width) is pointwise. */
bool ref_conv_pointwise_applies(const int64_t kernel[3],
                                const int64_t stride[3]);

/* The scratch floats ref_conv_pointwise_forward needs: one group's product
 * when padded, else 0. */
int64_t ref_conv_pointwise_scratch_floats(const ref_conv_pointwise_t *c);

/* y = conv(x, weight) + bias. */
void ref_conv_pointwise_forward(const ref_conv_pointwise_t *c, float *scratch);

#endif /* BACKPLANE_REF_OPS_CONV_POINTWISE_H_ */
