/* conv_transpose2d and its backward, direct loops in double (each output
 * gathers the input pixels that stride onto it), any strides and dtypes;
 * the forward of contiguous float32 tensors is a GEMM per image and group
 * (the columns W^T x, OpenBLAS's sgemm) folded onto the output (col2im,
 * output channels split across the pool).
 * Forward and grad_input split by (image, channel) plane, grad_weight by
 * (input channel, output channel) pair, grad_bias by channel: each item
 * writes only its own elements. */
#include <cblas.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_scratch.h"
#include "ref_tensor.h"
#include "ref_view_more.h"
#include "ref_window.h"

typedef struct tconv_task {
  bool backward, has_bias, has_gi, has_gw, has_gb;
  ref_view_t x, w, bias, y;  /* forward: y = out */
  ref_view_t gi, gw, gb, gy; /* backward: gy = grad_output */
  int64_t n, cin, cout, h, wd, oh, ow, kh, kw, groups;
  int64_t stride[2], pad[2], dil[2];
  bool gemm;   /* the float32 forward (see the top) */
  float *cols; /* its scratch: one image's columns, (cout kh kw) x (h wd) */
  int64_t img; /* the image being folded */
} tconv_task_t;

static int64_t at4(const ref_view_t *v, int64_t a, int64_t b, int64_t c,
                   int64_t d) {
  return a * v->strides[0] + b * v->strides[1] + c * v->strides[2] +
         d * v->strides[3];
}

/* The input coordinate that kernel tap k maps onto output o along a dim,
 * or -1. */
static int64_t tap(int64_t o, int64_t k, int64_t stride, int64_t pad,
                   int64_t dil, int64_t in) {
  int64_t t = o + pad - k * dil;
  if (t < 0 || t % stride)
    return -1;
  t /= stride;
  return t < in ? t : -1;
}

/* Output plane (image, oc) of the forward, or grad_input plane (image, ic)
 * of the backward (the same taps, read the other way). */
static void plane(const tconv_task_t *t, int64_t item) {
  int64_t cin_g = t->cin / t->groups, cout_g = t->cout / t->groups;
  if (!t->backward) {
    int64_t img = item / t->cout, oc = item % t->cout, g = oc / cout_g;
    for (int64_t i = 0; i < t->oh; i++)
      for (int64_t j = 0; j < t->ow; j++) {
        double acc = t->has_bias ? ref_get(&t->bias, oc) : 0;
        for (int64_t a = 0; a < t->kh; a++) {
          int64_t y = tap(i, a, t->stride[0], t->pad[0], t->dil[0], t->h);
          for (int64_t b = 0; y >= 0 && b < t->kw; b++) {
            int64_t x = tap(j, b, t->stride[1], t->pad[1], t->dil[1], t->wd);
            for (int64_t c = 0; x >= 0 && c < cin_g; c++) {
              int64_t ic = g * cin_g + c;
              acc += ref_load_at(&t->x, at4(&t->x, img, ic, y, x)) *
                     ref_load_at(&t->w, at4(&t->w, ic, oc % cout_g, a, b));
            }
          }
        }
        ref_store_at(&t->y, at4(&t->y, img, oc, i, j), acc);
      }
    return;
  }
  int64_t img = item / t->cin, ic = item % t->cin, g = ic / cin_g;
  for (int64_t y = 0; y < t->h; y++)
    for (int64_t x = 0; x < t->wd; x++) {
      double acc = 0;
      for (int64_t a = 0; a < t->kh; a++) {
        int64_t i = y * t->stride[0] - t->pad[0] + a * t->dil[0];
        for (int64_t b = 0; i >= 0 && i < t->oh && b < t->kw; b++) {
          int64_t j = x * t->stride[1] - t->pad[1] + b * t->dil[1];
          for (int64_t c = 0; j >= 0 && j < t->ow && c < cout_g; c++)
            acc += ref_load_at(&t->gy, at4(&t->gy, img, g * cout_g + c, i, j)) *
                   ref_load_at(&t->w, at4(&t->w, ic, c, a, b));
        }
      }
      ref_store_at(&t->gi, at4(&t->gi, img, ic, y, x), acc);
    }
}

/* grad_weight[ic, c, :, :] for item = ic * cout_g + c. */
static void weight_grad(const tconv_task_t *t, int64_t item) {
  int64_t cout_g = t->cout / t->groups, cin_g = t->cin / t->groups;
  int64_t ic = item / cout_g, c = item % cout_g;
  int64_t oc = ic / cin_g * cout_g + c;
  for (int64_t a = 0; a < t->kh; a++)
    for (int64_t b = 0; b < t->kw; b++) {
      double acc = 0;
      for (int64_t img = 0; img < t->n; img++)
        for (int64_t y = 0; y < t->h; y++) {
          int64_t i = y * t->stride[0] - t->pad[0] + a * t->dil[0];
          for (int64_t x = 0; i >= 0 && i < t->oh && x < t->wd; x++) {
            int64_t j = x * t->stride[1] - t->pad[1] + b * t->dil[1];
            if (j >= 0 && j < t->ow)
              acc += ref_load_at(&t->x, at4(&t->x, img, ic, y, x)) *
                     ref_load_at(&t->gy, at4(&t->gy, img, oc, i, j));
          }
        }
      ref_store_at(&t->gw, at4(&t->gw, ic, c, a, b), acc);
    }
}

static void bias_grad(const tconv_task_t *t, int64_t oc) {
  double acc = 0;
  for (int64_t img = 0; img < t->n; img++)
    for (int64_t i = 0; i < t->oh; i++)
      for (int64_t j = 0; j < t->ow; j++)
        acc += ref_load_at(&t->gy, at4(&t->gy, img, oc, i, j));
  ref_set(&t->gb, oc, acc);
}

static void planes_range(void *context, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; i++)
    plane(context, i);
}
static void weights_range(void *context, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; i++)
    weight_grad(context, i);
}
static void biases_range(void *context, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; i++)
    bias_grad(context, i);
}

/* Output channels [begin, end) of image t->img: bias, then every column
 * entry added where its tap lands. */
static void fold_channels(void *context, int64_t begin, int64_t end) {
  const tconv_task_t *t = context;
  int64_t plane = t->oh * t->ow, in_plane = t->h * t->wd;
  for (int64_t oc = begin; oc < end; oc++) {
    float *y = (float *)t->y.data + (t->img * t->cout + oc) * plane;
    float b = t->has_bias ? ((const float *)t->bias.data)[oc] : 0.0f;
    for (int64_t k = 0; k < plane; k++)
      y[k] = b;
    for (int64_t a = 0; a < t->kh; a++)
      for (int64_t c = 0; c < t->kw; c++) {
        const float *col = t->cols + ((oc * t->kh + a) * t->kw + c) * in_plane;
        for (int64_t r = 0; r < t->h; r++) {
          int64_t i = r * t->stride[0] - t->pad[0] + a * t->dil[0];
          if (i < 0 || i >= t->oh)
            continue;
          float *row = y + i * t->ow;
          for (int64_t x = 0; x < t->wd; x++) {
            int64_t j = x * t->stride[1] - t->pad[1] + c * t->dil[1];
            if (j >= 0 && j < t->ow)
              row[j] += col[r * t->wd + x];
          }
        }
      }
  }
}

static void forward_gemm(tconv_task_t *t) {
  int64_t cin_g = t->cin / t->groups, cout_g = t->cout / t->groups;
  int64_t in_plane = t->h * t->wd, kk = t->kh * t->kw;
  const float *x = (const float *)t->x.data, *w = (const float *)t->w.data;
  for (t->img = 0; t->img < t->n; t->img++) {
    for (int64_t g = 0; g < t->groups; g++)
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)(cout_g * kk),
                  (int)in_plane, (int)cin_g, 1.0f, w + g * cin_g * cout_g * kk,
                  (int)(cout_g * kk),
                  x + (t->img * t->cin + g * cin_g) * in_plane, (int)in_plane,
                  0.0f, t->cols + g * cout_g * kk * in_plane, (int)in_plane);
    ref_parallel_for(t->cout, 1, fold_channels, t);
  }
}

static void run(void *args) {
  tconv_task_t *t = args;
  if (t->gemm) {
    forward_gemm(t);
    return;
  }
  if (!t->backward || t->has_gi)
    ref_parallel_for(t->n * (t->backward ? t->cin : t->cout), 1, planes_range,
                     t);
  if (t->has_gw)
    ref_parallel_for(t->cin * (t->cout / t->groups), 1, weights_range, t);
  if (t->has_gb)
    ref_parallel_for(t->cout, 1, biases_range, t);
}

/* Views input and weight, checks the attributes and computes the output
 * size. */
static diopiError_t setup(diopiContextHandle_t ctx, const char *op,
                          tconv_task_t *t, diopiConstTensorHandle_t input,
                          diopiConstTensorHandle_t weight, diopiSize_t stride,
                          diopiSize_t padding, diopiSize_t output_padding,
                          diopiSize_t dilation, int64_t groups) {
  int64_t out_pad[2];
  diopiError_t err = ref_view(ctx, op, "input", input, &t->x);
  if (!err)
    err = ref_view(ctx, op, "weight", weight, &t->w);
  if (!err && (t->x.ndim != 4 || t->w.ndim != 4))
    err = ref_fail(op, "input, weight: expected 4 dims each, got %d and %d",
                   t->x.ndim, t->w.ndim);
  if (!err && (groups < 1 || t->x.shape[1] % groups))
    err =
        ref_fail(op, "groups: %lld does not divide the %lld input channels",
                 (long long)groups, (long long)(t->x.ndim ? t->x.shape[1] : 0));
  if (!err && t->w.shape[0] != t->x.shape[1])
    err = ref_fail(op, "weight: %lld input channels, input has %lld",
                   (long long)t->w.shape[0], (long long)t->x.shape[1]);
  if (!err)
    err = ref_window_pair(op, "stride", stride, 1, 1, t->stride);
  if (!err)
    err = ref_window_pair(op, "padding", padding, 0, 0, t->pad);
  if (!err)
    err = ref_window_pair(op, "output_padding", output_padding, 0, 0, out_pad);
  if (!err)
    err = ref_window_pair(op, "dilation", dilation, 1, 1, t->dil);
  for (int d = 0; !err && d < 2; d++)
    if (out_pad[d] >= t->stride[d] && out_pad[d] >= t->dil[d])
      err = ref_fail(op,
                     "output_padding: %lld must be below the stride or "
                     "the dilation",
                     (long long)out_pad[d]);
  if (err)
    return err;
  t->groups = groups;
  t->n = t->x.shape[0];
  t->cin = t->x.shape[1];
  t->h = t->x.shape[2];
  t->wd = t->x.shape[3];
  t->cout = t->w.shape[1] * groups;
  t->kh = t->w.shape[2];
  t->kw = t->w.shape[3];
  t->oh = (t->h - 1) * t->stride[0] - 2 * t->pad[0] + t->dil[0] * (t->kh - 1) +
          out_pad[0] + 1;
  t->ow = (t->wd - 1) * t->stride[1] - 2 * t->pad[1] + t->dil[1] * (t->kw - 1) +
          out_pad[1] + 1;
  if (t->oh < 1 || t->ow < 1)
    return ref_fail(op, "input: the output would be %lldx%lld",
                    (long long)t->oh, (long long)t->ow);
  return diopiSuccess;
}

REF_EXPORT diopiError_t diopiConvTranspose2d(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiConstTensorHandle_t input, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t bias, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t output_padding, int64_t groups, diopiSize_t dilation) {
  const char *op = "diopiConvTranspose2d";
  tconv_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = setup(ctx, op, &t, input, weight, stride, padding,
                           output_padding, dilation, groups);
  if (!err)
    err = ref_view_optional(ctx, op, "bias", bias, &t.bias, &t.has_bias);
  if (!err && t.has_bias)
    err = ref_expect_shape(op, "bias", &t.bias, &t.cout, 1);
  if (!err)
    err = ref_view(ctx, op, "out", out, &t.y);
  int64_t shape[4] = {t.n, t.cout, t.oh, t.ow};
  if (!err)
    err = ref_expect_shape(op, "out", &t.y, shape, 4);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.y, &t.x);
  if (err || t.y.numel == 0)
    return err;
  int64_t cols = t.cout * t.kh * t.kw * t.h * t.wd;
  t.gemm = ref_f32_contiguous(&t.x) && ref_f32_contiguous(&t.w) &&
           ref_f32_contiguous(&t.y) &&
           (!t.has_bias || ref_f32_contiguous(&t.bias)) && cols <= INT32_MAX &&
           t.cin <= INT32_MAX;
  if (t.gemm && (err = ref_scratch(ctx, op, (size_t)cols * sizeof(float),
                                   (void **)&t.cols)))
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiConvTranspose2dBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiTensorHandle_t grad_weight, diopiTensorHandle_t grad_bias,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t weight, diopiSize_t *bias_sizes,
    diopiSize_t stride, diopiSize_t padding, diopiSize_t dilation,
    diopiSize_t output_padding, int64_t groups) {
  const char *op = "diopiConvTranspose2dBackward";
  tconv_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  diopiError_t err = setup(ctx, op, &t, input, weight, stride, padding,
                           output_padding, dilation, groups);
  if (!err)
    err = ref_view(ctx, op, "grad_output", grad_output, &t.gy);
  int64_t shape[4] = {t.n, t.cout, t.oh, t.ow};
  if (!err)
    err = ref_expect_shape(op, "grad_output", &t.gy, shape, 4);
  if (!err)
    err =
        ref_view_optional(ctx, op, "grad_input", grad_input, &t.gi, &t.has_gi);
  if (!err && t.has_gi)
    err = ref_expect_shape(op, "grad_input", &t.gi, t.x.shape, 4);
  if (!err)
    err = ref_view_optional(ctx, op, "grad_weight", grad_weight, &t.gw,
                            &t.has_gw);
  if (!err && t.has_gw)
    err = ref_expect_shape(op, "grad_weight", &t.gw, t.w.shape, 4);
  if (!err && bias_sizes && grad_bias) {
    err = ref_view(ctx, op, "grad_bias", grad_bias, &t.gb);
    t.has_gb = true;
    if (!err)
      err = ref_expect_shape(op, "grad_bias", &t.gb, &t.cout, 1);
  }
  if (err || (!t.has_gi && !t.has_gw && !t.has_gb))
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
