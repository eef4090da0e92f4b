/* conv_transpose3d (DIOPI's diopiConvTranspose3d and its backward) over
 * (N, C, D, H, W) views, as the 3-d convolution's engine computes it: a
 * transposed convolution is the input gradient of the convolution whose
 * weight it shares, so
 *   out         = diopiConvolution3dBackward's grad_input, from grad_output
 *                 = input (the weight (Cin, Cout / groups, k...) is that
 *                 convolution's (out channels Cin, in channels per group
 *                 Cout / groups)), plus bias per channel;
 *   grad_input  = diopiConvolution3d(grad_output, weight);
 *   grad_weight = diopiConvolution3dBackward's grad_weight of the
 *                 convolution from grad_output to input;
 *   grad_bias   = grad_output summed over all but its channels.
 * The arguments are checked here first (messages name this op); out's
 * spatial sizes, (I - 1) stride - 2 padding + dilation (k - 1) +
 * output_padding + 1, fix that convolution's geometry. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_tensor.h"
#include "ref_view_more.h"
#include "ref_volume.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* A per-channel pass over an (N, C, D, H, W) view: out += bias[c]
 * (adding), or grad_bias[c] = the sum of channel c (summing). */
typedef struct channel_task {
  bool adding;
  ref_view_t volume, bias;
  int64_t channels;
} channel_task_t;

static void channels_range(void *context, int64_t begin, int64_t end) {
  const channel_task_t *t = context;
  const ref_view_t *v = &t->volume;
  int64_t per_image = v->numel / (v->shape[0] ? v->shape[0] : 1) / t->channels;
  ref_view_t spatial = *v; /* (D, H, W) of one (image, channel) */
  spatial.ndim = 3;
  memmove(spatial.shape, v->shape + 2, 3 * sizeof *v->shape);
  memmove(spatial.strides, v->strides + 2, 3 * sizeof *v->strides);
  for (int64_t c = begin; c < end; c++) {
    double b = t->adding ? ref_get(&t->bias, c) : 0, sum = 0;
    for (int64_t n = 0; n < v->shape[0]; n++) {
      int64_t base = n * v->strides[0] + c * v->strides[1];
      for (int64_t k = 0; k < per_image; k++) {
        int64_t at = base + ref_offset(&spatial, k);
        if (t->adding)
          ref_store_at(v, at, ref_load_at(v, at) + b);
        else
          sum += ref_load_at(v, at);
      }
    }
    if (!t->adding)
      ref_set(&t->bias, c, sum);
  }
}

static void run_channels(void *args) {
  channel_task_t *t = args;
  ref_parallel_for(t->channels, 1, channels_range, t);
}

static diopiError_t enqueue_channels(CTX, const char *op, bool adding,
                                     const ref_view_t *volume,
                                     const ref_view_t *bias) {
  channel_task_t t = {adding, *volume, *bias, volume->shape[1]};
  return ref_enqueue(ctx, op, run_channels, &t, sizeof t);
}

/* The transposed convolution's geometry: input (N, Cin, I...) and weight
 * (Cin, Cout / groups, k...) of a floating dtype, the attributes (1 or 3
 * values each), and the output shape (N, Cout, O...). */
typedef struct geometry {
  int64_t stride[3], padding[3], dilation[3], output_padding[3];
  int64_t out_shape[5];
} geometry_t;

static diopiError_t geometry(const char *op, const ref_view_t *x,
                             const ref_view_t *w, diopiSize_t stride,
                             diopiSize_t padding, diopiSize_t output_padding,
                             diopiSize_t dilation, int64_t groups,
                             geometry_t *g) {
  char text[128];
  if (x->ndim != 5)
    return ref_fail(op, "input: %d dims, expected (N, C, D, H, W)", x->ndim);
  if (w->ndim != 5)
    return ref_fail(op,
                    "weight: %d dims, expected (Cin, Cout / groups, kD, "
                    "kH, kW)",
                    w->ndim);
  if (!ref_is_floating(x->dtype))
    return ref_fail(op, "input: expected a floating dtype, got dtype %d",
                    (int)x->dtype);
  if (groups < 1 || x->shape[1] % groups)
    return ref_fail(op, "groups: %lld does not divide the %lld input channels",
                    (long long)groups, (long long)x->shape[1]);
  if (w->shape[0] != x->shape[1])
    return ref_fail(op, "weight: shape %s, expected %lld input channels first",
                    ref_shape_text(w->shape, 5, text, sizeof text),
                    (long long)x->shape[1]);
  diopiError_t err = ref_window_attrs3(op, x->dtype, stride, padding, dilation,
                                       1, g->stride, g->padding, g->dilation);
  if (!err)
    err = ref_window_triple(op, "output_padding", output_padding, 0, 0,
                            g->output_padding);
  if (err)
    return err;
  g->out_shape[0] = x->shape[0];
  g->out_shape[1] = w->shape[1] * groups;
  for (int i = 0; i < 3; i++) {
    int64_t s = g->stride[i], d = g->dilation[i], extra = g->output_padding[i];
    if (extra >= s && extra >= d)
      return ref_fail(op,
                      "output_padding: %lld in dim %d, expected less than the "
                      "stride %lld or the dilation %lld",
                      (long long)extra, i, (long long)s, (long long)d);
    int64_t o = (x->shape[2 + i] - 1) * s - 2 * g->padding[i] +
                d * (w->shape[2 + i] - 1) + extra + 1;
    if (o < 1)
      return ref_fail(op, "input: %lld in dim %d gives an output of %lld",
                      (long long)x->shape[2 + i], 2 + i, (long long)o);
    g->out_shape[2 + i] = o;
  }
  return diopiSuccess;
}

static diopiSize_t triple(const int64_t v[3]) {
  diopiSize_t s = {v, 3};
  return s;
}

REF_EXPORT diopiError_t diopiConvTranspose3d(CTX, T out, CT input, CT weight,
                                             CT bias, diopiSize_t stride,
                                             diopiSize_t padding,
                                             diopiSize_t output_padding,
                                             int64_t groups,
                                             diopiSize_t dilation) {
  const char *op = "diopiConvTranspose3d";
  ref_view_t x, w, y, b;
  bool has_bias;
  geometry_t g;
  const ref_arg_t args[] = {{"out", out, &y, NULL},
                            {"input", input, &x, NULL},
                            {"weight", weight, &w, NULL},
                            {"bias", bias, &b, &has_bias}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (!err)
    err = geometry(op, &x, &w, stride, padding, output_padding, dilation,
                   groups, &g);
  if (!err)
    err = ref_expect_shape(op, "out", &y, g.out_shape, 5);
  if (!err && has_bias)
    err = ref_expect_shape(op, "bias", &b, &g.out_shape[1], 1);
  if (err || y.numel == 0)
    return err;
  /* The convolution's input only gives its shape here (no grad_weight
   * wanted): out serves. */
  err = diopiConvolution3dBackward(ctx, out, NULL, NULL, input, out, weight,
                                   NULL, triple(g.stride), triple(g.padding),
                                   triple(g.dilation), groups);
  if (!err && has_bias)
    err = enqueue_channels(ctx, op, true, &y, &b);
  return err;
}

REF_EXPORT diopiError_t diopiConvTranspose3dBackward(
    CTX, T grad_input, T grad_weight, T grad_bias, CT grad_output, CT input,
    CT weight, diopiSize_t *bias_sizes, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, diopiSize_t output_padding, int64_t groups) {
  const char *op = "diopiConvTranspose3dBackward";
  (void)bias_sizes; /* grad_bias, when given, says it */
  ref_view_t x, w, gy, gx, gw, gb;
  bool has_gx, has_gw, has_gb;
  geometry_t g;
  const ref_arg_t args[] = {{"grad_output", grad_output, &gy, NULL},
                            {"input", input, &x, NULL},
                            {"weight", weight, &w, NULL},
                            {"grad_input", grad_input, &gx, &has_gx},
                            {"grad_weight", grad_weight, &gw, &has_gw},
                            {"grad_bias", grad_bias, &gb, &has_gb}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (!err)
    err = geometry(op, &x, &w, stride, padding, output_padding, dilation,
                   groups, &g);
  if (!err)
    err = ref_expect_shape(op, "grad_output", &gy, g.out_shape, 5);
  if (!err && has_gx)
    err = ref_expect_shape(op, "grad_input", &gx, x.shape, 5);
  if (!err && has_gw)
    err = ref_expect_shape(op, "grad_weight", &gw, w.shape, 5);
  if (!err && has_gb)
    err = ref_expect_shape(op, "grad_bias", &gb, &g.out_shape[1], 1);
  if (err)
    return err;
  if (has_gx && x.numel > 0)
    err = diopiConvolution3d(ctx, grad_input, grad_output, weight, NULL,
                             triple(g.stride), triple(g.padding),
                             triple(g.dilation), groups);
  if (!err && has_gw)
    err = diopiConvolution3dBackward(
        ctx, NULL, grad_weight, NULL, input, grad_output, weight, NULL,
        triple(g.stride), triple(g.padding), triple(g.dilation), groups);
  if (!err && has_gb)
    err = enqueue_channels(ctx, op, false, &gy, &gb);
  return err;
}
