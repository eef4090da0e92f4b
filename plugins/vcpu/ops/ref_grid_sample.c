/* grid_sample: DIOPI's diopiGridSample (mode "bilinear" or "nearest";
 * PyTorch's defaults otherwise: zeros padding, align_corners false) and the
 * Backplane's pair diopiGridSampler / diopiGridSamplerBackward
 * (functions_backplane.h), which take
 * PyTorch's padding_mode ("zeros", "border", "reflection") and
 * align_corners, as torch.nn.functional.grid_sample computes them. Input
 * (N, C, H, W) with grid (N, Ho, Wo, 2), or (N, C, D, H, W) with grid
 * (N, Do, Ho, Wo, 3) ("bilinear" then interpolates trilinearly; "nearest"
 * rounds halves to even in 2-d, away from zero in 3-d, as PyTorch); the grid's
 * last dim holds (x, y[, z]) in [-1, 1], x along W. Any floating dtype,
 * any strides, in double. A 2-d sampling runs as a 3-d one of depth 1
 * whose z is exactly 0. Forward and grad_grid split by output point
 * (every channel of it), grad_input by (image, channel) plane. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

enum padding { ZEROS, BORDER, REFLECTION };

typedef struct sampler_task {
  bool nearest, align_corners, backward, has_gi, has_gg;
  enum padding padding;
  int comps;              /* 2 or 3: the grid's last dim */
  ref_view_t x, grid, y;  /* 5-d x (N, C, D, H, W), grid (N, P..., 3) */
  ref_view_t gi, gg;      /* backward: grad_input, grad_grid */
  int64_t n, c, size[3];  /* size: D, H, W of the input */
  int64_t points, out[3]; /* points per image: Do Ho Wo */
} sampler_task_t;

/* The source coordinate of grid value g along an input dim of `size`, and
 * its derivative d coordinate / d g in *slope. */
static double source(const sampler_task_t *t, double g, int64_t size,
                     double *slope) {
  double s = t->align_corners ? (size - 1) / 2.0 : size / 2.0;
  double c = t->align_corners ? (g + 1) / 2 * (double)(size - 1)
                              : ((g + 1) * (double)size - 1) / 2;
  *slope = s;
  if (t->padding == REFLECTION) {
    /* reflect over [lo, hi] (twice: align_corners' [0, 2 (size - 1)] or
     * [-1, 2 size - 1]), then clip */
    double lo2 = t->align_corners ? 0 : -1,
           hi2 = t->align_corners ? 2.0 * (double)(size - 1) : 2.0 * size - 1;
    if (lo2 == hi2) {
      *slope = 0;
      return 0;
    }
    double low = lo2 / 2, span = (hi2 - lo2) / 2;
    c -= low;
    if (c < 0) {
      c = -c;
      *slope = -*slope;
    }
    double extra = fmod(c, span);
    int64_t flips = (int64_t)floor(c / span);
    if (flips % 2 == 0) {
      c = extra + low;
    } else {
      c = span - extra + low;
      *slope = -*slope;
    }
  }
  if (t->padding != ZEROS) { /* clip to [0, size - 1] */
    if (c <= 0) {
      c = 0;
      *slope = 0;
    } else if (c >= (double)(size - 1)) {
      c = (double)(size - 1);
      *slope = 0;
    }
  }
  return c;
}

/* Point p of image n: its source coordinates (z, y, x order, as the input's
 * dims) and their slopes. z of a 2-d sampling is 0. */
static void coordinates(const sampler_task_t *t, int64_t n, int64_t p,
                        double c[3], double slope[3]) {
  int64_t idx[4] = {n, p / (t->out[1] * t->out[2]), p / t->out[2] % t->out[1],
                    p % t->out[2]};
  int64_t base = 0;
  for (int d = 0; d < 4; d++)
    base += idx[d] * t->grid.strides[d];
  c[0] = slope[0] = 0;
  for (int k = 0; k < t->comps; k++) {
    double g = ref_load_at(&t->grid, base + k * t->grid.strides[4]);
    int d = 2 - k; /* grid x is the input's last dim */
    c[d] = source(t, g, t->size[d], &slope[d]);
  }
}

static int64_t x_offset(const ref_view_t *v, int64_t n, int64_t ch,
                        const int64_t at[3]) {
  return n * v->strides[0] + ch * v->strides[1] + at[0] * v->strides[2] +
         at[1] * v->strides[3] + at[2] * v->strides[4];
}

static int64_t y_offset(const ref_view_t *v, const sampler_task_t *t, int64_t n,
                        int64_t ch, int64_t p) {
  int64_t od = p / (t->out[1] * t->out[2]), oh = p / t->out[2] % t->out[1],
          ow = p % t->out[2];
  return n * v->strides[0] + ch * v->strides[1] + od * v->strides[2] +
         oh * v->strides[3] + ow * v->strides[4];
}

/* The taps of a point: up to 8 corners (bilinear) or 1 (nearest), each
 * with its input position (in bounds) and weight, and the weight's
 * derivative along each coordinate. */
typedef struct taps {
  int count;
  int64_t at[8][3];
  double w[8], dw[8][3];
} taps_t;

static void taps_of(const sampler_task_t *t, const double c[3], taps_t *out) {
  out->count = 0;
  if (t->nearest) {
    int64_t at[3];
    for (int d = 0; d < 3; d++) {
      /* PyTorch's 2-d kernel rounds halves to even, its 3-d one away from
       * zero */
      at[d] = (int64_t)(t->comps == 3 ? round(c[d]) : nearbyint(c[d]));
      if (at[d] < 0 || at[d] >= t->size[d])
        return;
    }
    memcpy(out->at[0], at, sizeof at);
    out->w[0] = 1;
    memset(out->dw[0], 0, sizeof out->dw[0]);
    out->count = 1;
    return;
  }
  double lo[3], f[3];
  for (int d = 0; d < 3; d++) {
    lo[d] = floor(c[d]);
    f[d] = c[d] - lo[d];
  }
  for (int corner = 0; corner < 8; corner++) {
    int64_t at[3];
    double part[3], dpart[3];
    bool inside = true;
    for (int d = 0; d < 3; d++) {
      int up = corner >> (2 - d) & 1;
      at[d] = (int64_t)lo[d] + up;
      part[d] = up ? f[d] : 1 - f[d];
      dpart[d] = up ? 1 : -1;
      inside = inside && at[d] >= 0 && at[d] < t->size[d];
    }
    if (!inside)
      continue;
    int k = out->count++;
    memcpy(out->at[k], at, sizeof at);
    out->w[k] = part[0] * part[1] * part[2];
    out->dw[k][0] = dpart[0] * part[1] * part[2];
    out->dw[k][1] = part[0] * dpart[1] * part[2];
    out->dw[k][2] = part[0] * part[1] * dpart[2];
  }
}

/* Forward (out at every channel) or grad_grid of point p of image n. */
static void point(const sampler_task_t *t, int64_t n, int64_t p) {
  double c[3], slope[3], dc[3] = {0, 0, 0};
  taps_t taps;
  coordinates(t, n, p, c, slope);
  taps_of(t, c, &taps);
  for (int64_t ch = 0; ch < t->c; ch++) {
    double acc = 0, go = t->backward
                             ? ref_load_at(&t->y, y_offset(&t->y, t, n, ch, p))
                             : 0;
    for (int k = 0; k < taps.count; k++) {
      double v = ref_load_at(&t->x, x_offset(&t->x, n, ch, taps.at[k]));
      acc += taps.w[k] * v;
      for (int d = 0; d < 3; d++)
        dc[d] += go * v * taps.dw[k][d];
    }
    if (!t->backward)
      ref_store_at(&t->y, y_offset(&t->y, t, n, ch, p), acc);
  }
  if (!t->backward)
    return;
  int64_t base = n * t->gg.strides[0] +
                 p / (t->out[1] * t->out[2]) * t->gg.strides[1] +
                 p / t->out[2] % t->out[1] * t->gg.strides[2] +
                 p % t->out[2] * t->gg.strides[3];
  for (int k = 0; k < t->comps; k++)
    ref_store_at(&t->gg, base + k * t->gg.strides[4], dc[2 - k] * slope[2 - k]);
}

static void points_range(void *context, int64_t begin, int64_t end) {
  const sampler_task_t *t = context;
  for (int64_t i = begin; i < end; i++)
    point(t, i / t->points, i % t->points);
}

/* grad_input of plane (image, channel): zeros, then every point's
 * grad_output added at its taps. */
static void planes_range(void *context, int64_t begin, int64_t end) {
  const sampler_task_t *t = context;
  for (int64_t i = begin; i < end; i++) {
    int64_t n = i / t->c, ch = i % t->c, at[3];
    for (at[0] = 0; at[0] < t->size[0]; at[0]++)
      for (at[1] = 0; at[1] < t->size[1]; at[1]++)
        for (at[2] = 0; at[2] < t->size[2]; at[2]++)
          ref_store_at(&t->gi, x_offset(&t->gi, n, ch, at), 0);
    for (int64_t p = 0; p < t->points; p++) {
      double c[3], slope[3];
      taps_t taps;
      coordinates(t, n, p, c, slope);
      taps_of(t, c, &taps);
      double go = ref_load_at(&t->y, y_offset(&t->y, t, n, ch, p));
      for (int k = 0; k < taps.count; k++) {
        int64_t o = x_offset(&t->gi, n, ch, taps.at[k]);
        ref_store_at(&t->gi, o, ref_load_at(&t->gi, o) + taps.w[k] * go);
      }
    }
  }
}

static void run(void *args) {
  sampler_task_t *t = args;
  if (!t->backward || t->has_gg)
    ref_parallel_for(t->n * t->points, 64, points_range, t);
  if (t->backward && t->has_gi)
    ref_parallel_for(t->n * t->c, 1, planes_range, t);
}

/* `v` of 4 dims as 5 with a depth of 1 inserted at `at` (stride 0). */
static void lift(ref_view_t *v, int at) {
  for (int d = v->ndim; d > at; d--) {
    v->shape[d] = v->shape[d - 1];
    v->strides[d] = v->strides[d - 1];
  }
  v->shape[at] = 1;
  v->strides[at] = 0;
  v->ndim++;
}

static diopiError_t parse_mode(const char *op, const char *mode,
                               bool *nearest) {
  if (mode && !strcmp(mode, "bilinear"))
    *nearest = false;
  else if (mode && !strcmp(mode, "nearest"))
    *nearest = true;
  else
    return ref_fail(op, "mode: expected \"bilinear\" or \"nearest\", got %s",
                    mode ? mode : "NULL");
  return diopiSuccess;
}

static diopiError_t parse_padding(const char *op, const char *padding,
                                  enum padding *out) {
  static const char *const kNames[] = {"zeros", "border", "reflection"};
  for (int i = 0; i < 3; i++)
    if (padding && !strcmp(padding, kNames[i])) {
      *out = (enum padding)i;
      return diopiSuccess;
    }
  return ref_fail(op,
                  "padding_mode: expected \"zeros\", \"border\" or "
                  "\"reflection\", got %s",
                  padding ? padding : "NULL");
}

/* The checks of both directions; `y_arg`/`y`: out (forward) or
 * grad_output (backward). */
static diopiError_t setup(CTX, const char *op, sampler_task_t *t,
                          const char *y_arg, CT y, CT input, CT grid) {
  char a[96], b[96];
  const ref_arg_t args[] = {{"input", input, &t->x, NULL},
                            {"grid", grid, &t->grid, NULL},
                            {y_arg, y, &t->y, NULL}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (err)
    return err;
  if (!ref_is_floating(t->x.dtype))
    return ref_fail(op, "input: expected a floating dtype, got dtype %d",
                    (int)t->x.dtype);
  if (t->x.ndim != 4 && t->x.ndim != 5)
    return ref_fail(op,
                    "input: %d dims, expected (N, C, H, W) or "
                    "(N, C, D, H, W)",
                    t->x.ndim);
  t->comps = t->x.ndim - 2;
  int64_t want[5] = {t->x.shape[0]};
  if (t->grid.ndim != t->x.ndim || t->grid.shape[0] != t->x.shape[0] ||
      t->grid.shape[t->grid.ndim - 1] != t->comps)
    return ref_fail(op,
                    "grid: shape %s, expected (%lld, ..., %d) of %d dims "
                    "for input %s",
                    ref_shape_text(t->grid.shape, t->grid.ndim, a, sizeof a),
                    (long long)t->x.shape[0], t->comps, t->x.ndim,
                    ref_shape_text(t->x.shape, t->x.ndim, b, sizeof b));
  want[1] = t->x.shape[1];
  for (int d = 0; d < t->comps; d++)
    want[2 + d] = t->grid.shape[1 + d];
  err = ref_expect_shape(op, y_arg, &t->y, want, t->x.ndim);
  if (err)
    return err;
  if (t->comps == 2) {
    lift(&t->x, 2);
    lift(&t->y, 2);
    lift(&t->grid, 1);
  }
  t->n = t->x.shape[0];
  t->c = t->x.shape[1];
  t->points = 1;
  for (int d = 0; d < 3; d++) {
    t->size[d] = t->x.shape[2 + d];
    t->out[d] = t->grid.shape[1 + d];
    t->points *= t->out[d];
  }
  return diopiSuccess;
}

static diopiError_t forward(CTX, const char *op, T out, CT input, CT grid,
                            const char *mode, const char *padding_mode,
                            bool align_corners) {
  sampler_task_t t;
  memset(&t, 0, sizeof t);
  t.align_corners = align_corners;
  diopiError_t err = parse_mode(op, mode, &t.nearest);
  if (!err)
    err = parse_padding(op, padding_mode, &t.padding);
  if (!err)
    err = setup(ctx, op, &t, "out", out, input, grid);
  if (err || t.n * t.points * t.c == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiGridSample(CTX, T out, CT input, CT grid,
                                        const char *mode) {
  return forward(ctx, "diopiGridSample", out, input, grid, mode, "zeros",
                 false);
}

REF_EXPORT diopiError_t diopiGridSampler(CTX, T out, CT input, CT grid,
                                         const char *mode,
                                         const char *padding_mode,
                                         bool align_corners) {
  return forward(ctx, "diopiGridSampler", out, input, grid, mode, padding_mode,
                 align_corners);
}

REF_EXPORT diopiError_t diopiGridSamplerBackward(CTX, T grad_input, T grad_grid,
                                                 CT grad_output, CT input,
                                                 CT grid, const char *mode,
                                                 const char *padding_mode,
                                                 bool align_corners) {
  const char *op = "diopiGridSamplerBackward";
  sampler_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  t.align_corners = align_corners;
  ref_view_t input_view, grid_view;
  diopiError_t err = parse_mode(op, mode, &t.nearest);
  if (!err)
    err = parse_padding(op, padding_mode, &t.padding);
  if (!err)
    err = setup(ctx, op, &t, "grad_output", grad_output, input, grid);
  if (!err)
    err =
        ref_view_optional(ctx, op, "grad_input", grad_input, &t.gi, &t.has_gi);
  if (!err)
    err = ref_view_optional(ctx, op, "grad_grid", grad_grid, &t.gg, &t.has_gg);
  if (!err && t.has_gi)
    err = ref_view(ctx, op, "input", input, &input_view);
  if (!err && t.has_gi)
    err = ref_expect_shape(op, "grad_input", &t.gi, input_view.shape,
                           input_view.ndim);
  if (!err && t.has_gg)
    err = ref_view(ctx, op, "grid", grid, &grid_view);
  if (!err && t.has_gg)
    err = ref_expect_shape(op, "grad_grid", &t.gg, grid_view.shape,
                           grid_view.ndim);
  if (err)
    return err;
  if (t.comps == 2) {
    if (t.has_gi)
      lift(&t.gi, 2);
    if (t.has_gg)
      lift(&t.gg, 1);
  }
  if ((!t.has_gi && !t.has_gg) || t.n == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
