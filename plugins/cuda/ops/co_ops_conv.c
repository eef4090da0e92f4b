/* 2-d convolution and its backward as im2col + cuBLAS GEMM, a few images
 * at a time (the column buffer stays under CO_COLUMN_BYTES), groups
 * included. Dense float32 NCHW tensors. */
#include <string.h>

#include <diopi/functions.h>

#include "co_error.h"
#include "co_gemm.h"
#include "co_strided.h"
#include "co_window.h"

static const diopiDtype_t F32 = diopi_dtype_float32;
enum { CO_COLUMN_BYTES = 256 << 20 };

/* A convolution's checked views and shape. */
typedef struct conv {
  const char *op;
  co_view_t input, weight;
  co_window w;
  long long batch, out_channels, groups;
  long long rows;   /* per group: in channels / groups * kernel area */
  long long pixels; /* output pixels per image */
  long long chunk;  /* images per column buffer */
} conv_t;

static diopiError_t conv_check(conv_t *c, const char *op,
                               diopiConstTensorHandle_t input_t,
                               diopiConstTensorHandle_t weight_t,
                               diopiSize_t stride, diopiSize_t padding,
                               diopiSize_t dilation, int64_t groups) {
  memset(c, 0, sizeof *c);
  c->op = op;
  diopiError_t e;
  if ((e = co_view(op, "input", input_t, F32, &c->input)) ||
      (e = co_view(op, "weight", weight_t, F32, &c->weight)) ||
      (e = co_expect_dense(op, &c->input)) ||
      (e = co_expect_dense(op, &c->weight)))
    return e;
  if (c->input.ndim != 4 || c->weight.ndim != 4)
    return co_fail(op, "%s: expected 4 dims (NCHW), got %d",
                   c->input.ndim != 4 ? "input" : "weight",
                   c->input.ndim != 4 ? c->input.ndim : c->weight.ndim);
  if (groups < 1 || c->input.shape[1] % groups || c->weight.shape[0] % groups ||
      c->weight.shape[1] * groups != c->input.shape[1])
    return co_fail(op,
                   "groups: %lld does not split input's %lld channels into "
                   "weight's %lld per group and its %lld filters",
                   (long long)groups, (long long)c->input.shape[1],
                   (long long)c->weight.shape[1],
                   (long long)c->weight.shape[0]);
  c->batch = c->input.shape[0];
  c->out_channels = c->weight.shape[0];
  c->groups = groups;
  c->w.channels = c->input.shape[1];
  c->w.height = c->input.shape[2];
  c->w.width = c->input.shape[3];
  if (stride.len == 0)
    return co_fail(op, "stride: expected 1 or 2 values, got 0");
  if ((e = co_window_set(op, &c->w, c->weight.shape[2], c->weight.shape[3],
                         stride, padding, dilation, false)))
    return e;
  c->rows = c->weight.shape[1] * c->w.kernel_h * c->w.kernel_w;
  c->pixels = c->w.out_height * c->w.out_width;
  long long per_image = c->rows * groups * c->pixels * (long long)sizeof(float);
  c->chunk = per_image ? CO_COLUMN_BYTES / per_image : c->batch;
  if (c->chunk < 1)
    c->chunk = 1;
  if (c->chunk > c->batch)
    c->chunk = c->batch;
  return diopiSuccess;
}

static diopiError_t expect_out(const conv_t *c, const co_view_t *v) {
  const int64_t shape[4] = {c->batch, c->out_channels, c->w.out_height,
                            c->w.out_width};
  diopiError_t e = co_expect_shape(c->op, v, shape, 4);
  return e ? e : co_expect_dense(c->op, v);
}

/* Group g's filters: [out_channels / groups, rows]. */
static co_matrix_t filters(const conv_t *c, long long g) {
  long long per_group = c->out_channels / c->groups;
  return (co_matrix_t){.data =
                           (float *)c->weight.data + g * per_group * c->rows,
                       .rows = (int)per_group,
                       .cols = (int)c->rows,
                       .ld = (int)c->rows};
}

/* Group g's columns of the chunk's images: [rows, pixels] each. */
static co_matrix_t columns(const conv_t *c, float *col, long long g) {
  return (co_matrix_t){.data = col + g * c->rows * c->pixels,
                       .rows = (int)c->rows,
                       .cols = (int)c->pixels,
                       .ld = (int)c->pixels,
                       .batch_stride = c->groups * c->rows * c->pixels};
}

/* Group g's channels of an output-shaped tensor from image `first`. */
static co_matrix_t planes(const conv_t *c, void *data, long long first,
                          long long g) {
  long long per_group = c->out_channels / c->groups;
  return (co_matrix_t){
      .data =
          (float *)data + (first * c->out_channels + g * per_group) * c->pixels,
      .rows = (int)per_group,
      .cols = (int)c->pixels,
      .ld = (int)c->pixels,
      .batch_stride = c->out_channels * c->pixels};
}

static diopiError_t im2col(const co_exec_t *x, const conv_t *c, float *col,
                           long long first, long long images) {
  co_im2col_args a = {.col = col,
                      .in = (float *)c->input.data +
                            first * c->w.channels * c->w.height * c->w.width,
                      .images = images,
                      .w = c->w};
  return co_launch(x, CO_K_IM2COL, images * c->groups * c->rows * c->pixels,
                   &a);
}

CO_EXPORT diopiError_t diopiConvolution2d(
    diopiContextHandle_t ctx, diopiTensorHandle_t out_t,
    diopiConstTensorHandle_t input_t, diopiConstTensorHandle_t weight_t,
    diopiConstTensorHandle_t bias_t, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, int64_t groups) {
  conv_t c;
  co_view_t out, bias;
  bool has_bias;
  diopiError_t e;
  if ((e = conv_check(&c, "diopiConvolution2d", input_t, weight_t, stride,
                      padding, dilation, groups)) ||
      (e = co_view_optional(c.op, "bias", bias_t, F32, &bias, &has_bias)) ||
      (has_bias && (e = co_expect_shape(c.op, &bias, c.weight.shape, 1))) ||
      (has_bias && (e = co_expect_dense(c.op, &bias))) ||
      (e = co_view(c.op, "out", out_t, F32, &out)) ||
      (e = expect_out(&c, &out)))
    return e;
  co_exec_t x;
  const co_view_t *views[] = {&out, &c.input, &c.weight,
                              has_bias ? &bias : NULL};
  if ((e = co_begin(ctx, c.op, views, 4, &x)))
    return e;
  if (has_bias) {
    co_bias_fill_args a = {.out = out.data,
                           .bias = bias.data,
                           .n = out.numel,
                           .channels = c.out_channels,
                           .inner = c.pixels};
    if ((e = co_launch(&x, CO_K_BIAS_FILL, a.n, &a)))
      return e;
  }
  float *col;
  size_t bytes =
      sizeof(float) * (size_t)(c.chunk * c.groups * c.rows * c.pixels);
  if ((e = co_scratch(&x, bytes, (void **)&col)))
    return e;
  for (long long first = 0; first < c.batch; first += c.chunk) {
    long long images = c.batch - first < c.chunk ? c.batch - first : c.chunk;
    if ((e = im2col(&x, &c, col, first, images)))
      return e;
    for (long long g = 0; g < c.groups; g++) {
      co_matrix_t a = filters(&c, g), b = columns(&c, col, g),
                  o = planes(&c, out.data, first, g);
      if ((e = co_gemm(&x, &a, &b, &o, 1, has_bias ? 1 : 0, (int)images)))
        return e;
    }
  }
  return diopiSuccess;
}

CO_EXPORT diopiError_t diopiConvolution2dBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input_t,
    diopiTensorHandle_t grad_weight_t, diopiTensorHandle_t grad_bias_t,
    diopiConstTensorHandle_t grad_output_t, diopiConstTensorHandle_t input_t,
    diopiConstTensorHandle_t weight_t, diopiSize_t *bias_sizes,
    diopiSize_t stride, diopiSize_t padding, diopiSize_t dilation,
    int64_t groups) {
  (void)bias_sizes; /* grad_bias's own shape says it */
  conv_t c;
  co_view_t grad_output, grad_input, grad_weight, grad_bias;
  bool want_input, want_weight, want_bias;
  diopiError_t e;
  if ((e = conv_check(&c, "diopiConvolution2dBackward", input_t, weight_t,
                      stride, padding, dilation, groups)) ||
      (e = co_view(c.op, "grad_output", grad_output_t, F32, &grad_output)) ||
      (e = expect_out(&c, &grad_output)) ||
      (e = co_view_optional(c.op, "grad_input", grad_input_t, F32, &grad_input,
                            &want_input)) ||
      (e = co_view_optional(c.op, "grad_weight", grad_weight_t, F32,
                            &grad_weight, &want_weight)) ||
      (e = co_view_optional(c.op, "grad_bias", grad_bias_t, F32, &grad_bias,
                            &want_bias)))
    return e;
  if ((want_input &&
       ((e = co_expect_shape(c.op, &grad_input, c.input.shape, 4)) ||
        (e = co_expect_dense(c.op, &grad_input)))) ||
      (want_weight &&
       ((e = co_expect_shape(c.op, &grad_weight, c.weight.shape, 4)) ||
        (e = co_expect_dense(c.op, &grad_weight)))) ||
      (want_bias &&
       ((e = co_expect_shape(c.op, &grad_bias, c.weight.shape, 1)) ||
        (e = co_expect_dense(c.op, &grad_bias)))))
    return e;
  co_exec_t x;
  const co_view_t *views[] = {&grad_output,
                              &c.input,
                              &c.weight,
                              want_input ? &grad_input : NULL,
                              want_weight ? &grad_weight : NULL,
                              want_bias ? &grad_bias : NULL};
  if ((e = co_begin(ctx, c.op, views, 6, &x)))
    return e;
  if (want_bias) {
    co_channel_sum_args a = {.out = grad_bias.data,
                             .in = grad_output.data,
                             .batch = c.batch,
                             .channels = c.out_channels,
                             .inner = c.pixels};
    if ((e = co_launch_blocks(&x, CO_K_CHANNEL_SUM, (unsigned)c.out_channels,
                              &a)))
      return e;
  }
  if (!want_input && !want_weight)
    return diopiSuccess;
  if (c.batch == 0) /* no image: no gradient */
    return want_weight ? co_fill_view(&x, &grad_weight, 0) : diopiSuccess;
  long long per_group = c.out_channels / c.groups;
  float *col, *partial = NULL;
  size_t col_bytes =
      sizeof(float) * (size_t)(c.chunk * c.groups * c.rows * c.pixels);
  size_t partial_bytes = sizeof(float) * (size_t)(c.chunk * per_group * c.rows);
  if ((e = co_scratch(&x, col_bytes, (void **)&col)) ||
      (want_weight && (e = co_scratch(&x, partial_bytes, (void **)&partial))))
    return e;
  for (long long first = 0; first < c.batch; first += c.chunk) {
    long long images = c.batch - first < c.chunk ? c.batch - first : c.chunk;
    /* grad_weight: each image's go * col^T, summed over the images. */
    if (want_weight && (e = im2col(&x, &c, col, first, images)))
      return e;
    for (long long g = 0; want_weight && g < c.groups; g++) {
      co_matrix_t go = planes(&c, grad_output.data, first, g);
      co_matrix_t cols_t = co_transposed(columns(&c, col, g));
      co_matrix_t part = {.data = partial,
                          .rows = (int)per_group,
                          .cols = (int)c.rows,
                          .ld = (int)c.rows,
                          .batch_stride = per_group * c.rows};
      if ((e = co_gemm(&x, &go, &cols_t, &part, 1, 0, (int)images)))
        return e;
      co_channel_sum_args sum = {.out = (float *)grad_weight.data +
                                        g * per_group * c.rows,
                                 .in = partial,
                                 .batch = images,
                                 .channels = per_group * c.rows,
                                 .inner = 1,
                                 .accumulate = first > 0};
      if ((e = co_launch_blocks(&x, CO_K_CHANNEL_SUM,
                                (unsigned)(per_group * c.rows), &sum)))
        return e;
    }
    if (!want_input)
      continue;
    /* grad_input: col = weight^T * go per image, folded back. */
    for (long long g = 0; g < c.groups; g++) {
      co_matrix_t wt = co_transposed(filters(&c, g));
      co_matrix_t go = planes(&c, grad_output.data, first, g);
      co_matrix_t cols = columns(&c, col, g);
      if ((e = co_gemm(&x, &wt, &go, &cols, 1, 0, (int)images)))
        return e;
    }
    co_col2im_args fold = {.in = (float *)grad_input.data +
                                 first * c.w.channels * c.w.height * c.w.width,
                           .col = col,
                           .images = images,
                           .w = c.w};
    if ((e = co_launch(&x, CO_K_COL2IM,
                       images * c.w.channels * c.w.height * c.w.width, &fold)))
      return e;
  }
  return diopiSuccess;
}
