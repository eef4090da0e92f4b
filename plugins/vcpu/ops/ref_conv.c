/* conv2d and its backward as im2col + float32 GEMM (OpenBLAS, which uses
 * the pool's thread count). Images go in batches: the columns of `batch`
 * images side by side make one GEMM wide enough to keep both cores busy,
 * while the column buffer stays about COLUMNS_PER_GEMM wide (cache-sized).
 * Per batch and group: out = W . col(x); grad_weight += grad_out . col(x)^T;
 * grad_input = col2im(W^T . grad_out). im2col, col2im and the moves between
 * the GEMM's (C_out, batch * H*W) layout and NCHW are split across the
 * worker pool. Every operand is staged as contiguous float32 in scratch
 * taken on the caller's thread (or used in place when it already is), so
 * any float dtype and stride works. 3x3 stride-1 convolutions (see
 * ref_winograd_applies) run their forward and grad_input as Winograd
 * F(4x4, 3x3) instead (ref_winograd.h). Anything float64 takes a double
 * path instead: per image and group, im2col in double and cblas_dgemm. */
#include <cblas.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_elementwise.h"
#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_scratch.h"
#include "ref_tensor.h"
#include "ref_window.h"
#include "ref_winograd.h"

/* Columns (output pixels) one GEMM aims at: wide enough for both cores,
 * narrow enough that the column buffer (K x columns) stays in cache
 * (OpenBLAS on 64 x 576 x N: N = 1568 runs at 1.2x the speed of 6272). */
enum { COLUMNS_PER_GEMM = 2048 };

typedef struct conv_geometry {
  int64_t n, cin, h, w, cout, kh, kw, oh, ow, groups;
  int64_t stride[2], pad[2], dil[2];
  int64_t cg, og, k, p; /* per group: C_in, C_out, K = cg*kh*kw; p = oh*ow */
  int64_t batch;        /* images per GEMM */
} conv_geometry_t;

typedef struct conv_task {
  conv_geometry_t g;
  ref_view_t input, weight, bias, out, grad_output, grad_input, grad_weight,
      grad_bias;
  bool has_bias, has_grad_input, has_grad_weight, has_grad_bias;
  float *x, *wt, *col, *y; /* staged: input, weight, col, out/grad_output */
  float *gx, *gw;          /* backward: grad_input, grad_weight */
  float *wide;             /* (og, batch * p): the GEMM's side of y */
  float *winograd;         /* forward or grad_input by Winograd: its scratch */
  double *f64;             /* float64: the double path's scratch (f64_*) */
} conv_task_t;

/* One parallel step over one batch (images n0 .. n0 + nb) of one group. */
typedef struct conv_step {
  const conv_task_t *t;
  int64_t n0, nb, group;
  float *wide; /* the (og, nb * p) matrix: t->wide, or y's own when nb is 1 */
} conv_step_t;

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

/* Parallel-for grain for items of `size` floats each. */
static int64_t grain(int64_t size) {
  return (1 << 14) / (size + 1) + 1;
}

/* Output positions [*lo, *hi) along one axis whose input position
 * o * stride - offset lies inside [0, size). */
static void inside(int64_t size, int64_t out_size, int64_t stride,
                   int64_t offset, int64_t *lo, int64_t *hi) {
  int64_t a = offset > 0 ? (offset + stride - 1) / stride : 0;
  int64_t b = size - 1 + offset < 0 ? 0 : (size - 1 + offset) / stride + 1;
  *hi = b < out_size ? b : out_size;
  *lo = a < *hi ? a : *hi;
}

/* The (c, i, j) of column-buffer row r: channel, kernel row, kernel col. */
static void row_tap(const conv_geometry_t *g, int64_t r, int64_t *c, int64_t *i,
                    int64_t *j) {
  *c = r / (g->kh * g->kw);
  *i = r / g->kw % g->kh;
  *j = r % g->kw;
}

/* Image n's plane of channel c of the step's group in x (NCHW). */
static int64_t plane_of(const conv_step_t *s, int64_t n, int64_t c) {
  const conv_geometry_t *g = &s->t->g;
  return ((s->n0 + n) * g->cin + s->group * g->cg + c) * g->h * g->w;
}

/* Row r of col(x) for image b when stride is 1 and the output is as wide
 * as the input: the taps of consecutive output rows are consecutive input
 * rows, so the plane shifted by one offset is one copy; then the rows above
 * and below the input and the wrapped columns [0, lo) and [hi, ow) are
 * zeroed (strided stores, no call per output row). */
static void im2col_shifted(const conv_geometry_t *g, const float *plane,
                           float *dst, int64_t i, int64_t j, int64_t lo,
                           int64_t hi) {
  int64_t ylo, yhi, hw = g->h * g->w;
  inside(g->h, g->oh, 1, g->pad[0] - i * g->dil[0], &ylo, &yhi);
  int64_t shift = (i * g->dil[0] - g->pad[0]) * g->w + j * g->dil[1] -
                  g->pad[1]; /* dst[q] = plane[q + shift] */
  int64_t qa = ylo * g->ow > -shift ? ylo * g->ow : -shift;
  int64_t qb = yhi * g->ow < hw - shift ? yhi * g->ow : hw - shift;
  qb = qb > qa ? qb : qa;
  memset(dst, 0, (size_t)qa * sizeof *dst);
  memcpy(dst + qa, plane + qa + shift, (size_t)(qb - qa) * sizeof *dst);
  memset(dst + qb, 0, (size_t)(g->p - qb) * sizeof *dst);
  for (int64_t ox = 0; ox < lo; ox++)
    for (int64_t oy = ylo; oy < yhi; oy++)
      dst[oy * g->ow + ox] = 0.0f;
  for (int64_t ox = hi; ox < g->ow; ox++)
    for (int64_t oy = ylo; oy < yhi; oy++)
      dst[oy * g->ow + ox] = 0.0f;
}

/* Rows [begin, end) of col(x): row (c, i, j), column b * p + oy * ow + ox
 * holds x[b][c][oy*s - pad + i*dil][ox*s - pad + j*dil], 0 outside. */
static void im2col_rows(void *context, int64_t begin, int64_t end) {
  const conv_step_t *s = context;
  const conv_geometry_t *g = &s->t->g;
  int64_t ld = s->nb * g->p, sx = g->stride[1];
  bool shifted = g->stride[0] == 1 && sx == 1 && g->ow == g->w;
  for (int64_t r = begin; r < end; r++) {
    int64_t c, i, j, lo, hi;
    row_tap(g, r, &c, &i, &j);
    int64_t off_x = g->pad[1] - j * g->dil[1];
    inside(g->w, g->ow, sx, off_x, &lo, &hi);
    for (int64_t b = 0; b < s->nb; b++) {
      const float *plane = s->t->x + plane_of(s, b, c);
      float *dst = s->t->col + r * ld + b * g->p;
      if (shifted) {
        im2col_shifted(g, plane, dst, i, j, lo, hi);
        continue;
      }
      for (int64_t oy = 0; oy < g->oh; oy++, dst += g->ow) {
        int64_t y = oy * g->stride[0] - g->pad[0] + i * g->dil[0];
        if (y < 0 || y >= g->h) {
          memset(dst, 0, (size_t)g->ow * sizeof *dst);
          continue;
        }
        const float *src = plane + y * g->w + lo * sx - off_x;
        memset(dst, 0, (size_t)lo * sizeof *dst);
        if (sx == 1)
          memcpy(dst + lo, src, (size_t)(hi - lo) * sizeof *dst);
        else
          for (int64_t ox = lo; ox < hi; ox++)
            dst[ox] = src[(ox - lo) * sx];
        memset(dst + hi, 0, (size_t)(g->ow - hi) * sizeof *dst);
      }
    }
  }
}

/* The adjoint of im2col_rows: adds col into gx, input channels
 * [begin, end) of the group (each touches only its own planes). */
static void col2im_channels(void *context, int64_t begin, int64_t end) {
  const conv_step_t *s = context;
  const conv_geometry_t *g = &s->t->g;
  int64_t ld = s->nb * g->p, sx = g->stride[1], taps = g->kh * g->kw;
  for (int64_t c = begin; c < end; c++)
    for (int64_t b = 0; b < s->nb; b++) {
      float *plane = s->t->gx + plane_of(s, b, c);
      for (int64_t r = c * taps; r < (c + 1) * taps; r++) {
        int64_t cc, i, j, lo, hi;
        row_tap(g, r, &cc, &i, &j);
        int64_t off_x = g->pad[1] - j * g->dil[1];
        inside(g->w, g->ow, sx, off_x, &lo, &hi);
        const float *src = s->t->col + r * ld + b * g->p;
        for (int64_t oy = 0; oy < g->oh; oy++, src += g->ow) {
          int64_t y = oy * g->stride[0] - g->pad[0] + i * g->dil[0];
          if (y < 0 || y >= g->h)
            continue;
          float *dst = plane + y * g->w + lo * sx - off_x;
          for (int64_t ox = lo; ox < hi; ox++)
            dst[(ox - lo) * sx] += src[ox];
        }
      }
    }
}

/* Rows (b, o) [begin, end) between y (NCHW) and the step's wide matrix:
 * forward, wide row o's block b to y plus the bias; backward (gather), y
 * to wide. A row already in place is only biased. */
static void scatter_rows(void *context, int64_t begin, int64_t end) {
  const conv_step_t *s = context;
  const conv_task_t *t = s->t;
  const conv_geometry_t *g = &t->g;
  for (int64_t q = begin; q < end; q++) {
    int64_t b = q / g->og, o = q % g->og;
    float *y = t->y + ((s->n0 + b) * g->cout + s->group * g->og + o) * g->p;
    float *wide = s->wide + (o * s->nb + b) * g->p;
    if (y != wide)
      memcpy(y, wide, (size_t)g->p * sizeof *y);
    if (t->has_bias) {
      float bias = (float)ref_get(&t->bias, s->group * g->og + o);
      for (int64_t k = 0; k < g->p; k++)
        y[k] += bias;
    }
  }
}
static void gather_rows(void *context, int64_t begin, int64_t end) {
  const conv_step_t *s = context;
  const conv_geometry_t *g = &s->t->g;
  for (int64_t q = begin; q < end; q++) {
    int64_t b = q / g->og, o = q % g->og;
    memcpy(s->wide + (o * s->nb + b) * g->p,
           s->t->y + ((s->n0 + b) * g->cout + s->group * g->og + o) * g->p,
           (size_t)g->p * sizeof(float));
  }
}

/* The step for images [n0, n0 + nb) of `group`: its wide matrix is y's own
 * rows for one image, else the task's wide buffer. */
static conv_step_t step_of(const conv_task_t *t, int64_t group, int64_t n0,
                           int64_t nb) {
  const conv_geometry_t *g = &t->g;
  float *own = t->y + (n0 * g->cout + group * g->og) * g->p;
  return (conv_step_t){t, n0, nb, group, nb == 1 ? own : t->wide};
}

/* The forward as a Winograd convolution, when it applies. */
static bool winograd_forward_applies(const conv_geometry_t *g) {
  return ref_winograd_applies(g->cin, g->cout, g->kh, g->kw, g->stride, g->dil,
                              g->groups);
}
static ref_winograd_t winograd_forward_of(const conv_task_t *t) {
  const conv_geometry_t *g = &t->g;
  return (ref_winograd_t){.n = g->n,
                          .c = g->cin,
                          .h = g->h,
                          .w = g->w,
                          .k = g->cout,
                          .pad_h = g->pad[0],
                          .pad_w = g->pad[1],
                          .oh = g->oh,
                          .ow = g->ow,
                          .x = t->x,
                          .weight = t->wt,
                          .bias = t->has_bias ? &t->bias : NULL,
                          .y = t->y};
}

/* grad_input as a Winograd convolution: grad_output convolved with the
 * weight transposed and turned by 180 degrees, padded by 2 - pad (so that
 * its output is the input's size; a 3x3 stride-1 kernel pads at most 2). */
static bool winograd_input_grad_applies(const conv_geometry_t *g) {
  return ref_winograd_applies(g->cout, g->cin, g->kh, g->kw, g->stride, g->dil,
                              g->groups) &&
         g->pad[0] <= 2 && g->pad[1] <= 2;
}
static ref_winograd_t winograd_input_grad_of(const conv_task_t *t) {
  const conv_geometry_t *g = &t->g;
  return (ref_winograd_t){.n = g->n,
                          .c = g->cout,
                          .h = g->oh,
                          .w = g->ow,
                          .k = g->cin,
                          .pad_h = 2 - g->pad[0],
                          .pad_w = 2 - g->pad[1],
                          .oh = g->h,
                          .ow = g->w,
                          .x = t->y,
                          .weight = t->wt,
                          .flipped = true,
                          .y = t->gx};
}

/* The scratch of the Winograd convolution w into t->winograd. */
static diopiError_t winograd_scratch(diopiContextHandle_t ctx, const char *op,
                                     conv_task_t *t, ref_winograd_t w) {
  return ref_scratch(ctx, op,
                     (size_t)ref_winograd_scratch_floats(&w) * sizeof(float),
                     (void **)&t->winograd);
}

static void run_forward(void *args) {
  conv_task_t *t = args;
  const conv_geometry_t *g = &t->g;
  to_f32(&t->input, t->x);
  to_f32(&t->weight, t->wt);
  if (t->winograd) {
    ref_winograd_t w = winograd_forward_of(t);
    ref_winograd_forward(&w, t->winograd);
    from_f32(&t->out, t->y);
    return;
  }
  for (int64_t gr = 0; gr < g->groups; gr++)
    for (int64_t n0 = 0; n0 < g->n; n0 += g->batch) {
      int64_t nb = g->n - n0 < g->batch ? g->n - n0 : g->batch;
      conv_step_t s = step_of(t, gr, n0, nb);
      int64_t width = nb * g->p;
      ref_parallel_for(g->k, grain(width), im2col_rows, &s);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->og,
                  (int)width, (int)g->k, 1.0f, t->wt + gr * g->og * g->k,
                  (int)g->k, t->col, (int)width, 0.0f, s.wide, (int)width);
      if (nb > 1 || t->has_bias)
        ref_parallel_for(nb * g->og, grain(g->p), scatter_rows, &s);
    }
  from_f32(&t->out, t->y);
}

static void run_backward(void *args) {
  conv_task_t *t = args;
  const conv_geometry_t *g = &t->g;
  to_f32(&t->input, t->x);
  to_f32(&t->weight, t->wt);
  to_f32(&t->grad_output, t->y);
  if (t->winograd) {
    ref_winograd_t w = winograd_input_grad_of(t);
    ref_winograd_forward(&w, t->winograd);
  }
  bool col_grad_input = t->has_grad_input && !t->winograd;
  if (col_grad_input)
    memset(t->gx, 0, (size_t)t->input.numel * sizeof(float));
  if (t->has_grad_weight)
    memset(t->gw, 0, (size_t)t->weight.numel * sizeof(float));
  for (int64_t gr = 0; gr < g->groups && (t->has_grad_weight || col_grad_input);
       gr++)
    for (int64_t n0 = 0; n0 < g->n; n0 += g->batch) {
      int64_t nb = g->n - n0 < g->batch ? g->n - n0 : g->batch;
      conv_step_t s = step_of(t, gr, n0, nb);
      int64_t width = nb * g->p;
      if (nb > 1)
        ref_parallel_for(nb * g->og, grain(g->p), gather_rows, &s);
      if (t->has_grad_weight) {
        ref_parallel_for(g->k, grain(width), im2col_rows, &s);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->og,
                    (int)g->k, (int)width, 1.0f, s.wide, (int)width, t->col,
                    (int)width, 1.0f, t->gw + gr * g->og * g->k, (int)g->k);
      }
      if (col_grad_input) {
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->k,
                    (int)width, (int)g->og, 1.0f, t->wt + gr * g->og * g->k,
                    (int)g->k, s.wide, (int)width, 0.0f, t->col, (int)width);
        ref_parallel_for(g->cg, grain(nb * g->kh * g->kw * g->p),
                         col2im_channels, &s);
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
        sum += ref_f32_sum(t->y + (n * g->cout + o) * g->p, g->p);
      ref_set(&t->grad_bias, o, sum);
    }
}

/* The double path's scratch, one block: weight (C_out, K), col (K, p),
 * y (og, p), and for the backward grad_col (K, p), grad_weight (C_out, K),
 * grad_input (the input's elements). */
static size_t f64_doubles(const conv_geometry_t *g, bool backward,
                          int64_t input_numel) {
  int64_t n = g->cout * g->k + g->k * g->p + g->og * g->p;
  if (backward)
    n += g->k * g->p + g->cout * g->k + input_numel;
  return (size_t)n;
}

static bool any_f64(const conv_task_t *t) {
  return t->input.dtype == diopi_dtype_float64 ||
         t->weight.dtype == diopi_dtype_float64 ||
         (t->out.numel && t->out.dtype == diopi_dtype_float64) ||
         (t->grad_output.numel && t->grad_output.dtype == diopi_dtype_float64);
}

/* col (K, p) of image n, group gr, in double. */
static void im2col_f64(const conv_task_t *t, int64_t n, int64_t gr,
                       double *col) {
  const conv_geometry_t *g = &t->g;
  for (int64_t c = 0; c < g->cg; c++)
    for (int64_t ky = 0; ky < g->kh; ky++)
      for (int64_t kx = 0; kx < g->kw; kx++) {
        double *row = col + ((c * g->kh + ky) * g->kw + kx) * g->p;
        int64_t plane = (n * g->cin + gr * g->cg + c) * g->h;
        for (int64_t oy = 0; oy < g->oh; oy++)
          for (int64_t ox = 0; ox < g->ow; ox++) {
            int64_t y = oy * g->stride[0] - g->pad[0] + ky * g->dil[0];
            int64_t x = ox * g->stride[1] - g->pad[1] + kx * g->dil[1];
            bool inside = y >= 0 && y < g->h && x >= 0 && x < g->w;
            row[oy * g->ow + ox] =
                inside ? ref_get(&t->input, (plane + y) * g->w + x) : 0.0;
          }
      }
}

/* grad_input += col2im of grad_col (K, p) of image n, group gr. */
static void col2im_f64(const conv_task_t *t, int64_t n, int64_t gr,
                       const double *gcol, double *gx) {
  const conv_geometry_t *g = &t->g;
  for (int64_t c = 0; c < g->cg; c++)
    for (int64_t ky = 0; ky < g->kh; ky++)
      for (int64_t kx = 0; kx < g->kw; kx++) {
        const double *row = gcol + ((c * g->kh + ky) * g->kw + kx) * g->p;
        int64_t plane = (n * g->cin + gr * g->cg + c) * g->h;
        for (int64_t oy = 0; oy < g->oh; oy++)
          for (int64_t ox = 0; ox < g->ow; ox++) {
            int64_t y = oy * g->stride[0] - g->pad[0] + ky * g->dil[0];
            int64_t x = ox * g->stride[1] - g->pad[1] + kx * g->dil[1];
            if (y >= 0 && y < g->h && x >= 0 && x < g->w)
              gx[(plane + y) * g->w + x] += row[oy * g->ow + ox];
          }
      }
}

static void run_forward_f64(void *args) {
  conv_task_t *t = args;
  const conv_geometry_t *g = &t->g;
  double *w = t->f64, *col = w + g->cout * g->k, *y = col + g->k * g->p;
  for (int64_t i = 0; i < t->weight.numel; i++)
    w[i] = ref_get(&t->weight, i);
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t gr = 0; gr < g->groups; gr++) {
      im2col_f64(t, n, gr, col);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->og,
                  (int)g->p, (int)g->k, 1.0, w + gr * g->og * g->k, (int)g->k,
                  col, (int)g->p, 0.0, y, (int)g->p);
      for (int64_t o = 0; o < g->og; o++) {
        int64_t oc = gr * g->og + o;
        double b = t->has_bias ? ref_get(&t->bias, oc) : 0.0;
        for (int64_t p = 0; p < g->p; p++)
          ref_set(&t->out, (n * g->cout + oc) * g->p + p, y[o * g->p + p] + b);
      }
    }
}

static void run_backward_f64(void *args) {
  conv_task_t *t = args;
  const conv_geometry_t *g = &t->g;
  double *w = t->f64, *col = w + g->cout * g->k, *y = col + g->k * g->p;
  double *gcol = y + g->og * g->p, *gw = gcol + g->k * g->p;
  double *gx = gw + g->cout * g->k;
  for (int64_t i = 0; i < t->weight.numel; i++)
    w[i] = ref_get(&t->weight, i);
  memset(gw, 0, (size_t)(g->cout * g->k) * sizeof *gw);
  memset(gx, 0, (size_t)t->input.numel * sizeof *gx);
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t gr = 0; gr < g->groups; gr++) {
      for (int64_t o = 0; o < g->og; o++)
        for (int64_t p = 0; p < g->p; p++)
          y[o * g->p + p] = ref_get(&t->grad_output,
                                    (n * g->cout + gr * g->og + o) * g->p + p);
      im2col_f64(t, n, gr, col);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->og,
                  (int)g->k, (int)g->p, 1.0, y, (int)g->p, col, (int)g->p, 1.0,
                  gw + gr * g->og * g->k, (int)g->k);
      if (!t->has_grad_input)
        continue;
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->k, (int)g->p,
                  (int)g->og, 1.0, w + gr * g->og * g->k, (int)g->k, y,
                  (int)g->p, 0.0, gcol, (int)g->p);
      col2im_f64(t, n, gr, gcol, gx);
    }
  for (int64_t i = 0; t->has_grad_input && i < t->input.numel; i++)
    ref_set(&t->grad_input, i, gx[i]);
  for (int64_t i = 0; t->has_grad_weight && i < t->weight.numel; i++)
    ref_set(&t->grad_weight, i, gw[i]);
  for (int64_t o = 0; t->has_grad_bias && o < g->cout; o++) {
    double sum = 0;
    for (int64_t n = 0; n < g->n; n++)
      for (int64_t p = 0; p < g->p; p++)
        sum += ref_get(&t->grad_output, (n * g->cout + o) * g->p + p);
    ref_set(&t->grad_bias, o, sum);
  }
}

/* Enqueues the double path of the forward or backward. */
static diopiError_t enqueue_f64(diopiContextHandle_t ctx, const char *op,
                                conv_task_t *t, bool backward) {
  diopiError_t err = ref_scratch(
      ctx, op, f64_doubles(&t->g, backward, t->input.numel) * sizeof(double),
      (void **)&t->f64);
  if (err)
    return err;
  return ref_enqueue(ctx, op, backward ? run_backward_f64 : run_forward_f64, t,
                     sizeof *t);
}

/* A pair attribute: 1 value (both dims) or 2, each >= min. */
static diopiError_t pair(const char *op, const char *arg, diopiSize_t s,
                         int64_t min, int64_t out[2]) {
  if (s.len == 0)
    return ref_fail(op, "%s: 0 values, expected 1 or 2", arg);
  return ref_window_pair(op, arg, s, min, min, out);
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
  g->cg = g->cin / groups;
  g->og = g->cout / groups;
  g->k = g->cg * g->kh * g->kw;
  g->p = g->oh * g->ow;
  g->batch = COLUMNS_PER_GEMM / g->p;
  g->batch = g->batch < 1 ? 1 : g->batch > g->n ? g->n : g->batch;
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

/* The column buffer (K, batch * p) and, for batches of more than one image,
 * the wide matrix (og, batch * p). */
static diopiError_t batch_scratch(diopiContextHandle_t ctx, const char *op,
                                  conv_task_t *t) {
  const conv_geometry_t *g = &t->g;
  size_t width = (size_t)(g->batch * g->p);
  diopiError_t err = ref_scratch(ctx, op, (size_t)g->k * width * sizeof(float),
                                 (void **)&t->col);
  if (!err && g->batch > 1)
    err = ref_scratch(ctx, op, (size_t)g->og * width * sizeof(float),
                      (void **)&t->wide);
  return err;
}

REF_EXPORT diopiError_t diopiConvolution2d(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiConstTensorHandle_t input, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t bias, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, int64_t groups) {
  const char *op = "diopiConvolution2d";
  conv_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "weight", weight, &t.weight);
  if (!err)
    err = ref_view_optional(ctx, op, "bias", bias, &t.bias, &t.has_bias);
  if (!err)
    err = geometry(op, &t, &t.out, "out", stride, padding, dilation, groups);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input);
  if (err || t.out.numel == 0)
    return err;
  if (any_f64(&t))
    return enqueue_f64(ctx, op, &t, false);
  if ((err = stage(ctx, op, &t.input, true, &t.x)) ||
      (err = stage(ctx, op, &t.weight, true, &t.wt)) ||
      (err = stage(ctx, op, &t.out, true, &t.y)))
    return err;
  err = winograd_forward_applies(&t.g)
            ? winograd_scratch(ctx, op, &t, winograd_forward_of(&t))
            : batch_scratch(ctx, op, &t);
  if (err)
    return err;
  return ref_enqueue(ctx, op, run_forward, &t, sizeof t);
}

/* grad_weight and grad_bias (those asked for) as zeros. */
static diopiError_t zero_grads(diopiContextHandle_t ctx, const char *op,
                               const conv_task_t *t) {
  diopiError_t err = diopiSuccess;
  if (t->has_grad_weight)
    err = ref_ew_fill(ctx, op, &t->grad_weight, 0.0);
  if (!err && t->has_grad_bias)
    err = ref_ew_fill(ctx, op, &t->grad_bias, 0.0);
  return err;
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
  diopiError_t err =
      ref_view(ctx, op, "grad_output", grad_output, &t.grad_output);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "weight", weight, &t.weight);
  if (!err)
    err = ref_view_optional(ctx, op, "grad_input", grad_input, &t.grad_input,
                            &t.has_grad_input);
  if (!err)
    err = ref_view_optional(ctx, op, "grad_weight", grad_weight, &t.grad_weight,
                            &t.has_grad_weight);
  if (!err)
    err = ref_view_optional(ctx, op, "grad_bias", grad_bias, &t.grad_bias,
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
  if (err)
    return err;
  if (t.g.n == 0) /* no image: nothing contributes to weight and bias */
    return zero_grads(ctx, op, &t);
  if (t.input.numel == 0)
    return diopiSuccess;
  if (any_f64(&t))
    return enqueue_f64(ctx, op, &t, true);
  if ((err = stage(ctx, op, &t.input, true, &t.x)) ||
      (err = stage(ctx, op, &t.weight, true, &t.wt)) ||
      (err = stage(ctx, op, &t.grad_output, true, &t.y)) ||
      (err = batch_scratch(ctx, op, &t)))
    return err;
  if (t.has_grad_input && (err = stage(ctx, op, &t.grad_input, true, &t.gx)))
    return err;
  if (t.has_grad_weight && (err = stage(ctx, op, &t.grad_weight, true, &t.gw)))
    return err;
  if (t.has_grad_input && winograd_input_grad_applies(&t.g) &&
      (err = winograd_scratch(ctx, op, &t, winograd_input_grad_of(&t))))
    return err;
  return ref_enqueue(ctx, op, run_backward, &t, sizeof t);
}
