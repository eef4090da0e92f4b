/* Rotary position embedding (DIOPI's diopiRotaryEmbedding, functions_ext.h):
 * each pair (a, b) of x's last dim turns by the angle whose cosine and sine
 * are given, a' = a cos - b sin, b' = a sin + b cos (conj: by minus the
 * angle, the backward). The pairs are the two halves of the last dim
 * (element k with k + D / 2), or (interleaved) neighbours (2k, 2k + 1);
 * cos and sin hold D / 2 values per row and broadcast to x's leading dims.
 * Any floating dtype, any strides, in double; out may be x itself. */
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

typedef struct rotary_task {
  bool conj, interleaved;
  ref_view_t x, y, cos, sin; /* cos, sin broadcast to x's rows */
  ref_view_t x_rows, y_rows, cos_rows, sin_rows; /* without the last dim */
  int64_t half;
} rotary_task_t;

static void rows_range(void *context, int64_t begin, int64_t end) {
  const rotary_task_t *t = context;
  int last = t->x.ndim - 1;
  int64_t xs = t->x.strides[last], ys = t->y.strides[last],
          cs = t->cos.strides[last], ss = t->sin.strides[last];
  double sign = t->conj ? -1 : 1;
  for (int64_t r = begin; r < end; r++) {
    int64_t xo = ref_offset(&t->x_rows, r), yo = ref_offset(&t->y_rows, r),
            co = ref_offset(&t->cos_rows, r), so = ref_offset(&t->sin_rows, r);
    for (int64_t k = 0; k < t->half; k++) {
      int64_t ia = t->interleaved ? 2 * k : k,
              ib = t->interleaved ? 2 * k + 1 : k + t->half;
      double a = ref_load_at(&t->x, xo + ia * xs),
             b = ref_load_at(&t->x, xo + ib * xs),
             c = ref_load_at(&t->cos, co + k * cs),
             s = sign * ref_load_at(&t->sin, so + k * ss);
      ref_store_at(&t->y, yo + ia * ys, a * c - b * s);
      ref_store_at(&t->y, yo + ib * ys, a * s + b * c);
    }
  }
}

static void run(void *args) {
  rotary_task_t *t = args;
  int64_t grain = (1 << 14) / (t->half ? t->half : 1) + 1;
  ref_parallel_for(t->x_rows.numel, grain, rows_range, t);
}

/* cos or sin: (..., D / 2), broadcast to x's shape but its last dim. */
static diopiError_t angles(const char *op, const char *arg, ref_view_t *v,
                           const ref_view_t *x, int64_t half) {
  char a[96], b[96];
  if (v->ndim < 1 || v->shape[v->ndim - 1] != half)
    return ref_fail(op,
                    "%s: shape %s, expected a last dim of %lld (half of "
                    "x's %s)",
                    arg, ref_shape_text(v->shape, v->ndim, a, sizeof a),
                    (long long)half,
                    ref_shape_text(x->shape, x->ndim, b, sizeof b));
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, x->shape, sizeof shape);
  shape[x->ndim - 1] = half;
  return ref_broadcast_to(op, arg, v, shape, x->ndim);
}

REF_EXPORT diopiError_t diopiRotaryEmbedding(CTX, T out, CT x, CT cos, CT sin,
                                             const bool conj,
                                             const bool interleaved) {
  const char *op = "diopiRotaryEmbedding";
  rotary_task_t t;
  memset(&t, 0, sizeof t);
  t.conj = conj;
  t.interleaved = interleaved;
  const ref_arg_t args[] = {{"out", out, &t.y, NULL},
                            {"x", x, &t.x, NULL},
                            {"cos", cos, &t.cos, NULL},
                            {"sin", sin, &t.sin, NULL}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (err)
    return err;
  if (!ref_is_floating(t.x.dtype))
    return ref_fail(op, "x: expected a floating dtype, got dtype %d",
                    (int)t.x.dtype);
  int last = t.x.ndim - 1;
  if (t.x.ndim < 1 || t.x.shape[last] % 2)
    return ref_fail(op, "x: expected a last dim of even length, got %d dims%s",
                    t.x.ndim, t.x.ndim ? " and an odd last dim" : "");
  t.half = t.x.shape[last] / 2;
  err = ref_expect_shape(op, "out", &t.y, t.x.shape, t.x.ndim);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "out", &t.y, &t.x);
  if (!err)
    err = angles(op, "cos", &t.cos, &t.x, t.half);
  if (!err)
    err = angles(op, "sin", &t.sin, &t.x, t.half);
  if (err || t.x.numel == 0)
    return err;
  t.x_rows = ref_lines_of(&t.x, last);
  t.y_rows = ref_lines_of(&t.y, last);
  t.cos_rows = ref_lines_of(&t.cos, last);
  t.sin_rows = ref_lines_of(&t.sin, last);
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
