/* The reference library's vectorised float32 kernels against plain loops
 * written here: avg_pool2d's row sums (every float sum in PyTorch's tap
 * order: equal in every bit) at the edges, with and without the padding
 * counted, a divisor given and ceil_mode; adaptive_max_pool2d's first
 * maximum in row-major order (ties across rows and columns, -0 before +0)
 * and last NaN; nearest upsampling by 2 and by other factors; and the
 * direct convolution (unpadded, strided, grouped, dilated, 3-d), the
 * pointwise one (1x1x1 kernels, padded or in place), the tiled
 * GEMM of grouped convolutions and the strided im2col of the backward,
 * within float rounding of a double loop. CTest runs it once per
 * instruction set (BACKPLANE_OPS_ISA). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "ops_env.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;
typedef diopiSize_t Z;

static Z sizes(const int64_t *data, int64_t len) {
  return (Z){data, len};
}

/* Pseudo-random values in [-1, 1), some repeated: ties for the maxima. */
static void fill(float *x, int64_t n, uint32_t seed) {
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = (float)((seed >> 8) % 64) / 32.0f - 1.0f;
  }
}

static void sync_ok(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* One avg_pool2d configuration. */
typedef struct avg_case {
  int64_t k[2], s[2], p[2];
  bool ceil_mode, include_pad;
  int64_t divisor; /* 0: none */
} avg_case_t;

static int64_t pooled(int64_t in, int64_t k, int64_t s, int64_t p,
                      bool ceil_mode) {
  int64_t o = (in + 2 * p - k + (ceil_mode ? s - 1 : 0)) / s + 1;
  if (ceil_mode && (o - 1) * s >= in + p)
    o--;
  return o;
}

static void check_avg(ops_env_t *e, const avg_case_t *c) {
  enum { N = 2, C = 3, H = 11, W = 37 };
  ops_made_t m = {.e = e};
  int64_t oh = pooled(H, c->k[0], c->s[0], c->p[0], c->ceil_mode),
          ow = pooled(W, c->k[1], c->s[1], c->p[1], c->ceil_mode);
  const int64_t in_shape[4] = {N, C, H, W}, out_shape[4] = {N, C, oh, ow};
  float *x, *y;
  T in = ops_made_tensor(&m, diopi_dtype_float32, 4, in_shape, NULL, 0,
                         (void **)&x);
  T out = ops_made_tensor(&m, diopi_dtype_float32, 4, out_shape, NULL, 0,
                          (void **)&y);
  fill(x, N * C * H * W, 7);
  __typeof__(&diopiAvgPool2d) avg = ops_env_find(e, "diopiAvgPool2d");
  assert_int_equal(avg(e->ctx, out, in, sizes(c->k, 2), sizes(c->s, 2),
                       sizes(c->p, 2), c->ceil_mode, c->include_pad,
                       c->divisor ? &c->divisor : NULL),
                   diopiSuccess);
  sync_ok(e);
  for (int64_t pl = 0; pl < N * C; pl++)
    for (int64_t i = 0; i < oh; i++)
      for (int64_t j = 0; j < ow; j++) {
        int64_t h0 = i * c->s[0] - c->p[0], w0 = j * c->s[1] - c->p[1];
        int64_t h1 = h0 + c->k[0] < H + c->p[0] ? h0 + c->k[0] : H + c->p[0];
        int64_t w1 = w0 + c->k[1] < W + c->p[1] ? w0 + c->k[1] : W + c->p[1];
        int64_t padded = (h1 - h0) * (w1 - w0);
        h0 = h0 < 0 ? 0 : h0;
        w0 = w0 < 0 ? 0 : w0;
        h1 = h1 < H ? h1 : H;
        w1 = w1 < W ? w1 : W;
        float sum = 0.0f;
        for (int64_t y0 = h0; y0 < h1; y0++)
          for (int64_t x0 = w0; x0 < w1; x0++)
            sum += x[(pl * H + y0) * W + x0];
        int64_t divisor = c->divisor       ? c->divisor
                          : c->include_pad ? padded
                                           : (h1 - h0) * (w1 - w0);
        float want = sum / (float)divisor, got = y[(pl * oh + i) * ow + j];
        if (memcmp(&want, &got, sizeof want))
          fail_msg("plane %lld (%lld, %lld): %.9g, expected %.9g",
                   (long long)pl, (long long)i, (long long)j, got, want);
      }
  ops_made_destroy(&m);
}

static void avg_pool2d_rows_sum_in_pytorchs_order(void **state) {
  static const avg_case_t cases[] = {
      {{3, 3}, {2, 2}, {1, 1}, false, true, 0},
      {{3, 3}, {1, 1}, {1, 1}, false, false, 0},
      {{2, 2}, {3, 3}, {0, 0}, true, true, 0},
      {{3, 3}, {2, 2}, {1, 1}, true, false, 0},
      {{3, 3}, {2, 2}, {1, 1}, false, true, 5},
      {{2, 5}, {1, 2}, {1, 2}, false, true, 0},
      {{1, 4}, {1, 4}, {0, 0}, false, true, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    check_avg(*state, &cases[i]);
}

/* PyTorch's adaptive max over one window: a tap replaces the maximum when
 * larger or NaN; the index starts at the window's first tap. */
static void adaptive_max_of(const float *x, int64_t h, int64_t w, int64_t oh,
                            int64_t ow, int64_t i, int64_t j, float *value,
                            int64_t *index) {
  int64_t h0 = i * h / oh, h1 = ((i + 1) * h + oh - 1) / oh;
  int64_t w0 = j * w / ow, w1 = ((j + 1) * w + ow - 1) / ow;
  *value = -INFINITY;
  *index = h0 * w + w0;
  for (int64_t y = h0; y < h1; y++)
    for (int64_t x0 = w0; x0 < w1; x0++)
      if (x[y * w + x0] > *value || isnan(x[y * w + x0])) {
        *value = x[y * w + x0];
        *index = y * w + x0;
      }
}

static void
adaptive_max_pool2d_takes_the_first_maximum_and_last_nan(void **state) {
  ops_env_t *e = *state;
  enum { C = 3, H = 12, W = 21, OH = 3, OW = 2 };
  ops_made_t m = {.e = e};
  const int64_t in_shape[3] = {C, H, W}, out_shape[3] = {C, OH, OW},
                size[2] = {OH, OW};
  float *x, *y, *y2;
  int64_t *at;
  T in = ops_made_tensor(&m, diopi_dtype_float32, 3, in_shape, NULL, 0,
                         (void **)&x);
  T out = ops_made_tensor(&m, diopi_dtype_float32, 3, out_shape, NULL, 0,
                          (void **)&y);
  T out2 = ops_made_tensor(&m, diopi_dtype_float32, 3, out_shape, NULL, 0,
                           (void **)&y2);
  T index = ops_made_tensor(&m, diopi_dtype_int64, 3, out_shape, NULL, 0,
                            (void **)&at);
  fill(x, C * H * W, 11);
  /* plane 0, window (0, 0) (rows 0-3, columns 0-10): 5 at (2, 1) and at
   * (1, 9): (1, 9) comes first in row-major order, not the first column */
  x[2 * W + 1] = 5.0f;
  x[1 * W + 9] = 5.0f;
  /* window (1, 1) (rows 4-7, columns 10-20): NaN at (5, 12) and (6, 11):
   * the last one */
  x[5 * W + 12] = NAN;
  x[6 * W + 11] = NAN;
  /* plane 1, window (2, 0) (rows 8-11, columns 0-10): only zeros and
   * negatives, -0 first (at (8, 4)), +0 later (at (8, 2)... (9, 0)) */
  float *p1 = x + H * W;
  for (int64_t y0 = 8; y0 < 12; y0++)
    for (int64_t x0 = 0; x0 < 11; x0++)
      p1[y0 * W + x0] = -1.0f;
  p1[8 * W + 4] = -0.0f;
  p1[9 * W + 0] = 0.0f;
  p1[10 * W + 3] = 0.0f;
  __typeof__(&diopiAdaptiveMaxPool2d) plain =
      ops_env_find(e, "diopiAdaptiveMaxPool2d");
  __typeof__(&diopiAdaptiveMaxPool2dWithIndices) with_indices =
      ops_env_find(e, "diopiAdaptiveMaxPool2dWithIndices");
  assert_int_equal(plain(e->ctx, out, in, sizes(size, 2)), diopiSuccess);
  assert_int_equal(with_indices(e->ctx, out2, index, in, sizes(size, 2)),
                   diopiSuccess);
  sync_ok(e);
  for (int64_t c = 0; c < C; c++)
    for (int64_t i = 0; i < OH; i++)
      for (int64_t j = 0; j < OW; j++) {
        float want;
        int64_t want_at, o = (c * OH + i) * OW + j;
        adaptive_max_of(x + c * H * W, H, W, OH, OW, i, j, &want, &want_at);
        assert_int_equal(at[o], want_at);
        assert_memory_equal(&y[o], &want, sizeof want);
        assert_memory_equal(&y2[o], &want, sizeof want);
      }
  assert_int_equal(at[0], 1 * W + 9);
  assert_int_equal(at[3], 6 * W + 11);
  assert_true(signbit(y[OH * OW + 4]) && y[OH * OW + 4] == 0.0f);
  ops_made_destroy(&m);
}

static void upsample_nearest_copies_each_source(ops_env_t *e, int64_t h,
                                                int64_t w, int64_t oh,
                                                int64_t ow) {
  ops_made_t m = {.e = e};
  const int64_t in_shape[4] = {1, 3, h, w}, out_shape[4] = {1, 3, oh, ow},
                size[2] = {oh, ow};
  float *x, *y;
  T in = ops_made_tensor(&m, diopi_dtype_float32, 4, in_shape, NULL, 0,
                         (void **)&x);
  T out = ops_made_tensor(&m, diopi_dtype_float32, 4, out_shape, NULL, 0,
                          (void **)&y);
  fill(x, 3 * h * w, 3);
  for (int64_t i = 0; i < 3 * h * w; i++)
    x[i] += (float)i; /* every value distinct */
  __typeof__(&diopiUpsampleNearest) up =
      ops_env_find(e, "diopiUpsampleNearest");
  assert_int_equal(up(e->ctx, out, in, sizes(size, 2)), diopiSuccess);
  sync_ok(e);
  for (int64_t c = 0; c < 3; c++)
    for (int64_t i = 0; i < oh; i++)
      for (int64_t j = 0; j < ow; j++) {
        /* PyTorch's float scale, floored, clamped to the input */
        int64_t si = (int64_t)floorf((float)i * ((float)h / (float)oh));
        int64_t sj = (int64_t)floorf((float)j * ((float)w / (float)ow));
        si = si < h - 1 ? si : h - 1;
        sj = sj < w - 1 ? sj : w - 1;
        assert_true(y[(c * oh + i) * ow + j] == x[(c * h + si) * w + sj]);
      }
  ops_made_destroy(&m);
}

static void upsample_nearest_doubles_and_scales(void **state) {
  upsample_nearest_copies_each_source(*state, 5, 13, 10, 26);
  upsample_nearest_copies_each_source(*state, 5, 13, 12, 20);
  upsample_nearest_copies_each_source(*state, 6, 9, 6, 18);
}

/* One convolution (2-d: d = kd = 1 with a 4-d call), checked against a
 * double loop: forward always, grad_weight when `backward`. */
typedef struct conv_case {
  int64_t n, cin, d, h, w, cout, groups, kd, kh, kw;
  int64_t stride[3], pad[3], dil[3];
  bool three_d, bias, backward;
} conv_case_t;

static int64_t conv_out(int64_t in, int64_t k, int64_t s, int64_t p,
                        int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

/* The input index tap (ci, a, i, j) of output (n, z, y, x) reads, or -1
 * in the padding. */
static int64_t tap(const conv_case_t *c, int64_t n, int64_t ci, int64_t z,
                   int64_t y, int64_t x, int64_t a, int64_t i, int64_t j) {
  int64_t zz = z * c->stride[0] - c->pad[0] + a * c->dil[0];
  int64_t yy = y * c->stride[1] - c->pad[1] + i * c->dil[1];
  int64_t xx = x * c->stride[2] - c->pad[2] + j * c->dil[2];
  if (zz < 0 || zz >= c->d || yy < 0 || yy >= c->h || xx < 0 || xx >= c->w)
    return -1;
  return (((n * c->cin + ci) * c->d + zz) * c->h + yy) * c->w + xx;
}

static void check_conv(ops_env_t *e, const conv_case_t *c) {
  ops_made_t m = {.e = e};
  int64_t od = conv_out(c->d, c->kd, c->stride[0], c->pad[0], c->dil[0]),
          oh = conv_out(c->h, c->kh, c->stride[1], c->pad[1], c->dil[1]),
          ow = conv_out(c->w, c->kw, c->stride[2], c->pad[2], c->dil[2]);
  int64_t cg = c->cin / c->groups, og = c->cout / c->groups;
  int64_t x_shape[5] = {c->n, c->cin, c->d, c->h, c->w},
          w_shape[5] = {c->cout, cg, c->kd, c->kh, c->kw},
          y_shape[5] = {c->n, c->cout, od, oh, ow};
  size_t nd = c->three_d ? 5 : 4;
  if (!c->three_d) { /* drop the depth dim */
    memmove(x_shape + 2, x_shape + 3, 2 * sizeof *x_shape);
    memmove(w_shape + 2, w_shape + 3, 2 * sizeof *w_shape);
    memmove(y_shape + 2, y_shape + 3, 2 * sizeof *y_shape);
  }
  float *x, *wt, *b, *y, *gy, *gx, *gw;
  T in = ops_made_tensor(&m, diopi_dtype_float32, nd, x_shape, NULL, 0,
                         (void **)&x);
  T weight = ops_made_tensor(&m, diopi_dtype_float32, nd, w_shape, NULL, 0,
                             (void **)&wt);
  T bias = ops_made_tensor(&m, diopi_dtype_float32, 1, &c->cout, NULL, 0,
                           (void **)&b);
  T out = ops_made_tensor(&m, diopi_dtype_float32, nd, y_shape, NULL, 0,
                          (void **)&y);
  T grad_out = ops_made_tensor(&m, diopi_dtype_float32, nd, y_shape, NULL, 0,
                               (void **)&gy);
  T grad_in = ops_made_tensor(&m, diopi_dtype_float32, nd, x_shape, NULL, 0,
                              (void **)&gx);
  T grad_w = ops_made_tensor(&m, diopi_dtype_float32, nd, w_shape, NULL, 0,
                             (void **)&gw);
  int64_t xn = c->n * c->cin * c->d * c->h * c->w,
          wn = c->cout * cg * c->kd * c->kh * c->kw,
          yn = c->n * c->cout * od * oh * ow;
  fill(x, xn, 5);
  fill(wt, wn, 9);
  fill(b, c->cout, 13);
  fill(gy, yn, 17);
  int64_t first = c->three_d ? 0 : 1, dims = c->three_d ? 3 : 2;
  Z stride = sizes(c->stride + first, dims), pad = sizes(c->pad + first, dims),
    dil = sizes(c->dil + first, dims);
  if (c->three_d) {
    __typeof__(&diopiConvolution3d) conv =
        ops_env_find(e, "diopiConvolution3d");
    assert_int_equal(conv(e->ctx, out, in, weight, c->bias ? bias : NULL,
                          stride, pad, dil, c->groups),
                     diopiSuccess);
  } else {
    __typeof__(&diopiConvolution2d) conv =
        ops_env_find(e, "diopiConvolution2d");
    assert_int_equal(conv(e->ctx, out, in, weight, c->bias ? bias : NULL,
                          stride, pad, dil, c->groups),
                     diopiSuccess);
  }
  if (c->backward) {
    __typeof__(&diopiConvolution2dBackward) back =
        ops_env_find(e, c->three_d ? "diopiConvolution3dBackward"
                                   : "diopiConvolution2dBackward");
    assert_int_equal(back(e->ctx, grad_in, grad_w, NULL, grad_out, in, weight,
                          NULL, stride, pad, dil, c->groups),
                     diopiSuccess);
  }
  sync_ok(e);
  int64_t taps = c->kd * c->kh * c->kw, at = 0;
  for (int64_t n = 0; n < c->n; n++)
    for (int64_t o = 0; o < c->cout; o++)
      for (int64_t z = 0; z < od; z++)
        for (int64_t yy = 0; yy < oh; yy++)
          for (int64_t xx = 0; xx < ow; xx++, at++) {
            double sum = c->bias ? b[o] : 0, scale = 0;
            int64_t g = o / og;
            for (int64_t ci = 0; ci < cg; ci++)
              for (int64_t t = 0; t < taps; t++) {
                int64_t a = t / (c->kh * c->kw), i = t / c->kw % c->kh,
                        j = t % c->kw;
                int64_t k = tap(c, n, g * cg + ci, z, yy, xx, a, i, j);
                double w = wt[(o * cg + ci) * taps + t];
                sum += k < 0 ? 0 : w * x[k];
                scale += k < 0 ? 0 : fabs(w * x[k]);
              }
            if (fabs(y[at] - sum) > 1e-5 * (scale + 1))
              fail_msg("out %lld: %.7g, expected %.7g", (long long)at, y[at],
                       sum);
          }
  for (int64_t o = 0; c->backward && o < c->cout; o++)
    for (int64_t ci = 0; ci < cg; ci++)
      for (int64_t t = 0; t < taps; t++) {
        int64_t a = t / (c->kh * c->kw), i = t / c->kw % c->kh, j = t % c->kw;
        double sum = 0, scale = 0;
        for (int64_t n = 0; n < c->n; n++)
          for (int64_t z = 0; z < od; z++)
            for (int64_t yy = 0; yy < oh; yy++)
              for (int64_t xx = 0; xx < ow; xx++) {
                int64_t k = tap(c, n, o / og * cg + ci, z, yy, xx, a, i, j);
                double g =
                    gy[(((n * c->cout + o) * od + z) * oh + yy) * ow + xx];
                sum += k < 0 ? 0 : g * x[k];
                scale += k < 0 ? 0 : fabs(g * x[k]);
              }
        float got = gw[(o * cg + ci) * taps + t];
        if (fabs(got - sum) > 1e-5 * (scale + 1))
          fail_msg("grad_weight (%lld, %lld, %lld): %.7g, expected %.7g",
                   (long long)o, (long long)ci, (long long)t, got, sum);
      }
  ops_made_destroy(&m);
}

static void strided_and_grouped_convolutions_match_a_plain_loop(void **state) {
  static const conv_case_t cases[] = {
      /* direct: stride 3, 2 groups, 1x3x3 over depth (conv3d_k133's) */
      {1,
       8,
       4,
       14,
       14,
       10,
       2,
       1,
       3,
       3,
       {3, 3, 3},
       {0},
       {1, 1, 1},
       true,
       true,
       true},
      /* direct 2-d: stride 2, dilation 2, 5 channels a group, 7 wide */
      {2,
       6,
       1,
       11,
       19,
       10,
       2,
       1,
       3,
       2,
       {1, 2, 2},
       {0},
       {1, 2, 2},
       false,
       true,
       true},
      /* direct 2-d, one group, stride (1, 2), 37 channels: panels with a
       * partial last one */
      {1,
       3,
       1,
       9,
       20,
       37,
       1,
       1,
       2,
       3,
       {1, 1, 2},
       {0},
       {1, 1, 1},
       false,
       false,
       true},
      /* padded and grouped: im2col and the tiled GEMM; 6 channels a group
       * (a partial tile of rows), a 70-column product (a partial block) */
      {1,
       4,
       1,
       7,
       10,
       12,
       2,
       1,
       3,
       3,
       {1, 1, 1},
       {0, 1, 1},
       {1, 1, 1},
       false,
       true,
       true},
      /* 3-d, padded in depth and width, grouped, strided in depth */
      {1,
       4,
       6,
       5,
       6,
       6,
       2,
       3,
       1,
       2,
       {2, 1, 1},
       {1, 0, 1},
       {1, 1, 2},
       true,
       true,
       true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    check_conv(*state, &cases[i]);
}

/* 1x1(x1) kernels at stride 1, each image wide enough for a GEMM of its
 * own (the pointwise path): padded in depth and width with dilation
 * (conv3d_k111's), unpadded with bias and groups (the product in place),
 * two images, padded in height with groups and no bias. */
static void pointwise_convolutions_match_a_plain_loop(void **state) {
  static const conv_case_t cases[] = {
      {.n = 1,
       .cin = 5,
       .d = 3,
       .h = 4,
       .w = 7,
       .cout = 6,
       .groups = 1,
       .kd = 1,
       .kh = 1,
       .kw = 1,
       .stride = {1, 1, 1},
       .pad = {1, 0, 1},
       .dil = {2, 1, 1},
       .three_d = true,
       .bias = true,
       .backward = true},
      {.n = 1,
       .cin = 6,
       .d = 1,
       .h = 5,
       .w = 9,
       .cout = 9,
       .groups = 3,
       .kd = 1,
       .kh = 1,
       .kw = 1,
       .stride = {1, 1, 1},
       .pad = {0},
       .dil = {1, 1, 1},
       .bias = true},
      {.n = 2,
       .cin = 3,
       .d = 1,
       .h = 40,
       .w = 41,
       .cout = 4,
       .groups = 1,
       .kd = 1,
       .kh = 1,
       .kw = 1,
       .stride = {1, 1, 1},
       .pad = {0},
       .dil = {1, 1, 1}},
      {.n = 2,
       .cin = 4,
       .d = 2,
       .h = 20,
       .w = 30,
       .cout = 6,
       .groups = 2,
       .kd = 1,
       .kh = 1,
       .kw = 1,
       .stride = {1, 1, 1},
       .pad = {0, 1, 0},
       .dil = {1, 1, 1},
       .three_d = true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    check_conv(*state, &cases[i]);
}

/* A 1x1 convolution written into its own input (out is input): every
 * output pixel from the input's values before the call. */
static void pointwise_convolution_into_its_input(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  int64_t shape[4] = {1, 3, 30, 40}, w_shape[4] = {3, 3, 1, 1};
  enum { PLANE = 30 * 40 };
  float *x, *wt, before[3 * PLANE];
  T in =
      ops_made_tensor(&m, diopi_dtype_float32, 4, shape, NULL, 0, (void **)&x);
  T weight = ops_made_tensor(&m, diopi_dtype_float32, 4, w_shape, NULL, 0,
                             (void **)&wt);
  fill(x, 3 * PLANE, 21);
  fill(wt, 9, 23);
  memcpy(before, x, sizeof before);
  int64_t one[2] = {1, 1}, zero[2] = {0, 0};
  __typeof__(&diopiConvolution2d) conv = ops_env_find(e, "diopiConvolution2d");
  assert_int_equal(conv(e->ctx, in, in, weight, NULL, sizes(one, 2),
                        sizes(zero, 2), sizes(one, 2), 1),
                   diopiSuccess);
  sync_ok(e);
  for (int64_t o = 0; o < 3; o++)
    for (int64_t p = 0; p < PLANE; p++) {
      double sum = 0;
      for (int64_t c = 0; c < 3; c++)
        sum += (double)wt[o * 3 + c] * before[c * PLANE + p];
      if (fabs(x[o * PLANE + p] - sum) > 1e-5 * 4)
        fail_msg("out (%lld, %lld): %.7g, expected %.7g", (long long)o,
                 (long long)p, x[o * PLANE + p], sum);
    }
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(avg_pool2d_rows_sum_in_pytorchs_order,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          adaptive_max_pool2d_takes_the_first_maximum_and_last_nan,
          ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(upsample_nearest_doubles_and_scales,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          strided_and_grouped_convolutions_match_a_plain_loop, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(pointwise_convolutions_match_a_plain_loop,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(pointwise_convolution_into_its_input,
                                      ops_env_setup, ops_env_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
