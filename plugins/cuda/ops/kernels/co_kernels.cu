/* The op library's CUDA kernels, compiled by NVRTC at run time for the
 * device's architecture (co_kernel_args.h is prepended; NVRTC has no math.h,
 * so INFINITY and NAN are spelled here). Each kernel takes
 * its argument block by value and walks its elements with a grid-stride
 * loop; the block size is CO_BLOCK. */
#define CO_BLOCK 256
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)
#define CO_LOOP(i, n)                                                          \
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;         \
       i < (n); i += (long long)blockDim.x * gridDim.x)

/* The sum of `value` over the block (every thread gets it). */
__device__ float co_block_sum(float value) {
  __shared__ float partial[CO_BLOCK / 32];
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffffu, value, offset);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = value;
  __syncthreads();
  float total = 0;
  for (int w = 0; w < CO_BLOCK / 32; w++)
    total += partial[w];
  __syncthreads();
  return total;
}

extern "C" __global__ void co_strided(co_strided_args a) {
  CO_LOOP(i, a.n) {
    long long rest = i, dst = 0, src = 0;
    for (int d = a.ndim - 1; d >= 0; d--) {
      long long index = rest % a.shape[d];
      rest /= a.shape[d];
      dst += index * a.dst_strides[d];
      src += index * a.src_strides[d];
    }
    a.dst[dst] = a.src ? a.src[src] : a.value;
  }
}

extern "C" __global__ void co_relu(co_relu_args a) {
  CO_LOOP(i, a.n)
  a.x[i] = a.x[i] > 0.f ? a.x[i] : (a.x[i] != a.x[i] ? a.x[i] : 0.f);
}

extern "C" __global__ void co_threshold_backward(co_threshold_backward_args a) {
  CO_LOOP(i, a.n)
  a.grad_input[i] = a.input[i] <= a.threshold ? 0.f : a.grad_output[i];
}

extern "C" __global__ void co_bias_fill(co_bias_fill_args a) {
  CO_LOOP(i, a.n) a.out[i] = a.bias[(i / a.inner) % a.channels];
}

extern "C" __global__ void co_channel_sum(co_channel_sum_args a) {
  long long c = blockIdx.x;
  long long count = a.batch * a.inner;
  float sum = 0;
  for (long long k = threadIdx.x; k < count; k += blockDim.x) {
    long long b = k / a.inner, j = k % a.inner;
    sum += a.in[(b * a.channels + c) * a.inner + j];
  }
  sum = co_block_sum(sum);
  if (threadIdx.x == 0)
    a.out[c] = a.accumulate ? a.out[c] + sum : sum;
}

/* log(sum(exp(x))) over the classes of one position. */
__device__ float co_log_sum_exp(const float *x, long long classes,
                                long long inner) {
  float top = -INFINITY;
  for (long long c = 0; c < classes; c++)
    top = fmaxf(top, x[c * inner]);
  float sum = 0;
  for (long long c = 0; c < classes; c++)
    sum += expf(x[c * inner] - top);
  return top + logf(sum);
}

extern "C" __global__ void co_cross_entropy(co_cross_entropy_args a) {
  CO_LOOP(p, a.n) {
    long long b = p / a.inner, j = p % a.inner;
    const float *x = a.input + b * a.classes * a.inner + j;
    long long t = a.target[p];
    if (t == a.ignore_index) {
      a.loss[p] = 0.f;
      a.weights[p] = 0.f;
      continue;
    }
    if (t < 0 || t >= a.classes) {
      a.loss[p] = NAN;
      a.weights[p] = NAN;
      continue;
    }
    float lse = co_log_sum_exp(x, a.classes, a.inner);
    float wt = a.weight ? a.weight[t] : 1.f;
    float loss = wt * (lse - x[t * a.inner]);
    if (a.smoothing > 0.f) {
      float smooth = 0;
      for (long long c = 0; c < a.classes; c++)
        smooth += (a.weight ? a.weight[c] : 1.f) * (lse - x[c * a.inner]);
      loss = (1.f - a.smoothing) * loss + a.smoothing * smooth / a.classes;
    }
    a.loss[p] = loss;
    a.weights[p] = wt;
  }
}

extern "C" __global__ void co_loss_reduce(co_loss_reduce_args a) {
  float loss = 0, weight = 0;
  for (long long i = threadIdx.x; i < a.n; i += blockDim.x) {
    loss += a.loss[i];
    weight += a.weights[i];
  }
  loss = co_block_sum(loss);
  weight = co_block_sum(weight);
  if (threadIdx.x == 0)
    a.out[0] = a.mean ? loss / weight : loss;
}

extern "C" __global__ void
co_cross_entropy_backward(co_cross_entropy_backward_args a) {
  CO_LOOP(p, a.n) {
    long long b = p / a.inner, j = p % a.inner;
    const float *x = a.input + b * a.classes * a.inner + j;
    float *g = a.grad_input + b * a.classes * a.inner + j;
    long long t = a.target[p];
    float scale = a.reduction == 0 ? a.grad_output[p] : a.grad_output[0];
    if (a.reduction == 1)
      scale /= a.weight_sum[0];
    if (t == a.ignore_index || t < 0 || t >= a.classes) {
      float fill = t == a.ignore_index ? 0.f : NAN;
      for (long long c = 0; c < a.classes; c++)
        g[c * a.inner] = fill;
      continue;
    }
    float lse = co_log_sum_exp(x, a.classes, a.inner);
    float wt = a.weight ? a.weight[t] : 1.f;
    float weight_total = 0;
    if (a.smoothing > 0.f)
      for (long long c = 0; c < a.classes; c++)
        weight_total += a.weight ? a.weight[c] : 1.f;
    for (long long c = 0; c < a.classes; c++) {
      float prob = expf(x[c * a.inner] - lse);
      float grad = wt * (prob - (c == t ? 1.f : 0.f));
      if (a.smoothing > 0.f) {
        float wc = a.weight ? a.weight[c] : 1.f;
        grad = (1.f - a.smoothing) * grad +
               a.smoothing * (prob * weight_total - wc) / a.classes;
      }
      g[c * a.inner] = scale * grad;
    }
  }
}

extern "C" __global__ void co_argmax(co_argmax_args a) {
  CO_LOOP(i, a.outer * a.inner) {
    long long o = i / a.inner, j = i % a.inner;
    const float *x = a.in + o * a.size * a.inner + j;
    float best = x[0];
    long long at = 0;
    for (long long k = 1; k < a.size && best == best; k++) {
      float v = x[k * a.inner];
      if (v > best || v != v) {
        best = v;
        at = k;
      }
    }
    a.out[i] = at;
  }
}

extern "C" __global__ void co_adamw(co_adamw_args a) {
  CO_LOOP(i, a.n) {
    float g = a.grad[i];
    float p = a.param[i] * (1.f - a.lr * a.weight_decay);
    float m = a.beta1 * a.exp_avg[i] + (1.f - a.beta1) * g;
    float v = a.beta2 * a.exp_avg_sq[i] + (1.f - a.beta2) * g * g;
    float denom = v;
    if (a.max_exp_avg_sq) {
      denom = fmaxf(a.max_exp_avg_sq[i], v);
      a.max_exp_avg_sq[i] = denom;
    }
    a.param[i] =
        p - a.step_size * m / (sqrtf(denom) / a.correction2_sqrt + a.eps);
    a.exp_avg[i] = m;
    a.exp_avg_sq[i] = v;
  }
}

extern "C" __global__ void co_im2col(co_im2col_args a) {
  const co_window w = a.w;
  long long pixels = w.out_height * w.out_width;
  long long rows = w.channels * w.kernel_h * w.kernel_w;
  CO_LOOP(i, a.images * rows * pixels) {
    long long p = i % pixels, k = (i / pixels) % rows, b = i / (pixels * rows);
    long long kw = k % w.kernel_w, kh = (k / w.kernel_w) % w.kernel_h,
              c = k / (w.kernel_w * w.kernel_h);
    long long oh = p / w.out_width, ow = p % w.out_width;
    long long h = oh * w.stride_h - w.pad_h + kh * w.dilation_h;
    long long x = ow * w.stride_w - w.pad_w + kw * w.dilation_w;
    a.col[i] = h >= 0 && h < w.height && x >= 0 && x < w.width
                   ? a.in[((b * w.channels + c) * w.height + h) * w.width + x]
                   : 0.f;
  }
}

extern "C" __global__ void co_col2im(co_col2im_args a) {
  const co_window w = a.w;
  long long pixels = w.out_height * w.out_width;
  long long rows = w.channels * w.kernel_h * w.kernel_w;
  CO_LOOP(i, a.images * w.channels * w.height * w.width) {
    long long x = i % w.width, h = (i / w.width) % w.height,
              c = (i / (w.width * w.height)) % w.channels,
              b = i / (w.width * w.height * w.channels);
    const float *col = a.col + b * rows * pixels;
    float sum = 0;
    for (long long kh = 0; kh < w.kernel_h; kh++) {
      long long hs = h + w.pad_h - kh * w.dilation_h;
      if (hs < 0 || hs % w.stride_h)
        continue;
      long long oh = hs / w.stride_h;
      if (oh >= w.out_height)
        continue;
      for (long long kw = 0; kw < w.kernel_w; kw++) {
        long long xs = x + w.pad_w - kw * w.dilation_w;
        if (xs < 0 || xs % w.stride_w)
          continue;
        long long ow = xs / w.stride_w;
        if (ow >= w.out_width)
          continue;
        long long k = (c * w.kernel_h + kh) * w.kernel_w + kw;
        sum += col[k * pixels + oh * w.out_width + ow];
      }
    }
    a.in[i] = sum;
  }
}

extern "C" __global__ void co_max_pool(co_max_pool_args a) {
  const co_window w = a.w;
  long long pixels = w.out_height * w.out_width;
  CO_LOOP(i, a.planes * pixels) {
    long long plane = i / pixels, p = i % pixels;
    long long oh = p / w.out_width, ow = p % w.out_width;
    const float *in = a.in + plane * w.height * w.width;
    float best = -INFINITY;
    long long at = -1;
    for (long long kh = 0; kh < w.kernel_h; kh++) {
      long long h = oh * w.stride_h - w.pad_h + kh * w.dilation_h;
      if (h < 0 || h >= w.height)
        continue;
      for (long long kw = 0; kw < w.kernel_w; kw++) {
        long long x = ow * w.stride_w - w.pad_w + kw * w.dilation_w;
        if (x < 0 || x >= w.width)
          continue;
        float v = in[h * w.width + x];
        if (at < 0 || v > best || v != v) { /* the last NaN, as PyTorch */
          best = v;
          at = h * w.width + x;
        }
      }
    }
    a.out[i] = best;
    if (a.indices)
      a.indices[i] = at;
  }
}

extern "C" __global__ void co_max_pool_backward(co_max_pool_backward_args a) {
  const co_window w = a.w;
  long long pixels = w.out_height * w.out_width;
  CO_LOOP(i, a.planes * pixels) {
    long long plane = i / pixels, at = a.indices[i];
    if (at >= 0 && at < w.height * w.width)
      atomicAdd(a.grad_input + plane * w.height * w.width + at,
                a.grad_output[i]);
  }
}
