/* The argument blocks of the op library's kernels, one struct per kernel,
 * passed by value (cuLaunchKernel copies it at launch). Read by the host C
 * code and, prepended to co_kernels.cu, by NVRTC: plain C types only, the
 * same layout in both. Every kernel walks its elements with a grid-stride
 * loop, so any grid size covers any element count. */
#ifndef CO_KERNEL_ARGS_H_
#define CO_KERNEL_ARGS_H_

#define CO_MAX_DIMS 8

/* dst[i] = src ? src[i'] : value over a strided view of `n` elements
 * (src broadcast with stride 0). */
typedef struct co_strided_args {
  float *dst;
  const float *src;
  long long n;
  long long shape[CO_MAX_DIMS];
  long long dst_strides[CO_MAX_DIMS];
  long long src_strides[CO_MAX_DIMS];
  int ndim;
  float value;
} co_strided_args;

/* x[i] = max(x[i], 0) */
typedef struct co_relu_args {
  float *x;
  long long n;
} co_relu_args;

/* grad_input[i] = input[i] <= threshold ? 0 : grad_output[i] (NaN passes) */
typedef struct co_threshold_backward_args {
  float *grad_input;
  const float *grad_output;
  const float *input;
  long long n;
  float threshold;
} co_threshold_backward_args;

/* out[i] = bias[(i / inner) % channels], i < n */
typedef struct co_bias_fill_args {
  float *out;
  const float *bias;
  long long n, channels, inner;
} co_bias_fill_args;

/* out[c] = (accumulate ? out[c] : 0) + the sum over b < batch, j < inner
 * of in[(b * channels + c) * inner + j]; one block per channel. */
typedef struct co_channel_sum_args {
  float *out;
  const float *in;
  long long batch, channels, inner;
  int accumulate;
} co_channel_sum_args;

/* Cross entropy over `n` positions (batch * inner) of `classes` logits at
 * input[(b * classes + c) * inner + j]: per position, the loss and its
 * weight (0 where the target is ignore_index; NaN for an out-of-range
 * target). */
typedef struct co_cross_entropy_args {
  const float *input;
  const long long *target;
  const float *weight; /* per class; NULL: all 1 */
  float *loss;         /* n */
  float *weights;      /* n */
  long long n, classes, inner, ignore_index;
  float smoothing;
} co_cross_entropy_args;

/* out[0] = sum(loss) / (mean ? sum(weights) : 1); one block. */
typedef struct co_loss_reduce_args {
  float *out;
  const float *loss;
  const float *weights;
  long long n;
  int mean;
} co_loss_reduce_args;

/* The gradient of co_cross_entropy's loss; grad_output[p] per position
 * (reduction none) or grad_output[0] divided by *weight_sum (mean) or not
 * (sum). */
typedef struct co_cross_entropy_backward_args {
  float *grad_input;
  const float *grad_output;
  const float *input;
  const long long *target;
  const float *weight;
  const float *weight_sum; /* mean only */
  long long n, classes, inner, ignore_index;
  float smoothing;
  int reduction; /* 0 none, 1 mean, 2 sum */
} co_cross_entropy_backward_args;

/* out[o * inner + j] = the first index k < size of the largest (NaN first)
 * in[(o * size + k) * inner + j]. */
typedef struct co_argmax_args {
  long long *out;
  const float *in;
  long long outer, size, inner;
} co_argmax_args;

/* One AdamW step (decoupled weight decay), as torch.optim.AdamW. */
typedef struct co_adamw_args {
  float *param;
  const float *grad;
  float *exp_avg, *exp_avg_sq, *max_exp_avg_sq; /* the last: amsgrad only */
  long long n;
  float lr, beta1, beta2, eps, weight_decay;
  float step_size;        /* lr / (1 - beta1^step) */
  float correction2_sqrt; /* sqrt(1 - beta2^step) */
} co_adamw_args;

/* The geometry of a 2-d convolution or pooling window. */
typedef struct co_window {
  long long channels, height, width; /* input, per image */
  long long out_height, out_width;
  long long kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h,
      dilation_w;
} co_window;

/* col[b][k][p] for `images` images: k = (c * kernel_h + kh) * kernel_w +
 * kw, p = oh * out_width + ow; zero where the window leaves the image. */
typedef struct co_im2col_args {
  float *col;
  const float *in;
  long long images;
  co_window w;
} co_im2col_args;

/* The reverse: in[b][c][h][w] = the sum of the col entries it fed. */
typedef struct co_col2im_args {
  float *in;
  const float *col;
  long long images;
  co_window w;
} co_col2im_args;

/* Max pooling of `planes` (batch * channels) planes; indices are flat
 * positions h * width + w within a plane; a NaN wins (the last one). */
typedef struct co_max_pool_args {
  float *out;
  long long *indices;
  const float *in;
  long long planes;
  co_window w;
} co_max_pool_args;

/* grad_input[plane][indices[o]] += grad_output[o] (grad_input zeroed
 * first). */
typedef struct co_max_pool_backward_args {
  float *grad_input;
  const float *grad_output;
  const long long *indices;
  long long planes;
  co_window w;
} co_max_pool_backward_args;

#endif /* CO_KERNEL_ARGS_H_ */
