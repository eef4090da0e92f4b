/* interpolate: nearest and (bi/tri)linear upsampling over the 1 to 3
 * spatial dims after (N, C), align_corners or not, and their backwards.
 * Source coordinates follow PyTorch's arithmetic (in float for float
 * tensors below float64, so that floors land where PyTorch's do). One
 * plane (an image's channel) per work item; backwards add into their own
 * plane only. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_isa.h"
#include "ref_pool.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

enum { SPATIAL_MAX = 3 };

typedef struct interp_task {
  bool linear, align_corners, backward, single;
  int dims;                /* spatial dims */
  ref_view_t small, large; /* input and out (backward: grad_input, grad) */
  ref_view_t small_planes, large_planes; /* the (N, C) dims only */
  int64_t in_size[SPATIAL_MAX], out_size[SPATIAL_MAX];
} interp_task_t;

/* Output index o along a dim of in -> out: the two sources and weights
 * (nearest: one source, weight 1). */
static void source(const interp_task_t *t, int d, int64_t o, int64_t *i0,
                   int64_t *i1, double *w1) {
  int64_t in = t->in_size[d], out = t->out_size[d];
  if (!t->linear) {
    double s =
        t->single ? (double)((float)in / (float)out) : (double)in / (double)out;
    int64_t i = out == 2 * in ? o >> 1
                : t->single   ? (int64_t)floorf((float)o * (float)s)
                              : (int64_t)floor((double)o * s);
    *i0 = *i1 = i < in - 1 ? i : in - 1;
    *w1 = 0;
    return;
  }
  double src;
  if (t->align_corners) {
    double s = out > 1 ? (double)(in - 1) / (double)(out - 1) : 0;
    src = t->single ? (double)((float)s * (float)o) : s * (double)o;
  } else {
    double s = (double)in / (double)out;
    src = t->single ? (double)(((float)o + 0.5f) * (float)s - 0.5f)
                    : ((double)o + 0.5) * s - 0.5;
    src = src < 0 ? 0 : src;
  }
  *i0 = (int64_t)src;
  *i1 = *i0 + (*i0 < in - 1);
  *w1 = src - (double)*i0;
}

static void plane(const interp_task_t *t, int64_t p) {
  int64_t small_base = ref_offset(&t->small_planes, p);
  int64_t large_base = ref_offset(&t->large_planes, p);
  int64_t count = 1;
  for (int d = 0; d < t->dims; d++)
    count *= t->out_size[d];
  if (t->backward) {
    int64_t in_count = 1;
    for (int d = 0; d < t->dims; d++)
      in_count *= t->in_size[d];
    for (int64_t k = 0; k < in_count; k++) {
      int64_t off = small_base, rest = k;
      for (int d = t->dims; d-- > 0;) {
        off += rest % t->in_size[d] * t->small.strides[2 + d];
        rest /= t->in_size[d];
      }
      ref_store_at(&t->small, off, 0);
    }
  }
  for (int64_t o = 0; o < count; o++) {
    int64_t idx[SPATIAL_MAX][2], large_off = large_base, rest = o;
    double w[SPATIAL_MAX][2];
    for (int d = t->dims; d-- > 0;) {
      int64_t od = rest % t->out_size[d];
      rest /= t->out_size[d];
      large_off += od * t->large.strides[2 + d];
      double w1;
      source(t, d, od, &idx[d][0], &idx[d][1], &w1);
      w[d][0] = 1 - w1;
      w[d][1] = w1;
    }
    double g = t->backward ? ref_load_at(&t->large, large_off) : 0, acc = 0;
    for (int corner = 0; corner < 1 << t->dims; corner++) {
      double weight = 1;
      int64_t off = small_base;
      for (int d = 0; d < t->dims; d++) {
        int bit = corner >> d & 1;
        weight *= w[d][bit];
        off += idx[d][bit] * t->small.strides[2 + d];
      }
      if (weight == 0)
        continue;
      if (t->backward)
        ref_store_at(&t->small, off, ref_load_at(&t->small, off) + g * weight);
      else
        acc += weight * ref_load_at(&t->small, off);
    }
    if (!t->backward)
      ref_store_at(&t->large, large_off, acc);
  }
}

/* Doubles n floats: out[2 * i] = out[2 * i + 1] = in[i]. */
REF_ISA_BODY void double_row_body(float *out, const float *in, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    out[2 * i] = in[i];
    out[2 * i + 1] = in[i];
  }
}
REF_ISA_DISPATCH_VOID(static, double_row,
                      (float *out, const float *in, int64_t n), (out, in, n))

/* One nearest output row of `width` (stride lx) from input row `row`
 * (stride sx, in_w long; cols: the scaled source offsets, in pairs): a copy
 * of `same`, the previous output row, when that one has the same source
 * row and rows are contiguous; each input doubled when the width doubles;
 * else gathered. */
static void nearest_row(float *out, int64_t lx, const float *row, int64_t sx,
                        const int64_t *cols, int64_t width, int64_t in_w,
                        const float *same) {
  if (lx == 1 && same) {
    memcpy(out, same, (size_t)width * sizeof *out);
  } else if (lx == 1 && sx == 1 && width == 2 * in_w) {
    double_row(out, row, in_w);
  } else {
    for (int64_t ox = 0; ox < width; ox++)
      out[ox * lx] = row[cols[2 * ox]];
  }
}

/* The 2-d float32 forward of plane p: each output row blends two input
 * rows with per-column sources and weights computed once (nearest: weight
 * 0 on the second source). */
static void plane_2d_f32(const interp_task_t *t, int64_t p, int64_t *cols,
                         float *col_w) {
  const float *small =
      (const float *)t->small.data + ref_offset(&t->small_planes, p);
  float *large = (float *)t->large.data + ref_offset(&t->large_planes, p);
  int64_t sy = t->small.strides[2], sx = t->small.strides[3],
          ly = t->large.strides[2], lx = t->large.strides[3];
  int64_t width = t->out_size[1];
  for (int64_t ox = 0; ox < width; ox++) {
    double w1;
    source(t, 1, ox, &cols[2 * ox], &cols[2 * ox + 1], &w1);
    cols[2 * ox] *= sx;
    cols[2 * ox + 1] *= sx;
    col_w[ox] = (float)w1;
  }
  int64_t source_row = -1;
  for (int64_t oy = 0; oy < t->out_size[0]; oy++) {
    int64_t y0, y1;
    double wy;
    source(t, 0, oy, &y0, &y1, &wy);
    const float *r0 = small + y0 * sy, *r1 = small + y1 * sy;
    float *out = large + oy * ly;
    float b = (float)wy, a = 1.0f - b;
    if (!t->linear) {
      nearest_row(out, lx, r0, sx, cols, width, t->in_size[1],
                  oy > 0 && source_row == y0 ? out - ly : NULL);
      source_row = y0;
      continue;
    }
    for (int64_t ox = 0; ox < width; ox++) {
      float w = col_w[ox];
      int64_t c0 = cols[2 * ox], c1 = cols[2 * ox + 1];
      float top = r0[c0] + w * (r0[c1] - r0[c0]);
      float bottom = r1[c0] + w * (r1[c1] - r1[c0]);
      out[ox * lx] = a * top + b * bottom;
    }
  }
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const interp_task_t *t = context;
  if (!t->backward && t->dims == 2 && t->small.dtype == diopi_dtype_float32 &&
      t->large.dtype == diopi_dtype_float32) {
    int64_t cols[2 * t->out_size[1] + 1];
    float col_w[t->out_size[1] + 1];
    for (int64_t p = begin; p < end; p++)
      plane_2d_f32(t, p, cols, col_w);
    return;
  }
  for (int64_t p = begin; p < end; p++)
    plane(context, p);
}

static void run(void *args) {
  interp_task_t *t = args;
  ref_parallel_for(t->small_planes.numel, 4, run_range, t);
}

/* small (in_size) and large (out_size) views of (N, C, spatial...). */
static diopiError_t launch(diopiContextHandle_t ctx, const char *op,
                           interp_task_t *t, const char *small_name,
                           diopiConstTensorHandle_t small,
                           const char *large_name,
                           diopiConstTensorHandle_t large, diopiSize_t size,
                           const diopiSize_t *in_size) {
  diopiError_t err = ref_view(ctx, op, small_name, small, &t->small);
  if (!err)
    err = ref_view(ctx, op, large_name, large, &t->large);
  if (err)
    return err;
  t->dims = t->small.ndim - 2;
  if (t->dims < 1 || t->dims > SPATIAL_MAX)
    return ref_fail(op, "%s: %d dims, expected (N, C) and 1 to 3 spatial",
                    small_name, t->small.ndim);
  if (size.len != t->dims)
    return ref_fail(op, "size: %lld values for %d spatial dims",
                    (long long)size.len, t->dims);
  /* in_size: the full input shape (DIOPI's tests pass it) or the spatial
   * dims (its header says). */
  int skip = in_size && in_size->len == t->small.ndim ? 0 : 2;
  if (in_size && in_size->len + skip != t->small.ndim)
    return ref_fail(op, "in_size: %lld values, expected %d or %d",
                    (long long)in_size->len, t->small.ndim, t->dims);
  for (int d = skip; in_size && d < t->small.ndim; d++)
    if (in_size->data[d - skip] != t->small.shape[d]) {
      char want[128], have[128];
      return ref_fail(
          op, "%s: shape %s does not match in_size %s", small_name,
          ref_shape_text(t->small.shape, t->small.ndim, have, sizeof have),
          ref_shape_text(in_size->data, (int)in_size->len, want, sizeof want));
    }
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, t->small.shape, sizeof shape);
  for (int d = 0; d < t->dims; d++) {
    if (size.data[d] < 1)
      return ref_fail(op, "size: %lld along spatial dim %d, expected >= 1",
                      (long long)size.data[d], d);
    t->in_size[d] = t->small.shape[2 + d];
    t->out_size[d] = shape[2 + d] = size.data[d];
  }
  if ((err =
           ref_expect_shape(op, large_name, &t->large, shape, t->small.ndim)) ||
      (err =
           ref_expect_no_partial_overlap(op, large_name, &t->small, &t->large)))
    return err;
  t->single = t->small.dtype != diopi_dtype_float64;
  t->small_planes = t->small;
  t->small_planes.ndim = 2;
  t->small_planes.numel = t->small.shape[0] * t->small.shape[1];
  t->large_planes = t->large;
  t->large_planes.ndim = 2;
  t->large_planes.numel = t->small_planes.numel;
  if (t->large.numel == 0 && !t->backward)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, t, sizeof *t);
}

/* mode: linear, bilinear or trilinear, matching the spatial dims. */
static diopiError_t linear_mode(const char *op, const char *mode,
                                interp_task_t *t) {
  static const char *const names[SPATIAL_MAX] = {"linear", "bilinear",
                                                 "trilinear"};
  for (int d = 0; mode && d < SPATIAL_MAX; d++)
    if (!strcmp(mode, names[d]))
      return diopiSuccess;
  (void)t;
  return ref_fail(op,
                  "mode: expected linear, bilinear or trilinear, got "
                  "'%s'",
                  mode ? mode : "(null)");
}

REF_EXPORT diopiError_t diopiUpsampleNearest(diopiContextHandle_t ctx,
                                             diopiTensorHandle_t out,
                                             diopiConstTensorHandle_t input,
                                             diopiSize_t size) {
  interp_task_t t;
  memset(&t, 0, sizeof t);
  return launch(ctx, "diopiUpsampleNearest", &t, "input", input, "out", out,
                size, NULL);
}
REF_EXPORT diopiError_t diopiUpsampleNearestBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiSize_t out_size,
    diopiSize_t in_size) {
  interp_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  return launch(ctx, "diopiUpsampleNearestBackward", &t, "grad_input",
                grad_input, "grad_output", grad_output, out_size, &in_size);
}
REF_EXPORT diopiError_t diopiUpsampleLinear(diopiContextHandle_t ctx,
                                            diopiTensorHandle_t out,
                                            diopiConstTensorHandle_t input,
                                            diopiSize_t size,
                                            bool align_corners,
                                            const char *mode) {
  const char *op = "diopiUpsampleLinear";
  interp_task_t t;
  memset(&t, 0, sizeof t);
  t.linear = true;
  t.align_corners = align_corners;
  diopiError_t err = linear_mode(op, mode, &t);
  return err ? err
             : launch(ctx, op, &t, "input", input, "out", out, size, NULL);
}
REF_EXPORT diopiError_t diopiUpsampleLinearBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiSize_t out_size,
    diopiSize_t in_size, bool align_corners, const char *mode) {
  const char *op = "diopiUpsampleLinearBackward";
  interp_task_t t;
  memset(&t, 0, sizeof t);
  t.linear = true;
  t.backward = true;
  t.align_corners = align_corners;
  diopiError_t err = linear_mode(op, mode, &t);
  return err ? err
             : launch(ctx, op, &t, "grad_input", grad_input, "grad_output",
                      grad_output, out_size, &in_size);
}
