/* Float32 plane kernels of average and adaptive max pooling (see
 * ref_pool_f32.h). Averages: the windows that lie wholly inside the row
 * (all but a column or two at each edge) are summed as whole output rows,
 * one tap at a time, so that each output's float sum adds its taps in
 * PyTorch's row-major order while the loop runs along the row; the edge
 * windows are summed one by one. Adaptive maxima are separable: per output
 * row, each input column's maximum over the window's rows (and the first
 * row holding it), then each window's maximum over its columns, ties going
 * to the smaller row, then the smaller column: the first maximum in
 * row-major order. A row of windows holding a NaN is redone tap by tap. */
#include "ref_pool_f32.h"

#include <math.h>

#include "ref_isa.h"
#include "ref_window.h"

/* The output positions [*lo, *hi) along one dim whose windows (k taps from
 * o * stride - pad) lie wholly inside [0, size). */
static inline void interior(int64_t size, int64_t out, int64_t k,
                            int64_t stride, int64_t pad, int64_t *lo,
                            int64_t *hi) {
  int64_t a = (pad + stride - 1) / stride;
  int64_t b = size - k + pad < 0 ? 0 : (size - k + pad) / stride + 1;
  *hi = b < out ? b : out;
  *lo = a < *hi ? a : *hi;
}

/* A window's divisor: the override, else its size counting the padding or
 * not. */
static inline float avg_divisor(const ref_pool_plane_t *p, int64_t padded,
                                int64_t inside) {
  return (float)(p->divisor ? p->divisor : p->include_pad ? padded : inside);
}

/* The window clipped to [0, size) along one dim: [*lo, *hi), and its size
 * counting the padding (up to size + pad). */
static inline int64_t avg_span(int64_t o, int64_t size, int64_t k,
                               int64_t stride, int64_t pad, int64_t *lo,
                               int64_t *hi) {
  int64_t start = o * stride - pad, end = start + k;
  end = end < size + pad ? end : size + pad;
  *lo = start > 0 ? start : 0;
  *hi = end < size ? end : size;
  return end - start;
}

/* Adds `taps` taps from x into o[0 .. n): o[j] += x[j * stride + t]. */
static inline void add_taps(float *o, const float *x, int64_t n, int64_t stride,
                            int64_t taps) {
  for (int64_t t = 0; t < taps; t++, x++)
    if (stride == 1)
      for (int64_t j = 0; j < n; j++)
        o[j] += x[j];
    else if (stride == 2)
      for (int64_t j = 0; j < n; j++)
        o[j] += x[2 * j];
    else
      for (int64_t j = 0; j < n; j++)
        o[j] += x[j * stride];
}

REF_ISA_BODY void ref_avg_pool_plane_f32_body(const ref_pool_plane_t *p,
                                              const float *in, float *out) {
  int64_t lo, hi;
  interior(p->w, p->ow, p->k[1], p->stride[1], p->pad[1], &lo, &hi);
  for (int64_t i = 0; i < p->oh; i++) {
    int64_t h0, h1;
    int64_t pool_h =
        avg_span(i, p->h, p->k[0], p->stride[0], p->pad[0], &h0, &h1);
    float *o = out + i * p->out_row;
    for (int64_t j = 0; j < p->ow; j++) {
      if (j == lo && hi > lo) { /* the inside windows, as one row */
        for (int64_t q = lo; q < hi; q++)
          o[q] = 0.0f;
        int64_t first = lo * p->stride[1] - p->pad[1];
        for (int64_t y = h0; y < h1; y++)
          add_taps(o + lo, in + y * p->in_row + first, hi - lo, p->stride[1],
                   p->k[1]);
        float d = avg_divisor(p, pool_h * p->k[1], (h1 - h0) * p->k[1]);
        for (int64_t q = lo; q < hi; q++)
          o[q] = o[q] / d;
        j = hi - 1;
        continue;
      }
      int64_t w0, w1;
      int64_t pool_w =
          avg_span(j, p->w, p->k[1], p->stride[1], p->pad[1], &w0, &w1);
      float sum = 0.0f;
      for (int64_t y = h0; y < h1; y++)
        for (int64_t x = w0; x < w1; x++)
          sum += in[y * p->in_row + x];
      o[j] = sum / avg_divisor(p, pool_h * pool_w, (h1 - h0) * (w1 - w0));
    }
  }
}
REF_ISA_DISPATCH_VOID(, ref_avg_pool_plane_f32,
                      (const ref_pool_plane_t *p, const float *in, float *out),
                      (p, in, out))

/* Output row i of adaptive max pooling tap by tap, PyTorch's loop: a tap
 * replaces the maximum when larger or NaN. */
static inline void max_row_exact(const ref_pool_plane_t *p, const float *in,
                                 int64_t i, float *out, int64_t *indices) {
  int64_t h0 = ref_adaptive_start(i, p->h, p->oh);
  int64_t h1 = ref_adaptive_end(i, p->h, p->oh);
  for (int64_t j = 0; j < p->ow; j++) {
    int64_t w0 = ref_adaptive_start(j, p->w, p->ow);
    int64_t w1 = ref_adaptive_end(j, p->w, p->ow);
    int64_t at = h0 * p->w + w0;
    float best = -INFINITY;
    for (int64_t y = h0; y < h1; y++)
      for (int64_t x = w0; x < w1; x++) {
        float v = in[y * p->in_row + x];
        if (v > best || isnan(v)) {
          best = v;
          at = y * p->w + x;
        }
      }
    out[i * p->out_row + j] = best;
    if (indices)
      indices[i * p->index_row + j] = at;
  }
}

/* 4 floats or int32s (every x86-64 has them as such); the unaligned form
 * for loads and stores. */
typedef float vf4 __attribute__((vector_size(16)));
typedef int32_t vi4 __attribute__((vector_size(16)));
typedef float vf4u __attribute__((vector_size(16), aligned(4)));
typedef int32_t vi4u __attribute__((vector_size(16), aligned(4)));

/* One row's update of 4 columns' maxima m and their first rows r. */
static inline void take_larger(vf4 v, int32_t y, vf4 *m, vi4 *r, vi4 *nan) {
  vi4 take = v > *m;
  *m = (vf4)(((vi4)v & take) | ((vi4)*m & ~take));
  *r = (((vi4){0} + y) & take) | (*r & ~take);
  *nan |= v != v;
}

/* Columns [x0, x0 + 8) of rows [h0, h1): each column's maximum and the
 * first row holding it, as two independent 4-lane chains kept in
 * registers (a select written back to memory would be a masked store);
 * returns whether a NaN was read. */
static inline bool column_max8(const float *in, int64_t in_row, int64_t h0,
                               int64_t h1, int64_t x0, float *col_max,
                               int32_t *col_row) {
  const float *top = in + h0 * in_row + x0;
  vf4 m0 = *(const vf4u *)top, m1 = *(const vf4u *)(top + 4);
  vi4 r0 = (vi4){0} + (int32_t)h0, r1 = r0;
  vi4 nan = (m0 != m0) | (m1 != m1);
  for (int64_t y = h0 + 1; y < h1; y++) {
    const float *row = in + y * in_row + x0;
    take_larger(*(const vf4u *)row, (int32_t)y, &m0, &r0, &nan);
    take_larger(*(const vf4u *)(row + 4), (int32_t)y, &m1, &r1, &nan);
  }
  *(vf4u *)(col_max + x0) = m0;
  *(vf4u *)(col_max + x0 + 4) = m1;
  *(vi4u *)(col_row + x0) = r0;
  *(vi4u *)(col_row + x0 + 4) = r1;
  return (nan[0] | nan[1] | nan[2] | nan[3]) != 0;
}

REF_ISA_BODY void ref_adaptive_max_plane_f32_body(const ref_pool_plane_t *p,
                                                  const float *in, float *out,
                                                  int64_t *indices) {
  float col_max[REF_POOL_F32_MAX_W];
  int32_t col_row[REF_POOL_F32_MAX_W];
  int64_t w = p->w;
  for (int64_t i = 0; i < p->oh; i++) {
    int64_t h0 = ref_adaptive_start(i, p->h, p->oh);
    int64_t h1 = ref_adaptive_end(i, p->h, p->oh);
    bool nan = false;
    int64_t x = 0;
    for (; x + 8 <= w; x += 8)
      nan |= column_max8(in, p->in_row, h0, h1, x, col_max, col_row);
    for (; x < w; x++) {
      col_max[x] = in[h0 * p->in_row + x];
      col_row[x] = (int32_t)h0;
      for (int64_t y = h0; y < h1; y++) {
        float v = in[y * p->in_row + x];
        nan |= v != v;
        if (v > col_max[x]) {
          col_max[x] = v;
          col_row[x] = (int32_t)y;
        }
      }
    }
    if (nan) {
      max_row_exact(p, in, i, out, indices);
      continue;
    }
    for (int64_t j = 0; j < p->ow; j++) {
      int64_t w0 = ref_adaptive_start(j, w, p->ow);
      int64_t w1 = ref_adaptive_end(j, w, p->ow);
      float best = col_max[w0];
      int64_t best_row = col_row[w0], best_col = w0;
      for (int64_t x = w0 + 1; x < w1; x++)
        if (col_max[x] > best ||
            (col_max[x] == best && col_row[x] < best_row)) {
          best = col_max[x];
          best_row = col_row[x];
          best_col = x;
        }
      /* the tap itself: a tie of -0 and +0 keeps the first one's sign */
      out[i * p->out_row + j] = in[best_row * p->in_row + best_col];
      if (indices)
        indices[i * p->index_row + j] = best_row * w + best_col;
    }
  }
}
REF_ISA_DISPATCH_VOID(, ref_adaptive_max_plane_f32,
                      (const ref_pool_plane_t *p, const float *in, float *out,
                       int64_t *indices),
                      (p, in, out, indices))
