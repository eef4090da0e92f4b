/* Rotary position embedding, DIOPI's two forms (functions_ext.h upstream):
 *
 * diopiRotaryEmbedding: each pair (a, b) of x's last dim turns by the angle
 * whose cosine and sine are given, a' = a cos - b sin, b' = a sin + b cos
 * (conj: by minus the angle, the backward). The pairs are the two halves of
 * the last dim (element k with k + D / 2), or (interleaved) neighbours
 * (2k, 2k + 1); cos and sin hold D / 2 values per row and broadcast to x's
 * leading dims; out may be x.
 *
 * diopiRotaryEmbeddingV2: query and key, in place, each (..., heads x dim)
 * seen as (..., heads, dim), become x cos + rotate_half(x) sin, where
 * rotate_half(x) = (-x[D/2:], x[:D/2]) (lightllm's no-pad form, as DIOPI's
 * tests compute it): cos and sin hold dim values (a cosine and sine for
 * each element, its pair's own) and broadcast to each one's (..., heads,
 * dim). So element k < D/2 and its pair k + D/2 become
 *   a' = a cos[k] - b sin[k],   b' = b cos[k + D/2] + a sin[k + D/2].
 *
 * Any floating dtype, any strides, in double. */
#include <stdio.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* One tensor's rotation: x's pairs into y (y may be x). */
typedef struct rotation {
  ref_view_t x, y, cos, sin; /* cos, sin broadcast to x's rows */
  ref_view_t x_rows, y_rows, cos_rows, sin_rows; /* without the last dim */
} rotation_t;

typedef struct rotary_task {
  bool conj, interleaved;
  /* The angle index of a pair's second element: 0 (diopiRotaryEmbedding:
   * both share angle k) or half (V2: element k + half has its own). */
  int64_t second_angle;
  int64_t half;
  int count; /* rotations: 1, or 2 (V2's query and key) */
  rotation_t rotations[2];
} rotary_task_t;

typedef struct rotary_range {
  const rotary_task_t *task;
  const rotation_t *rotation;
} rotary_range_t;

static void rows_range(void *context, int64_t begin, int64_t end) {
  const rotary_range_t *range = context;
  const rotary_task_t *t = range->task;
  const rotation_t *u = range->rotation;
  int last = u->x.ndim - 1;
  int64_t xs = u->x.strides[last], ys = u->y.strides[last],
          cs = u->cos.strides[last], ss = u->sin.strides[last];
  double sign = t->conj ? -1 : 1;
  for (int64_t r = begin; r < end; r++) {
    int64_t xo = ref_offset(&u->x_rows, r), yo = ref_offset(&u->y_rows, r),
            co = ref_offset(&u->cos_rows, r), so = ref_offset(&u->sin_rows, r);
    for (int64_t k = 0; k < t->half; k++) {
      int64_t ia = t->interleaved ? 2 * k : k,
              ib = t->interleaved ? 2 * k + 1 : k + t->half,
              kb = k + t->second_angle;
      double a = ref_load_at(&u->x, xo + ia * xs),
             b = ref_load_at(&u->x, xo + ib * xs),
             ca = ref_load_at(&u->cos, co + k * cs),
             sa = sign * ref_load_at(&u->sin, so + k * ss),
             cb = ref_load_at(&u->cos, co + kb * cs),
             sb = sign * ref_load_at(&u->sin, so + kb * ss);
      ref_store_at(&u->y, yo + ia * ys, a * ca - b * sa);
      ref_store_at(&u->y, yo + ib * ys, a * sb + b * cb);
    }
  }
}

static void run(void *args) {
  rotary_task_t *t = args;
  int64_t grain = (1 << 14) / (t->half ? t->half : 1) + 1;
  for (int i = 0; i < t->count; i++) {
    rotary_range_t range = {t, &t->rotations[i]};
    ref_parallel_for(range.rotation->x_rows.numel, grain, rows_range, &range);
  }
}

/* cos or sin: (..., width), broadcast to x's shape but its last dim. */
static diopiError_t angles(const char *op, const char *arg, ref_view_t *v,
                           const ref_view_t *x, int64_t width,
                           const char *what) {
  char a[96], b[96];
  if (v->ndim < 1 || v->shape[v->ndim - 1] != width)
    return ref_fail(op, "%s: shape %s, expected a last dim of %lld (%s %s)",
                    arg, ref_shape_text(v->shape, v->ndim, a, sizeof a),
                    (long long)width, what,
                    ref_shape_text(x->shape, x->ndim, b, sizeof b));
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, x->shape, sizeof shape);
  shape[x->ndim - 1] = width;
  return ref_broadcast_to(op, arg, v, shape, x->ndim);
}

/* The row views of a checked rotation. */
static void rows_of(rotation_t *u) {
  int last = u->x.ndim - 1;
  u->x_rows = ref_lines_of(&u->x, last);
  u->y_rows = ref_lines_of(&u->y, last);
  u->cos_rows = ref_lines_of(&u->cos, last);
  u->sin_rows = ref_lines_of(&u->sin, last);
}

REF_EXPORT diopiError_t diopiRotaryEmbedding(CTX, T out, CT x, CT cos, CT sin,
                                             const bool conj,
                                             const bool interleaved) {
  const char *op = "diopiRotaryEmbedding";
  rotary_task_t t;
  memset(&t, 0, sizeof t);
  t.conj = conj;
  t.interleaved = interleaved;
  t.count = 1;
  rotation_t *u = &t.rotations[0];
  const ref_arg_t args[] = {{"out", out, &u->y, NULL},
                            {"x", x, &u->x, NULL},
                            {"cos", cos, &u->cos, NULL},
                            {"sin", sin, &u->sin, NULL}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (err)
    return err;
  if (!ref_is_floating(u->x.dtype))
    return ref_fail(op, "x: expected a floating dtype, got dtype %d",
                    (int)u->x.dtype);
  int last = u->x.ndim - 1;
  if (u->x.ndim < 1 || u->x.shape[last] % 2)
    return ref_fail(op, "x: expected a last dim of even length, got %d dims%s",
                    u->x.ndim, u->x.ndim ? " and an odd last dim" : "");
  t.half = u->x.shape[last] / 2;
  err = ref_expect_shape(op, "out", &u->y, u->x.shape, u->x.ndim);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "out", &u->y, &u->x);
  if (!err)
    err = angles(op, "cos", &u->cos, &u->x, t.half, "half of x's");
  if (!err)
    err = angles(op, "sin", &u->sin, &u->x, t.half, "half of x's");
  if (err || u->x.numel == 0)
    return err;
  rows_of(u);
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

/* One of V2's tensors (query or key): floating, (..., heads x dim), seen
 * as (..., heads, dim) and rotated in place; cos and sin broadcast to it. */
static diopiError_t head_rotation(CTX, const char *op, const char *arg, T h,
                                  CT cos, CT sin, int64_t dim, rotation_t *u) {
  ref_view_t v;
  diopiError_t err = ref_view(ctx, op, arg, h, &v);
  if (err)
    return err;
  if (!ref_is_floating(v.dtype))
    return ref_fail(op, "%s: expected a floating dtype, got dtype %d", arg,
                    (int)v.dtype);
  char have[96];
  if (v.ndim < 1 || v.ndim >= REF_MAX_DIMS || v.shape[v.ndim - 1] % dim)
    return ref_fail(op,
                    "%s: expected (..., heads x %lld) with at most %d dims, "
                    "got shape %s",
                    arg, (long long)dim, REF_MAX_DIMS - 1,
                    ref_shape_text(v.shape, v.ndim, have, sizeof have));
  int last = v.ndim - 1; /* split into (heads, dim) */
  u->x = v;
  u->x.ndim = v.ndim + 1;
  u->x.shape[last] = v.shape[last] / dim;
  u->x.strides[last] = v.strides[last] * dim;
  u->x.shape[last + 1] = dim;
  u->x.strides[last + 1] = v.strides[last];
  u->y = u->x;
  char what[64];
  snprintf(what, sizeof what, "the head size of %s", arg);
  err = ref_view(ctx, op, "cos", cos, &u->cos);
  if (!err)
    err = angles(op, "cos", &u->cos, &u->x, dim, what);
  if (!err)
    err = ref_view(ctx, op, "sin", sin, &u->sin);
  if (!err)
    err = angles(op, "sin", &u->sin, &u->x, dim, what);
  if (!err)
    rows_of(u);
  return err;
}

REF_EXPORT diopiError_t diopiRotaryEmbeddingV2(CTX, T query, T key, CT cos,
                                               CT sin, int64_t dim) {
  const char *op = "diopiRotaryEmbeddingV2";
  if (dim < 2 || dim % 2)
    return ref_fail(op, "dim: expected a positive even head size, got %lld",
                    (long long)dim);
  rotary_task_t t;
  memset(&t, 0, sizeof t);
  t.half = t.second_angle = dim / 2;
  t.count = 2;
  diopiError_t err =
      head_rotation(ctx, op, "query", query, cos, sin, dim, &t.rotations[0]);
  if (!err)
    err = head_rotation(ctx, op, "key", key, cos, sin, dim, &t.rotations[1]);
  if (err)
    return err;
  const ref_view_t *q = &t.rotations[0].x, *k = &t.rotations[1].x;
  if (q->numel && q->data == k->data && q->ndim == k->ndim &&
      !memcmp(q->strides, k->strides, sizeof(int64_t) * (size_t)q->ndim))
    return ref_fail(op, "key: expected a tensor apart from query (both turn "
                        "in place), got query itself");
  if (!q->numel && !k->numel)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
