/* The generic pooling engine over volumes (see ref_window_pool.h). */
#include "ref_window_pool.h"

#include <math.h>

/* The window of output coordinate `o` in dim `dim`: [*start, *end) in
 * steps of the dilation, clipped to the input. avg: *pool is the
 * unclipped size counting the padding. */
static void window(const ref_window_pool_t *t, int dim, int64_t o,
                   int64_t *start, int64_t *end, int64_t *pool) {
  int64_t s = o * t->stride[dim] - t->padding[dim];
  int64_t in = t->in.size[dim];
  if (t->is_max) {
    int64_t e = s + (t->k[dim] - 1) * t->dilation[dim] + 1;
    while (s < 0)
      s += t->dilation[dim];
    *start = s;
    *end = e < in ? e : in;
    *pool = 0;
    return;
  }
  int64_t e = s + t->k[dim];
  int64_t limit = in + t->padding[dim];
  *pool = (e < limit ? e : limit) - s;
  *start = s < 0 ? 0 : s;
  *end = e < in ? e : in;
}

/* The max of a window: its flat index, and value through *value. */
static int64_t window_max(const ref_window_pool_t *t, int64_t v,
                          const int64_t start[3], const int64_t end[3],
                          double *value) {
  const int64_t *is = t->in.size;
  int64_t best = (start[0] * is[1] + start[1]) * is[2] + start[2];
  double max = -INFINITY;
  for (int64_t d = start[0]; d < end[0]; d += t->dilation[0])
    for (int64_t h = start[1]; h < end[1]; h += t->dilation[1])
      for (int64_t w = start[2]; w < end[2]; w += t->dilation[2]) {
        double x = ref_volume_get(&t->in, v, d, h, w);
        if (x > max || isnan(x)) {
          max = x;
          best = (d * is[1] + h) * is[2] + w;
          if (isnan(x))
            goto done;
        }
      }
done:
  *value = max;
  return best;
}

static double divisor(const ref_window_pool_t *t, const int64_t start[3],
                      const int64_t end[3], const int64_t pool[3]) {
  if (t->has_divisor)
    return (double)t->divisor;
  if (t->count_include_pad)
    return (double)(pool[0] * pool[1] * pool[2]);
  return (double)((end[0] - start[0]) * (end[1] - start[1]) *
                  (end[2] - start[2]));
}

void ref_window_pool_range(void *context, int64_t begin, int64_t end_volume) {
  const ref_window_pool_t *t = context;
  const int64_t *os = t->out.size, *is = t->in.size;
  for (int64_t v = begin; v < end_volume; v++) {
    if (t->backward)
      for (int64_t d = 0; d < is[0]; d++)
        for (int64_t h = 0; h < is[1]; h++)
          for (int64_t w = 0; w < is[2]; w++)
            ref_volume_set(&t->grad_in, v, d, h, w, 0);
    int64_t o[3];
    for (o[0] = 0; o[0] < os[0]; o[0]++)
      for (o[1] = 0; o[1] < os[1]; o[1]++)
        for (o[2] = 0; o[2] < os[2]; o[2]++) {
          int64_t start[3], end[3], pool[3];
          for (int i = 0; i < 3; i++)
            window(t, i, o[i], &start[i], &end[i], &pool[i]);
          if (t->is_max && t->backward) {
            int64_t at =
                (int64_t)ref_volume_get(&t->indices, v, o[0], o[1], o[2]);
            int64_t d = at / (is[1] * is[2]), h = at / is[2] % is[1],
                    w = at % is[2];
            double g = ref_volume_get(&t->out, v, o[0], o[1], o[2]);
            ref_volume_set(&t->grad_in, v, d, h, w,
                           ref_volume_get(&t->grad_in, v, d, h, w) + g);
          } else if (t->is_max) {
            double max;
            int64_t at = window_max(t, v, start, end, &max);
            if (t->has_out)
              ref_volume_set(&t->out, v, o[0], o[1], o[2], max);
            if (t->has_indices)
              ref_volume_set(&t->indices, v, o[0], o[1], o[2], (double)at);
          } else if (start[0] >= end[0] || start[1] >= end[1] ||
                     start[2] >= end[2]) {
            if (!t->backward) /* a window wholly in the padding */
              ref_volume_set(&t->out, v, o[0], o[1], o[2], 0);
          } else {
            double share = 1 / divisor(t, start, end, pool), sum = 0;
            double g =
                t->backward ? ref_volume_get(&t->out, v, o[0], o[1], o[2]) : 0;
            for (int64_t d = start[0]; d < end[0]; d++)
              for (int64_t h = start[1]; h < end[1]; h++)
                for (int64_t w = start[2]; w < end[2]; w++) {
                  if (t->backward)
                    ref_volume_set(&t->grad_in, v, d, h, w,
                                   ref_volume_get(&t->grad_in, v, d, h, w) +
                                       g * share);
                  else
                    sum += ref_volume_get(&t->in, v, d, h, w);
                }
            if (!t->backward)
              ref_volume_set(&t->out, v, o[0], o[1], o[2], sum * share);
          }
        }
  }
}

void ref_volumes_of_planes(const ref_view_t *v, ref_volumes_t *out) {
  int nd = v->ndim;
  out->outer = *v;
  out->outer.ndim = nd - 2;
  out->count = 1;
  for (int d = 0; d < nd - 2; d++)
    out->count *= v->shape[d];
  out->outer.numel = out->count;
  out->size[0] = 1;
  out->stride[0] = 0;
  for (int i = 1; i < 3; i++) {
    out->size[i] = v->shape[nd - 3 + i];
    out->stride[i] = v->strides[nd - 3 + i];
  }
}
