/* conv2d and its backward as im2col + float32 GEMM (OpenBLAS): per image
 * and group, out = W . col(x); grad_input = col2im(W^T . grad_out);
 * grad_weight += grad_out . col(x)^T. Every operand is staged as contiguous
 * float32 in scratch taken on the caller's thread (or used in place when it
 * already is), so any float dtype and stride works. */
#include <cblas.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_scratch.h"
#include "ref_tensor.h"

typedef struct conv_geometry {
  int64_t n, cin, h, w, cout, kh, kw, oh, ow, groups;
  int64_t stride[2], pad[2], dil[2];
} conv_geometry_t;

typedef struct conv_task {
  conv_geometry_t g;
  ref_view_t input, weight, bias, out, grad_output, grad_input, grad_weight,
      grad_bias;
  bool has_bias, has_grad_input, has_grad_weight, has_grad_bias;
  float *x, *wt, *col, *y; /* staged: input, weight, col, out/grad_output */
  float *gx, *gw;          /* backward: grad_input, grad_weight */
} conv_task_t;

/* Contiguous float32 copies of a view (src) into dst, and back. */
static void to_f32(const ref_view_t *v, float *dst) {
  if ((const float *)v->data == dst)
    return;
  for (int64_t i = 0; i < v->numel; i++)
    dst[i] = (float)ref_get(v, i);
}
static void from_f32(const ref_view_t *v, const float *src) {
  if ((float *)v->data == src)
    return;
  for (int64_t i = 0; i < v->numel; i++)
    ref_set(v, i, src[i]);
}

/* col[(c*kh + i)*kw + j][oy*ow + ox] from image x (cg channels). */
static void im2col(const conv_geometry_t *g, const float *x, int64_t cg,
                   float *col) {
  int64_t p = g->oh * g->ow;
  for (int64_t c = 0; c < cg; c++)
    for (int64_t i = 0; i < g->kh; i++)
      for (int64_t j = 0; j < g->kw; j++) {
        float *row = col + ((c * g->kh + i) * g->kw + j) * p;
        for (int64_t oy = 0; oy < g->oh; oy++) {
          int64_t y = oy * g->stride[0] - g->pad[0] + i * g->dil[0];
          for (int64_t ox = 0; ox < g->ow; ox++) {
            int64_t xx = ox * g->stride[1] - g->pad[1] + j * g->dil[1];
            row[oy * g->ow + ox] = y >= 0 && y < g->h && xx >= 0 && xx < g->w
                                       ? x[(c * g->h + y) * g->w + xx]
                                       : 0.0f;
          }
        }
      }
}

/* Adds col back into image gx (the adjoint of im2col). */
static void col2im(const conv_geometry_t *g, const float *col, int64_t cg,
                   float *gx) {
  int64_t p = g->oh * g->ow;
  for (int64_t c = 0; c < cg; c++)
    for (int64_t i = 0; i < g->kh; i++)
      for (int64_t j = 0; j < g->kw; j++) {
        const float *row = col + ((c * g->kh + i) * g->kw + j) * p;
        for (int64_t oy = 0; oy < g->oh; oy++) {
          int64_t y = oy * g->stride[0] - g->pad[0] + i * g->dil[0];
          if (y < 0 || y >= g->h)
            continue;
          for (int64_t ox = 0; ox < g->ow; ox++) {
            int64_t xx = ox * g->stride[1] - g->pad[1] + j * g->dil[1];
            if (xx >= 0 && xx < g->w)
              gx[(c * g->h + y) * g->w + xx] += row[oy * g->ow + ox];
          }
        }
      }
}

static void run_forward(void *args) {
  conv_task_t *t = args;
  const conv_geometry_t *g = &t->g;
  int64_t cg = g->cin / g->groups, og = g->cout / g->groups;
  int64_t k = cg * g->kh * g->kw, p = g->oh * g->ow;
  to_f32(&t->input, t->x);
  to_f32(&t->weight, t->wt);
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t gr = 0; gr < g->groups; gr++) {
      im2col(g, t->x + (n * g->cin + gr * cg) * g->h * g->w, cg, t->col);
      float *y = t->y + (n * g->cout + gr * og) * p;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)og, (int)p,
                  (int)k, 1.0f, t->wt + gr * og * k, (int)k, t->col, (int)p,
                  0.0f, y, (int)p);
      if (t->has_bias)
        for (int64_t o = 0; o < og; o++) {
          float b = (float)ref_get(&t->bias, gr * og + o);
          for (int64_t q = 0; q < p; q++)
            y[o * p + q] += b;
        }
    }
  from_f32(&t->out, t->y);
}

static void run_backward(void *args) {
  conv_task_t *t = args;
  const conv_geometry_t *g = &t->g;
  int64_t cg = g->cin / g->groups, og = g->cout / g->groups;
  int64_t k = cg * g->kh * g->kw, p = g->oh * g->ow;
  to_f32(&t->input, t->x);
  to_f32(&t->weight, t->wt);
  to_f32(&t->grad_output, t->y);
  if (t->has_grad_input)
    memset(t->gx, 0, (size_t)t->input.numel * sizeof(float));
  if (t->has_grad_weight)
    memset(t->gw, 0, (size_t)t->weight.numel * sizeof(float));
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t gr = 0; gr < g->groups; gr++) {
      const float *gy = t->y + (n * g->cout + gr * og) * p;
      if (t->has_grad_weight) {
        im2col(g, t->x + (n * g->cin + gr * cg) * g->h * g->w, cg, t->col);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)og, (int)k,
                    (int)p, 1.0f, gy, (int)p, t->col, (int)p, 1.0f,
                    t->gw + gr * og * k, (int)k);
      }
      if (t->has_grad_input) {
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)k, (int)p,
                    (int)og, 1.0f, t->wt + gr * og * k, (int)k, gy, (int)p,
                    0.0f, t->col, (int)p);
        col2im(g, t->col, cg, t->gx + (n * g->cin + gr * cg) * g->h * g->w);
      }
    }
  if (t->has_grad_input)
    from_f32(&t->grad_input, t->gx);
  if (t->has_grad_weight)
    from_f32(&t->grad_weight, t->gw);
  if (t->has_grad_bias)
    for (int64_t o = 0; o < g->cout; o++) {
      double sum = 0;
      for (int64_t n = 0; n < g->n; n++)
        for (int64_t q = 0; q < p; q++)
          sum += t->y[(n * g->cout + o) * p + q];
      ref_set(&t->grad_bias, o, sum);
    }
}

/* A pair attribute: 1 value (both dims) or 2. */
static diopiError_t pair(const char *op, const char *arg, diopiSize_t s,
                         int64_t min, int64_t out[2]) {
  if ((s.len != 1 && s.len != 2) || !s.data)
    return ref_fail(op, "%s: %lld values, expected 1 or 2", arg,
                    (long long)s.len);
  out[0] = s.data[0];
  out[1] = s.data[s.len - 1];
  if (out[0] < min || out[1] < min)
    return ref_fail(op, "%s: (%lld, %lld) below %lld", arg, (long long)out[0],
                    (long long)out[1], (long long)min);
  return diopiSuccess;
}

/* Geometry from input and weight; checks the output (or grad_output)
 * shape it implies. */
static diopiError_t geometry(const char *op, conv_task_t *t,
                             const ref_view_t *out, const char *out_name,
                             diopiSize_t stride, diopiSize_t padding,
                             diopiSize_t dilation, int64_t groups) {
  conv_geometry_t *g = &t->g;
  diopiError_t err = diopiSuccess;
  if (t->input.ndim != 4)
    return ref_fail(op, "input: %d dims, expected (N, C, H, W)", t->input.ndim);
  if (t->weight.ndim != 4)
    return ref_fail(op,
                    "weight: %d dims, expected (C_out, C_in/groups, kH, "
                    "kW)",
                    t->weight.ndim);
  if ((err = pair(op, "stride", stride, 1, g->stride)) ||
      (err = pair(op, "padding", padding, 0, g->pad)) ||
      (err = pair(op, "dilation", dilation, 1, g->dil)))
    return err;
  g->n = t->input.shape[0];
  g->cin = t->input.shape[1];
  g->h = t->input.shape[2];
  g->w = t->input.shape[3];
  g->cout = t->weight.shape[0];
  g->kh = t->weight.shape[2];
  g->kw = t->weight.shape[3];
  g->groups = groups;
  if (groups < 1 || g->cin % groups || g->cout % groups)
    return ref_fail(op,
                    "groups: %lld does not divide C_in %lld and C_out "
                    "%lld",
                    (long long)groups, (long long)g->cin, (long long)g->cout);
  int64_t want_w[4] = {g->cout, g->cin / groups, g->kh, g->kw};
  if ((err = ref_expect_shape(op, "weight", &t->weight, want_w, 4)))
    return err;
  g->oh =
      (g->h + 2 * g->pad[0] - g->dil[0] * (g->kh - 1) - 1) / g->stride[0] + 1;
  g->ow =
      (g->w + 2 * g->pad[1] - g->dil[1] * (g->kw - 1) - 1) / g->stride[1] + 1;
  if (g->oh < 1 || g->ow < 1)
    return ref_fail(op, "input: %lldx%lld is smaller than the kernel",
                    (long long)g->h, (long long)g->w);
  int64_t want_o[4] = {g->n, g->cout, g->oh, g->ow};
  if ((err = ref_expect_shape(op, out_name, out, want_o, 4)))
    return err;
  if (t->has_bias &&
      (err = ref_expect_shape(op, "bias", &t->bias, &g->cout, 1)))
    return err;
  return diopiSuccess;
}

/* A staged float32 buffer for view v: v's own memory if it is contiguous
 * float32 (and `in_place_ok`), else scratch. */
static diopiError_t stage(diopiContextHandle_t ctx, const char *op,
                          const ref_view_t *v, bool in_place_ok, float **out) {
  if (in_place_ok && ref_f32_contiguous(v)) {
    *out = (float *)v->data;
    return diopiSuccess;
  }
  return ref_scratch(ctx, op, (size_t)v->numel * sizeof(float), (void **)out);
}

REF_EXPORT diopiError_t diopiConvolution2d(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiConstTensorHandle_t input, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t bias, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, int64_t groups) {
  const char *op = "diopiConvolution2d";
  conv_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = ref_view(op, "out", out, &t.out);
  if (!err)
    err = ref_view(op, "input", input, &t.input);
  if (!err)
    err = ref_view(op, "weight", weight, &t.weight);
  if (!err)
    err = ref_view_optional(op, "bias", bias, &t.bias, &t.has_bias);
  if (!err)
    err = geometry(op, &t, &t.out, "out", stride, padding, dilation, groups);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input);
  if (err || t.out.numel == 0)
    return err;
  const conv_geometry_t *g = &t.g;
  size_t col = (size_t)(g->cin / g->groups * g->kh * g->kw * g->oh * g->ow);
  if ((err = stage(ctx, op, &t.input, true, &t.x)) ||
      (err = stage(ctx, op, &t.weight, true, &t.wt)) ||
      (err = stage(ctx, op, &t.out, true, &t.y)) ||
      (err = ref_scratch(ctx, op, col * sizeof(float), (void **)&t.col)))
    return err;
  return ref_enqueue(ctx, op, run_forward, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiConvolution2dBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiTensorHandle_t grad_weight, diopiTensorHandle_t grad_bias,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t weight, diopiSize_t *bias_sizes,
    diopiSize_t stride, diopiSize_t padding, diopiSize_t dilation,
    int64_t groups) {
  const char *op = "diopiConvolution2dBackward";
  (void)bias_sizes; /* grad_bias's own shape says it */
  conv_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = ref_view(op, "grad_output", grad_output, &t.grad_output);
  if (!err)
    err = ref_view(op, "input", input, &t.input);
  if (!err)
    err = ref_view(op, "weight", weight, &t.weight);
  if (!err)
    err = ref_view_optional(op, "grad_input", grad_input, &t.grad_input,
                            &t.has_grad_input);
  if (!err)
    err = ref_view_optional(op, "grad_weight", grad_weight, &t.grad_weight,
                            &t.has_grad_weight);
  if (!err)
    err = ref_view_optional(op, "grad_bias", grad_bias, &t.grad_bias,
                            &t.has_grad_bias);
  if (!err)
    err = geometry(op, &t, &t.grad_output, "grad_output", stride, padding,
                   dilation, groups);
  if (!err && t.has_grad_input)
    err = ref_expect_shape(op, "grad_input", &t.grad_input, t.input.shape, 4);
  if (!err && t.has_grad_weight)
    err =
        ref_expect_shape(op, "grad_weight", &t.grad_weight, t.weight.shape, 4);
  if (!err && t.has_grad_bias)
    err = ref_expect_shape(op, "grad_bias", &t.grad_bias, &t.g.cout, 1);
  if (err || t.input.numel == 0)
    return err;
  const conv_geometry_t *g = &t.g;
  size_t col = (size_t)(g->cin / g->groups * g->kh * g->kw * g->oh * g->ow);
  if ((err = stage(ctx, op, &t.input, true, &t.x)) ||
      (err = stage(ctx, op, &t.weight, true, &t.wt)) ||
      (err = stage(ctx, op, &t.grad_output, true, &t.y)) ||
      (err = ref_scratch(ctx, op, col * sizeof(float), (void **)&t.col)))
    return err;
  if (t.has_grad_input && (err = stage(ctx, op, &t.grad_input, true, &t.gx)))
    return err;
  if (t.has_grad_weight && (err = stage(ctx, op, &t.grad_weight, true, &t.gw)))
    return err;
  return ref_enqueue(ctx, op, run_backward, &t, sizeof t);
}
