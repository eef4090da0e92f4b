/* conv2d, conv3d and their backwards as im2col + float32 GEMM (OpenBLAS,
 * which uses the pool's thread count). A conv2d is a conv3d of depth 1
 * (one input plane, a kernel of depth 1): one engine serves both, over
 * (N, C, D, H, W) volumes, with the column rows (c, kd, kh, kw) and the
 * columns (od, oh, ow). Images go in batches: the columns of `batch`
 * images side by side make one GEMM wide enough to keep both cores busy,
 * while the column buffer stays about COLUMNS_PER_GEMM wide (cache-sized);
 * an image wider than that goes in runs of whole output depth slices.
 * Per batch (or run) and group: out = W . col(x); grad_weight += grad_out .
 * col(x)^T; grad_input = col2im(W^T . grad_out). im2col, col2im and the
 * moves between the GEMM's (C_out, batch * P) layout and NC(D)HW are split
 * across the worker pool. Every operand is staged as contiguous float32 in
 * scratch taken on the caller's thread (or used in place when it already
 * is), so any float dtype and stride works. Planar 3x3 stride-1
 * convolutions (see ref_winograd_applies) run their forward and grad_input
 * as Winograd F(4x4, 3x3) instead (ref_winograd.h). Anything float64 takes
 * a double path instead: per image, group and output depth slice, im2col in
 * double and cblas_dgemm. */
#include <cblas.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_conv_direct.h"
#include "ref_conv_pointwise.h"
#include "ref_elementwise.h"
#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_gemm_tiles.h"
#include "ref_isa.h"
#include "ref_pool.h"
#include "ref_scratch.h"
#include "ref_tensor.h"
#include "ref_volume.h"
#include "ref_window.h"
#include "ref_winograd.h"

/* Columns (output pixels) one GEMM aims at: wide enough for both cores,
 * narrow enough that the column buffer (K x columns) stays in cache
 * (OpenBLAS on 64 x 576 x N: N = 1568 runs at 1.2x the speed of 6272). */
enum { COLUMNS_PER_GEMM = 2048 };

/* Sizes per spatial dim: depth (1 for conv2d, with a kernel of depth 1,
 * stride and dilation 1 and no padding), then height and width. */
typedef struct conv_geometry {
  int64_t n, cin, d, h, w, cout, kd, kh, kw, od, oh, ow, groups;
  int64_t stride_d, pad_d, dil_d;
  int64_t stride[2], pad[2], dil[2]; /* height, width */
  int64_t cg, og, k, p; /* per group: C_in, C_out, K = cg*kd*kh*kw; P */
  int64_t slice;        /* oh*ow: one output depth slice; P = od * slice */
  int64_t batch;        /* images per GEMM */
  int64_t depths;       /* output depth slices per GEMM: od when batch > 1 */
} conv_geometry_t;

typedef struct conv_task {
  conv_geometry_t g;
  int dims; /* 2 or 3 */
  ref_view_t input, weight, bias, out, grad_output, grad_input, grad_weight,
      grad_bias;
  bool has_bias, has_grad_input, has_grad_weight, has_grad_bias;
  float *x, *wt, *col, *y;  /* staged: input, weight, col, out/grad_output */
  float *gx, *gw;           /* backward: grad_input, grad_weight */
  float *wide;              /* (og, batch * P): the GEMM's side of y */
  float *winograd;          /* forward or grad_input by Winograd: its scratch */
  void *direct;             /* forward by ref_conv_direct.h: its scratch */
  bool pointwise;           /* forward by ref_conv_pointwise.h */
  float *pointwise_product; /* its scratch: one group's product */
  float *b;                 /* the direct or pointwise forward's bias, staged */
  double *f64;              /* float64: the double path's scratch (f64_*) */
} conv_task_t;

/* One parallel step over one batch (images n0 .. n0 + nb) of one group,
 * output depth slices d0 .. d0 + nd of each (all of them when nb > 1). */
typedef struct conv_step {
  const conv_task_t *t;
  int64_t n0, nb, group, d0, nd;
  float *wide; /* the (og, nb * P) matrix: t->wide, or y's own when nb is 1 */
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

/* The (c, a, i, j) of column-buffer row r: channel, kernel depth, row and
 * column. */
static void row_tap(const conv_geometry_t *g, int64_t r, int64_t *c, int64_t *a,
                    int64_t *i, int64_t *j) {
  *c = r / (g->kd * g->kh * g->kw);
  *a = r / (g->kh * g->kw) % g->kd;
  *i = r / g->kw % g->kh;
  *j = r % g->kw;
}

/* The input depth that kernel depth a of output depth slice od reads. */
static int64_t depth_tap(const conv_geometry_t *g, int64_t od, int64_t a) {
  return od * g->stride_d - g->pad_d + a * g->dil_d;
}

/* Image n's volume of channel c of the step's group in x (NCDHW). */
static int64_t volume_of(const conv_step_t *s, int64_t n, int64_t c) {
  const conv_geometry_t *g = &s->t->g;
  return ((s->n0 + n) * g->cin + s->group * g->cg + c) * g->d * g->h * g->w;
}

/* The step's columns per image, and in all. */
static int64_t step_columns(const conv_step_t *s) {
  return s->nd * s->t->g.slice;
}
static int64_t step_width(const conv_step_t *s) {
  return s->nb * step_columns(s);
}

/* Row (i, j) of one output depth slice's col(x) from one input plane when
 * stride is 1 and the output is as wide as the input: the taps of
 * consecutive output rows are consecutive input rows, so the plane shifted
 * by one offset is one copy; then the rows above and below the input and
 * the wrapped columns [0, lo) and [hi, ow) are zeroed (strided stores, no
 * call per output row). */
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
  memset(dst + qb, 0, (size_t)(g->slice - qb) * sizeof *dst);
  for (int64_t ox = 0; ox < lo; ox++)
    for (int64_t oy = ylo; oy < yhi; oy++)
      dst[oy * g->ow + ox] = 0.0f;
  for (int64_t ox = hi; ox < g->ow; ox++)
    for (int64_t oy = ylo; oy < yhi; oy++)
      dst[oy * g->ow + ox] = 0.0f;
}

/* One tap's rows of a column buffer from one input plane (h x w): row
 * oy, column ox holds plane[first_y + oy * step_y][first_x + (ox - lo) *
 * step_x] for ox in [lo, hi) and a row inside the plane, 0 elsewhere. */
typedef struct ref_im2col_rows {
  int64_t h, w, rows, cols, first_y, step_y, first_x, step_x, lo, hi;
} ref_im2col_rows_t;

/* dst[k] = src[k * step] for k < n: the usual strides as constants, so
 * that the loads vectorise (as loads of whole runs and permutes). */
static inline void strided_copy(float *dst, const float *src, int64_t n,
                                int64_t step) {
  if (step == 2)
    for (int64_t k = 0; k < n; k++)
      dst[k] = src[2 * k];
  else if (step == 3)
    for (int64_t k = 0; k < n; k++)
      dst[k] = src[3 * k];
  else if (step == 4)
    for (int64_t k = 0; k < n; k++)
      dst[k] = src[4 * k];
  else
    for (int64_t k = 0; k < n; k++)
      dst[k] = src[k * step];
}

REF_ISA_BODY void im2col_strided_body(const float *plane, float *dst,
                                      const ref_im2col_rows_t *r) {
  for (int64_t oy = 0; oy < r->rows; oy++, dst += r->cols) {
    int64_t y = r->first_y + oy * r->step_y;
    bool inside = y >= 0 && y < r->h;
    for (int64_t ox = 0; ox < (inside ? r->lo : r->cols); ox++)
      dst[ox] = 0.0f;
    if (!inside)
      continue;
    strided_copy(dst + r->lo, plane + y * r->w + r->first_x, r->hi - r->lo,
                 r->step_x);
    for (int64_t ox = r->hi; ox < r->cols; ox++)
      dst[ox] = 0.0f;
  }
}
REF_ISA_DISPATCH_VOID(static, im2col_strided,
                      (const float *plane, float *dst,
                       const ref_im2col_rows_t *r),
                      (plane, dst, r))

/* Row (i, j) of one output depth slice's col(x) from one input plane:
 * dst[oy * ow + ox] = plane[oy*s - pad + i*dil][ox*s - pad + j*dil], 0
 * outside; [lo, hi) the output columns inside the plane. */
static void im2col_plane(const conv_geometry_t *g, const float *plane,
                         float *dst, int64_t i, int64_t j, int64_t lo,
                         int64_t hi) {
  int64_t sx = g->stride[1], off_x = g->pad[1] - j * g->dil[1];
  if (g->stride[0] == 1 && sx == 1 && g->ow == g->w) {
    im2col_shifted(g, plane, dst, i, j, lo, hi);
    return;
  }
  if (sx != 1) {
    im2col_strided(plane, dst,
                   &(ref_im2col_rows_t){
                       .h = g->h,
                       .w = g->w,
                       .rows = g->oh,
                       .cols = g->ow,
                       .first_y = i * g->dil[0] - g->pad[0],
                       .step_y = g->stride[0],
                       .first_x = lo * sx - off_x,
                       .step_x = sx,
                       .lo = lo,
                       .hi = hi,
                   });
    return;
  }
  for (int64_t oy = 0; oy < g->oh; oy++, dst += g->ow) {
    int64_t y = oy * g->stride[0] - g->pad[0] + i * g->dil[0];
    if (y < 0 || y >= g->h) {
      memset(dst, 0, (size_t)g->ow * sizeof *dst);
      continue;
    }
    const float *src = plane + y * g->w + lo * sx - off_x;
    memset(dst, 0, (size_t)lo * sizeof *dst);
    memcpy(dst + lo, src, (size_t)(hi - lo) * sizeof *dst);
    memset(dst + hi, 0, (size_t)(g->ow - hi) * sizeof *dst);
  }
}

/* Rows [begin, end) of the step's col(x): row (c, a, i, j), column
 * (b, od - d0, oy, ox) holds x[b][c][od*s - pad + a*dil][oy*s - pad +
 * i*dil][ox*s - pad + j*dil], 0 outside. */
static void im2col_rows(void *context, int64_t begin, int64_t end) {
  const conv_step_t *s = context;
  const conv_geometry_t *g = &s->t->g;
  int64_t cols = step_columns(s), ld = step_width(s);
  for (int64_t r = begin; r < end; r++) {
    int64_t c, a, i, j, lo, hi;
    row_tap(g, r, &c, &a, &i, &j);
    inside(g->w, g->ow, g->stride[1], g->pad[1] - j * g->dil[1], &lo, &hi);
    for (int64_t b = 0; b < s->nb; b++) {
      const float *volume = s->t->x + volume_of(s, b, c);
      float *dst = s->t->col + r * ld + b * cols;
      for (int64_t od = s->d0; od < s->d0 + s->nd; od++, dst += g->slice) {
        int64_t z = depth_tap(g, od, a);
        if (z < 0 || z >= g->d)
          memset(dst, 0, (size_t)g->slice * sizeof *dst);
        else
          im2col_plane(g, volume + z * g->h * g->w, dst, i, j, lo, hi);
      }
    }
  }
}

/* The adjoint of im2col_rows: adds col into gx, input channels
 * [begin, end) of the group (each touches only its own volumes). */
static void col2im_channels(void *context, int64_t begin, int64_t end) {
  const conv_step_t *s = context;
  const conv_geometry_t *g = &s->t->g;
  int64_t cols = step_columns(s), ld = step_width(s), sx = g->stride[1];
  int64_t taps = g->kd * g->kh * g->kw;
  for (int64_t c = begin; c < end; c++)
    for (int64_t b = 0; b < s->nb; b++) {
      float *volume = s->t->gx + volume_of(s, b, c);
      for (int64_t r = c * taps; r < (c + 1) * taps; r++) {
        int64_t cc, a, i, j, lo, hi;
        row_tap(g, r, &cc, &a, &i, &j);
        int64_t off_x = g->pad[1] - j * g->dil[1];
        inside(g->w, g->ow, sx, off_x, &lo, &hi);
        const float *src = s->t->col + r * ld + b * cols;
        for (int64_t od = s->d0; od < s->d0 + s->nd; od++) {
          int64_t z = depth_tap(g, od, a);
          if (z < 0 || z >= g->d) {
            src += g->slice;
            continue;
          }
          float *plane = volume + z * g->h * g->w;
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
}

/* Rows (b, o) [begin, end) between y (NCDHW) and the step's wide matrix:
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

/* The step for images [n0, n0 + nb) of `group`, all output depth slices:
 * its wide matrix is y's own rows for one image, else the task's wide
 * buffer. */
static conv_step_t step_of(const conv_task_t *t, int64_t group, int64_t n0,
                           int64_t nb) {
  const conv_geometry_t *g = &t->g;
  float *own = t->y + (n0 * g->cout + group * g->og) * g->p;
  return (conv_step_t){t, n0, nb, group, 0, g->od, nb == 1 ? own : t->wide};
}

/* The step's runs: output depth slices [d0, d0 + nd) in turns of
 * g->depths (one run of all of them when nb > 1). */
static conv_step_t run_of(conv_step_t s, int64_t d0) {
  const conv_geometry_t *g = &s.t->g;
  int64_t left = g->od - d0;
  s.d0 = d0;
  s.nd = s.nb > 1 || left < g->depths ? left : g->depths;
  return s;
}

/* The run's part of the wide matrix: its first column and row stride. */
static float *run_wide(const conv_step_t *r, int64_t *ld) {
  *ld = r->nb > 1 ? step_width(r) : r->t->g.p;
  return r->wide + r->d0 * r->t->g.slice;
}

/* Whether the convolution is a 2-d one: one input plane, read once. */
static bool planar(const conv_geometry_t *g) {
  return g->d == 1 && g->kd == 1 && g->pad_d == 0;
}

/* The forward as a Winograd convolution, when it applies. */
static bool winograd_forward_applies(const conv_geometry_t *g) {
  return planar(g) && ref_winograd_applies(g->cin, g->cout, g->kh, g->kw,
                                           g->stride, g->dil, g->groups);
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
  return planar(g) &&
         ref_winograd_applies(g->cout, g->cin, g->kh, g->kw, g->stride, g->dil,
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

/* The forward as a direct convolution (ref_conv_direct.h): no padding,
 * and strided or grouped, where the column buffer costs as much as the
 * product (a stride-1 ungrouped one stays on OpenBLAS's larger GEMM). */
static bool direct_forward_applies(const conv_geometry_t *g) {
  return g->pad_d == 0 && g->pad[0] == 0 && g->pad[1] == 0 &&
         (g->groups > 1 || g->stride_d > 1 || g->stride[0] > 1 ||
          g->stride[1] > 1);
}
static ref_conv_direct_t direct_of(const conv_task_t *t) {
  const conv_geometry_t *g = &t->g;
  return (ref_conv_direct_t){
      .n = g->n,
      .cin = g->cin,
      .d = g->d,
      .h = g->h,
      .w = g->w,
      .cout = g->cout,
      .groups = g->groups,
      .kd = g->kd,
      .kh = g->kh,
      .kw = g->kw,
      .od = g->od,
      .oh = g->oh,
      .ow = g->ow,
      .stride = {g->stride_d, g->stride[0], g->stride[1]},
      .dil = {g->dil_d, g->dil[0], g->dil[1]},
      .x = t->x,
      .weight = t->wt,
      .bias = t->has_bias ? t->b : NULL,
      .y = t->y};
}

static diopiError_t stage(diopiContextHandle_t ctx, const char *op,
                          const ref_view_t *v, bool in_place_ok, float **out);

/* The forward as a pointwise convolution (ref_conv_pointwise.h): a 1x1x1
 * kernel at stride 1, on images wide enough for a GEMM each (smaller ones
 * go side by side through the column buffer), out not being input itself
 * (the GEMM reads input in place). */
static bool pointwise_forward_applies(const conv_task_t *t) {
  const conv_geometry_t *g = &t->g;
  return g->batch == 1 && t->x != t->y &&
         ref_conv_pointwise_applies(
             (int64_t[3]){g->kd, g->kh, g->kw},
             (int64_t[3]){g->stride_d, g->stride[0], g->stride[1]});
}
static ref_conv_pointwise_t pointwise_of(const conv_task_t *t) {
  const conv_geometry_t *g = &t->g;
  return (ref_conv_pointwise_t){.n = g->n,
                                .cin = g->cin,
                                .d = g->d,
                                .h = g->h,
                                .w = g->w,
                                .cout = g->cout,
                                .groups = g->groups,
                                .pad = {g->pad_d, g->pad[0], g->pad[1]},
                                .x = t->x,
                                .weight = t->wt,
                                .bias = t->has_bias ? t->b : NULL,
                                .y = t->y};
}

/* The direct forward's scratch and staged bias. */
static diopiError_t direct_scratch(diopiContextHandle_t ctx, const char *op,
                                   conv_task_t *t) {
  ref_conv_direct_t c = direct_of(t);
  diopiError_t err =
      ref_scratch(ctx, op, ref_conv_direct_scratch_bytes(&c), &t->direct);
  if (!err && t->has_bias)
    err = stage(ctx, op, &t->bias, true, &t->b);
  return err;
}

/* The pointwise forward's scratch and staged bias. */
static diopiError_t pointwise_scratch(diopiContextHandle_t ctx, const char *op,
                                      conv_task_t *t) {
  ref_conv_pointwise_t c = pointwise_of(t);
  int64_t floats = ref_conv_pointwise_scratch_floats(&c);
  diopiError_t err = diopiSuccess;
  t->pointwise = true;
  if (floats)
    err = ref_scratch(ctx, op, (size_t)floats * sizeof(float),
                      (void **)&t->pointwise_product);
  if (!err && t->has_bias)
    err = stage(ctx, op, &t->bias, true, &t->b);
  return err;
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
  if (t->direct) {
    if (t->has_bias)
      to_f32(&t->bias, t->b);
    ref_conv_direct_t c = direct_of(t);
    ref_conv_direct_forward(&c, t->direct);
    from_f32(&t->out, t->y);
    return;
  }
  if (t->pointwise) {
    if (t->has_bias)
      to_f32(&t->bias, t->b);
    ref_conv_pointwise_t c = pointwise_of(t);
    ref_conv_pointwise_forward(&c, t->pointwise_product);
    from_f32(&t->out, t->y);
    return;
  }
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
      for (int64_t d0 = 0; d0 < g->od; d0 += s.nd) {
        s = run_of(s, d0);
        int64_t width = step_width(&s), ld;
        float *wide = run_wide(&s, &ld);
        ref_parallel_for(g->k, grain(width), im2col_rows, &s);
        if (g->groups > 1) /* one group's product: too small to split well */
          ref_gemm_tiles(g->og, width, g->k, t->wt + gr * g->og * g->k, g->k,
                         t->col, width, wide, ld);
        else
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->og,
                      (int)width, (int)g->k, 1.0f, t->wt + gr * g->og * g->k,
                      (int)g->k, t->col, (int)width, 0.0f, wide, (int)ld);
      }
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
      if (nb > 1)
        ref_parallel_for(nb * g->og, grain(g->p), gather_rows, &s);
      for (int64_t d0 = 0; d0 < g->od; d0 += s.nd) {
        s = run_of(s, d0);
        int64_t width = step_width(&s), ld;
        float *wide = run_wide(&s, &ld);
        if (t->has_grad_weight) {
          ref_parallel_for(g->k, grain(width), im2col_rows, &s);
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->og,
                      (int)g->k, (int)width, 1.0f, wide, (int)ld, t->col,
                      (int)width, 1.0f, t->gw + gr * g->og * g->k, (int)g->k);
        }
        if (col_grad_input) {
          cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->k,
                      (int)width, (int)g->og, 1.0f, t->wt + gr * g->og * g->k,
                      (int)g->k, wide, (int)ld, 0.0f, t->col, (int)width);
          ref_parallel_for(g->cg,
                           grain(nb * g->kd * g->kh * g->kw * step_columns(&s)),
                           col2im_channels, &s);
        }
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

/* The double path's scratch, one block: weight (C_out, K), col (K, slice),
 * y (og, slice), and for the backward grad_col (K, slice), grad_weight
 * (C_out, K), grad_input (the input's elements). */
static size_t f64_doubles(const conv_geometry_t *g, bool backward,
                          int64_t input_numel) {
  int64_t n = g->cout * g->k + g->k * g->slice + g->og * g->slice;
  if (backward)
    n += g->k * g->slice + g->cout * g->k + input_numel;
  return (size_t)n;
}

static bool any_f64(const conv_task_t *t) {
  return t->input.dtype == diopi_dtype_float64 ||
         t->weight.dtype == diopi_dtype_float64 ||
         (t->out.numel && t->out.dtype == diopi_dtype_float64) ||
         (t->grad_output.numel && t->grad_output.dtype == diopi_dtype_float64);
}

/* The input index output pixel (oy, ox) of column-buffer row r reads in
 * output depth slice od of image n, group gr; -1 outside the input. */
static int64_t tap_at(const conv_geometry_t *g, int64_t n, int64_t gr,
                      int64_t od, int64_t r, int64_t oy, int64_t ox) {
  int64_t c, a, i, j;
  row_tap(g, r, &c, &a, &i, &j);
  int64_t z = depth_tap(g, od, a);
  int64_t y = oy * g->stride[0] - g->pad[0] + i * g->dil[0];
  int64_t x = ox * g->stride[1] - g->pad[1] + j * g->dil[1];
  if (z < 0 || z >= g->d || y < 0 || y >= g->h || x < 0 || x >= g->w)
    return -1;
  return (((n * g->cin + gr * g->cg + c) * g->d + z) * g->h + y) * g->w + x;
}

/* col (K, slice) of output depth slice od of image n, group gr, in
 * double. */
static void im2col_f64(const conv_task_t *t, int64_t n, int64_t gr, int64_t od,
                       double *col) {
  const conv_geometry_t *g = &t->g;
  for (int64_t r = 0; r < g->k; r++)
    for (int64_t oy = 0; oy < g->oh; oy++)
      for (int64_t ox = 0; ox < g->ow; ox++) {
        int64_t at = tap_at(g, n, gr, od, r, oy, ox);
        col[r * g->slice + oy * g->ow + ox] =
            at < 0 ? 0.0 : ref_get(&t->input, at);
      }
}

/* grad_input += col2im of grad_col (K, slice) of output depth slice od of
 * image n, group gr. */
static void col2im_f64(const conv_task_t *t, int64_t n, int64_t gr, int64_t od,
                       const double *gcol, double *gx) {
  const conv_geometry_t *g = &t->g;
  for (int64_t r = 0; r < g->k; r++)
    for (int64_t oy = 0; oy < g->oh; oy++)
      for (int64_t ox = 0; ox < g->ow; ox++) {
        int64_t at = tap_at(g, n, gr, od, r, oy, ox);
        if (at >= 0)
          gx[at] += gcol[r * g->slice + oy * g->ow + ox];
      }
}

static void run_forward_f64(void *args) {
  conv_task_t *t = args;
  const conv_geometry_t *g = &t->g;
  double *w = t->f64, *col = w + g->cout * g->k, *y = col + g->k * g->slice;
  for (int64_t i = 0; i < t->weight.numel; i++)
    w[i] = ref_get(&t->weight, i);
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t gr = 0; gr < g->groups; gr++)
      for (int64_t od = 0; od < g->od; od++) {
        im2col_f64(t, n, gr, od, col);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->og,
                    (int)g->slice, (int)g->k, 1.0, w + gr * g->og * g->k,
                    (int)g->k, col, (int)g->slice, 0.0, y, (int)g->slice);
        for (int64_t o = 0; o < g->og; o++) {
          int64_t oc = gr * g->og + o;
          double b = t->has_bias ? ref_get(&t->bias, oc) : 0.0;
          int64_t first = (n * g->cout + oc) * g->p + od * g->slice;
          for (int64_t q = 0; q < g->slice; q++)
            ref_set(&t->out, first + q, y[o * g->slice + q] + b);
        }
      }
}

static void run_backward_f64(void *args) {
  conv_task_t *t = args;
  const conv_geometry_t *g = &t->g;
  double *w = t->f64, *col = w + g->cout * g->k, *y = col + g->k * g->slice;
  double *gcol = y + g->og * g->slice, *gw = gcol + g->k * g->slice;
  double *gx = gw + g->cout * g->k;
  for (int64_t i = 0; i < t->weight.numel; i++)
    w[i] = ref_get(&t->weight, i);
  memset(gw, 0, (size_t)(g->cout * g->k) * sizeof *gw);
  memset(gx, 0, (size_t)t->input.numel * sizeof *gx);
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t gr = 0; gr < g->groups; gr++)
      for (int64_t od = 0; od < g->od; od++) {
        for (int64_t o = 0; o < g->og; o++) {
          int64_t first = (n * g->cout + gr * g->og + o) * g->p + od * g->slice;
          for (int64_t q = 0; q < g->slice; q++)
            y[o * g->slice + q] = ref_get(&t->grad_output, first + q);
        }
        im2col_f64(t, n, gr, od, col);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->og,
                    (int)g->k, (int)g->slice, 1.0, y, (int)g->slice, col,
                    (int)g->slice, 1.0, gw + gr * g->og * g->k, (int)g->k);
        if (!t->has_grad_input)
          continue;
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)g->k,
                    (int)g->slice, (int)g->og, 1.0, w + gr * g->og * g->k,
                    (int)g->k, y, (int)g->slice, 0.0, gcol, (int)g->slice);
        col2im_f64(t, n, gr, od, gcol, gx);
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

/* Stride, padding and dilation per spatial dim, depth first: conv2d's
 * pairs (depth: stride 1, no padding, dilation 1), conv3d's triples. */
static diopiError_t window_attrs(const char *op, const conv_task_t *t,
                                 diopiSize_t stride, diopiSize_t padding,
                                 diopiSize_t dilation, int64_t st[3],
                                 int64_t pad[3], int64_t dil[3]) {
  if (t->dims == 3)
    return ref_window_attrs3(op, t->input.dtype, stride, padding, dilation, 1,
                             st, pad, dil);
  diopiError_t err;
  st[0] = dil[0] = 1;
  pad[0] = 0;
  if ((err = pair(op, "stride", stride, 1, st + 1)) ||
      (err = pair(op, "padding", padding, 0, pad + 1)) ||
      (err = pair(op, "dilation", dilation, 1, dil + 1)))
    return err;
  return diopiSuccess;
}

/* The output size along one spatial dim, or -1 when the kernel's reach
 * exceeds the padded input. */
static int64_t out_size(int64_t size, int64_t k, int64_t stride, int64_t pad,
                        int64_t dil) {
  int64_t span = size + 2 * pad - dil * (k - 1) - 1;
  return span < 0 ? -1 : span / stride + 1;
}

/* Geometry from input and weight (t->dims spatial dims); checks the output
 * (or grad_output) shape it implies. */
static diopiError_t geometry(const char *op, conv_task_t *t,
                             const ref_view_t *out, const char *out_name,
                             diopiSize_t stride, diopiSize_t padding,
                             diopiSize_t dilation, int64_t groups) {
  conv_geometry_t *g = &t->g;
  int ndim = t->dims + 2;
  bool planar_dims = t->dims == 2;
  diopiError_t err = diopiSuccess;
  if (t->input.ndim != ndim)
    return ref_fail(op, "input: %d dims, expected %s", t->input.ndim,
                    planar_dims ? "(N, C, H, W)" : "(N, C, D, H, W)");
  if (t->weight.ndim != ndim)
    return ref_fail(op, "weight: %d dims, expected %s", t->weight.ndim,
                    planar_dims ? "(C_out, C_in/groups, kH, kW)"
                                : "(C_out, C_in/groups, kD, kH, kW)");
  int64_t st[3], pad[3], dil[3], size[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  if ((err = window_attrs(op, t, stride, padding, dilation, st, pad, dil)))
    return err;
  for (int i = 3 - t->dims; i < 3; i++) {
    size[i] = t->input.shape[i + ndim - 3];
    k[i] = t->weight.shape[i + ndim - 3];
  }
  g->n = t->input.shape[0];
  g->cin = t->input.shape[1];
  g->cout = t->weight.shape[0];
  g->groups = groups;
  if (groups < 1 || g->cin % groups || g->cout % groups)
    return ref_fail(op,
                    "groups: %lld does not divide C_in %lld and C_out "
                    "%lld",
                    (long long)groups, (long long)g->cin, (long long)g->cout);
  int64_t want_w[5] = {g->cout, g->cin / groups, k[0], k[1], k[2]};
  if (planar_dims)
    memmove(want_w + 2, want_w + 3, 2 * sizeof *want_w);
  if ((err = ref_expect_shape(op, "weight", &t->weight, want_w, ndim)))
    return err;
  int64_t osize[3];
  for (int i = 0; i < 3; i++) {
    osize[i] = out_size(size[i], k[i], st[i], pad[i], dil[i]);
    if (osize[i] < 1)
      return ref_fail(op,
                      "input: %lld in dim %d is smaller than the kernel's "
                      "reach %lld (padding %lld)",
                      (long long)size[i], i + ndim - 3,
                      (long long)(dil[i] * (k[i] - 1) + 1), (long long)pad[i]);
  }
  g->d = size[0], g->h = size[1], g->w = size[2];
  g->kd = k[0], g->kh = k[1], g->kw = k[2];
  g->od = osize[0], g->oh = osize[1], g->ow = osize[2];
  g->stride_d = st[0], g->pad_d = pad[0], g->dil_d = dil[0];
  for (int i = 0; i < 2; i++) {
    g->stride[i] = st[1 + i];
    g->pad[i] = pad[1 + i];
    g->dil[i] = dil[1 + i];
  }
  g->cg = g->cin / groups;
  g->og = g->cout / groups;
  g->k = g->cg * g->kd * g->kh * g->kw;
  g->slice = g->oh * g->ow;
  g->p = g->od * g->slice;
  g->batch = COLUMNS_PER_GEMM / g->p;
  g->batch = g->batch < 1 ? 1 : g->batch > g->n ? g->n : g->batch;
  g->depths = g->batch > 1 ? g->od : COLUMNS_PER_GEMM / g->slice;
  g->depths = g->depths < 1 ? 1 : g->depths > g->od ? g->od : g->depths;
  int64_t want_o[5] = {g->n, g->cout, g->od, g->oh, g->ow};
  if (planar_dims)
    memmove(want_o + 2, want_o + 3, 2 * sizeof *want_o);
  if ((err = ref_expect_shape(op, out_name, out, want_o, ndim)))
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

/* The column buffer (K, batch * depths * slice) and, for batches of more
 * than one image, the wide matrix (og, batch * P). */
static diopiError_t batch_scratch(diopiContextHandle_t ctx, const char *op,
                                  conv_task_t *t) {
  const conv_geometry_t *g = &t->g;
  size_t width = (size_t)(g->batch * g->depths * g->slice);
  diopiError_t err = ref_scratch(ctx, op, (size_t)g->k * width * sizeof(float),
                                 (void **)&t->col);
  if (!err && g->batch > 1)
    err = ref_scratch(ctx, op, (size_t)g->og * width * sizeof(float),
                      (void **)&t->wide);
  return err;
}

/* convolution{dims}d: checks the arguments and enqueues the forward. */
static diopiError_t convolution(diopiContextHandle_t ctx, const char *op,
                                int dims, diopiTensorHandle_t out,
                                diopiConstTensorHandle_t input,
                                diopiConstTensorHandle_t weight,
                                diopiConstTensorHandle_t bias,
                                diopiSize_t stride, diopiSize_t padding,
                                diopiSize_t dilation, int64_t groups) {
  conv_task_t t;
  memset(&t, 0, sizeof t);
  t.dims = dims;
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
        : pointwise_forward_applies(&t) ? pointwise_scratch(ctx, op, &t)
        : direct_forward_applies(&t.g)  ? direct_scratch(ctx, op, &t)
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

/* convolution{dims}d's backward: checks the arguments and enqueues it.
 * bias_sizes is not needed: grad_bias's own shape says it. */
static diopiError_t convolution_backward(
    diopiContextHandle_t ctx, const char *op, int dims,
    diopiTensorHandle_t grad_input, diopiTensorHandle_t grad_weight,
    diopiTensorHandle_t grad_bias, diopiConstTensorHandle_t grad_output,
    diopiConstTensorHandle_t input, diopiConstTensorHandle_t weight,
    diopiSize_t stride, diopiSize_t padding, diopiSize_t dilation,
    int64_t groups) {
  conv_task_t t;
  memset(&t, 0, sizeof t);
  t.dims = dims;
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
    err = ref_expect_shape(op, "grad_input", &t.grad_input, t.input.shape,
                           dims + 2);
  if (!err && t.has_grad_weight)
    err = ref_expect_shape(op, "grad_weight", &t.grad_weight, t.weight.shape,
                           dims + 2);
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

REF_EXPORT diopiError_t diopiConvolution2d(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiConstTensorHandle_t input, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t bias, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, int64_t groups) {
  return convolution(ctx, "diopiConvolution2d", 2, out, input, weight, bias,
                     stride, padding, dilation, groups);
}

REF_EXPORT diopiError_t diopiConvolution2dBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiTensorHandle_t grad_weight, diopiTensorHandle_t grad_bias,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t weight, diopiSize_t *bias_sizes,
    diopiSize_t stride, diopiSize_t padding, diopiSize_t dilation,
    int64_t groups) {
  (void)bias_sizes;
  return convolution_backward(ctx, "diopiConvolution2dBackward", 2, grad_input,
                              grad_weight, grad_bias, grad_output, input,
                              weight, stride, padding, dilation, groups);
}

REF_EXPORT diopiError_t diopiConvolution3d(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiConstTensorHandle_t input, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t bias, diopiSize_t stride, diopiSize_t padding,
    diopiSize_t dilation, int64_t groups) {
  return convolution(ctx, "diopiConvolution3d", 3, out, input, weight, bias,
                     stride, padding, dilation, groups);
}

REF_EXPORT diopiError_t diopiConvolution3dBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiTensorHandle_t grad_weight, diopiTensorHandle_t grad_bias,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t weight, diopiSize_t *bias_sizes,
    diopiSize_t stride, diopiSize_t padding, diopiSize_t dilation,
    int64_t groups) {
  (void)bias_sizes;
  return convolution_backward(ctx, "diopiConvolution3dBackward", 3, grad_input,
                              grad_weight, grad_bias, grad_output, input,
                              weight, stride, padding, dilation, groups);
}
