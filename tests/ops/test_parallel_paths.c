/* The float32 paths that the parallel-for cuts into chunks, against plain
 * loops written here: fill (sizes around the pool's grain, a strided view),
 * a value per row broadcast over long rows (the engine's reused broadcast
 * buffer, across blocks, rows and chunks), gelu's tanh mode, max_pool2d's
 * general window (3x3, stride 2, padding 1; dilation 2) with ties, NaNs and
 * -inf, contiguous and through the generic engine (a strided view), and
 * kl_div's float loop against a double one, index_select_backward's rows. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "ops_env.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;
typedef diopiContextHandle_t CTX;

/* A fixed pseudo-random sequence in [0, 1). */
static float next_uniform(uint32_t *seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return (float)(*seed >> 8) * 0x1.0p-24f;
}

static void fill_sets_every_element_around_the_grain(void **state) {
  ops_env_t *e = *state;
  diopiError_t (*fill)(CTX, T, const diopiScalar_t *) =
      (diopiError_t(*)(CTX, T, const diopiScalar_t *))ops_env_find(e,
                                                                   "diopiFill");
  diopiScalar_t value = {.stype = diopi_dtype_float64, .fval = 1.5};
  const int64_t sizes[] = {1, 17, 32767, 32768, 32769, 65537, 262147};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    float *x;
    T t = ops_env_tensor(e, diopi_dtype_float32, 1, &sizes[s], (void **)&x);
    for (int64_t i = 0; i < sizes[s]; i++)
      x[i] = -7.0f;
    assert_int_equal(fill(e->ctx, t, &value), diopiSuccess);
    assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
    for (int64_t i = 0; i < sizes[s]; i++)
      assert_true(x[i] == 1.5f);
    bp_ops_tensor_destroy(t);
  }
  /* every other element of a buffer: the gaps keep their values */
  enum { N = 40001 };
  int64_t whole = 2 * N, half = N, stride = 2;
  float *x;
  T buffer = ops_env_tensor(e, diopi_dtype_float32, 1, &whole, (void **)&x);
  for (int64_t i = 0; i < whole; i++)
    x[i] = -7.0f;
  T view;
  assert_int_equal(bp_ops_tensor_wrap(e->device, x, diopi_dtype_float32, 1,
                                      &half, &stride, &view),
                   BP_OK);
  assert_int_equal(fill(e->ctx, view, &value), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int64_t i = 0; i < whole; i++)
    assert_true(x[i] == (i % 2 == 0 ? 1.5f : -7.0f));
  bp_ops_tensor_destroy(view);
  bp_ops_tensor_destroy(buffer);
}

/* a * b, a of `ndim` dims (rows of `cols` elements), b of as many with a
 * value for every `rows_per_value` rows (the last dim 1). */
static void check_row_broadcast(ops_env_t *e, size_t ndim, const int64_t *shape,
                                const int64_t *b_shape,
                                int64_t rows_per_value) {
  int64_t rows = 1, cols = shape[ndim - 1];
  for (size_t d = 0; d + 1 < ndim; d++)
    rows *= shape[d];
  int64_t values = rows / rows_per_value;
  float *a, *b, *out;
  T ta = ops_env_tensor(e, diopi_dtype_float32, ndim, shape, (void **)&a);
  T tb = ops_env_tensor(e, diopi_dtype_float32, ndim, b_shape, (void **)&b);
  T to = ops_env_tensor(e, diopi_dtype_float32, ndim, shape, (void **)&out);
  uint32_t seed = 7;
  for (int64_t i = 0; i < rows * cols; i++)
    a[i] = 2.0f * next_uniform(&seed) - 1.0f;
  for (int64_t r = 0; r < values; r++)
    b[r] = (float)(r + 2); /* distinct per value */
  diopiError_t (*mul)(CTX, T, CT, CT) =
      (diopiError_t(*)(CTX, T, CT, CT))ops_env_find(e, "diopiMul");
  assert_int_equal(mul(e->ctx, to, ta, tb), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) {
      float expected = a[r * cols + c] * b[r / rows_per_value];
      assert_true(out[r * cols + c] == expected);
    }
  bp_ops_tensor_destroy(ta);
  bp_ops_tensor_destroy(tb);
  bp_ops_tensor_destroy(to);
}

static void a_value_per_row_multiplies_its_own_row_only(void **state) {
  ops_env_t *e = *state;
  /* rows of 1100 (two 512 blocks and a tail), 61 rows: 67100 elements, so
   * the pool's chunks start inside rows */
  int64_t long_rows[2] = {61, 1100}, per_row[2] = {61, 1};
  check_row_broadcast(e, 2, long_rows, per_row, 1);
  /* one value for three rows in a row: (2, 3, 700) * (2, 1, 1) */
  int64_t three_rows[3] = {2, 3, 700}, per_three[3] = {2, 1, 1};
  check_row_broadcast(e, 3, three_rows, per_three, 3);
  /* short rows: 4097 rows of 9 */
  int64_t short_rows[2] = {4097, 9}, per_short_row[2] = {4097, 1};
  check_row_broadcast(e, 2, short_rows, per_short_row, 1);
}

static void gelu_tanh_mode_matches_the_double_formula(void **state) {
  ops_env_t *e = *state;
  enum { N = 40003 }; /* above the grain, an odd tail */
  int64_t shape[1] = {N};
  float *x, *y;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&x);
  T ty = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&y);
  for (int k = 0; k < N; k++)
    x[k] = -12.0f + 24.0f * (float)k / N;
  diopiError_t (*gelu)(CTX, T, CT, const char *) =
      (diopiError_t(*)(CTX, T, CT, const char *))ops_env_find(e, "diopiGelu");
  assert_int_equal(gelu(e->ctx, ty, tx, "tanh"), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int k = 0; k < N; k++) {
    double v = x[k];
    double expected =
        0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    assert_true(fabs(y[k] - expected) <= 2e-6 + 2e-6 * fabs(expected));
  }
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ty);
}

/* PyTorch's max pooling of one window, written plainly: the taps in
 * row-major order, the first maximum, the first NaN winning. */
static void plain_max_window(const float *plane, int64_t h, int64_t w,
                             int64_t oy, int64_t ox, int64_t k, int64_t stride,
                             int64_t pad, int64_t dil, float *best,
                             int64_t *at) {
  *best = -INFINITY;
  *at = -1;
  for (int64_t i = 0; i < k; i++)
    for (int64_t j = 0; j < k; j++) {
      int64_t y = oy * stride - pad + i * dil, x = ox * stride - pad + j * dil;
      if (y < 0 || y >= h || x < 0 || x >= w)
        continue;
      float v = plane[y * w + x];
      if (*at >= 0 && isnan(*best))
        return;
      if (*at < 0 || isnan(v) || v > *best) {
        *best = v;
        *at = y * w + x;
      }
    }
}

/* transposed: the input is a view with H and W swapped in memory (the
 * generic engine's case). */
static void check_max_pool(ops_env_t *e, int64_t planes, int64_t h, int64_t w,
                           int64_t k, int64_t stride, int64_t pad, int64_t dil,
                           bool transposed) {
  int64_t oh = (h + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  int64_t ow = (w + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  int64_t shape[4] = {2, planes / 2, h, w}, pooled[4] = {2, planes / 2, oh, ow};
  float *x, *max;
  int64_t *index;
  T in = ops_env_tensor(e, diopi_dtype_float32, 4, shape, (void **)&x);
  T out = ops_env_tensor(e, diopi_dtype_float32, 4, pooled, (void **)&max);
  T at = ops_env_tensor(e, diopi_dtype_int64, 4, pooled, (void **)&index);
  uint32_t seed = 11;
  for (int64_t i = 0; i < planes * h * w; i++) {
    float u = next_uniform(&seed);
    /* 17 levels: ties are common; a few NaNs and -infs */
    x[i] = u < 0.004f ? NAN : u < 0.008f ? -INFINITY : (float)(int)(u * 17.0f);
  }
  /* the values as the op sees them: x itself, or x's planes transposed */
  float *logical = malloc(sizeof(float) * (size_t)(planes * h * w));
  assert_non_null(logical);
  for (int64_t pl = 0; pl < planes; pl++)
    for (int64_t y = 0; y < h; y++)
      for (int64_t c = 0; c < w; c++)
        logical[(pl * h + y) * w + c] =
            transposed ? x[(pl * w + c) * h + y] : x[(pl * h + y) * w + c];
  T view = in;
  int64_t strides[4] = {planes / 2 * h * w, h * w, 1, h};
  if (transposed)
    assert_int_equal(bp_ops_tensor_wrap(e->device, x, diopi_dtype_float32, 4,
                                        shape, strides, &view),
                     BP_OK);
  const int64_t kk[2] = {k, k}, ss[2] = {stride, stride}, pp[2] = {pad, pad},
                dd[2] = {dil, dil};
  diopiSize_t ks = {kk, 2}, st = {ss, 2}, pd = {pp, 2}, dl = {dd, 2};
  diopiError_t (*fn)(CTX, T, T, CT, diopiSize_t, diopiSize_t, diopiSize_t,
                     diopiSize_t, bool) =
      (diopiError_t(*)(CTX, T, T, CT, diopiSize_t, diopiSize_t, diopiSize_t,
                       diopiSize_t,
                       bool))ops_env_find(e, "diopiMaxPool2dWithIndices");
  assert_int_equal(fn(e->ctx, out, at, view, ks, st, pd, dl, false),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int64_t pl = 0; pl < planes; pl++)
    for (int64_t oy = 0; oy < oh; oy++)
      for (int64_t ox = 0; ox < ow; ox++) {
        float best;
        int64_t where;
        plain_max_window(logical + pl * h * w, h, w, oy, ox, k, stride, pad,
                         dil, &best, &where);
        int64_t o = (pl * oh + oy) * ow + ox;
        assert_int_equal(index[o], where);
        if (isnan(best))
          assert_true(isnan(max[o]));
        else
          assert_true(max[o] == best);
      }
  free(logical);
  if (transposed)
    bp_ops_tensor_destroy(view);
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(out);
  bp_ops_tensor_destroy(at);
}

static void max_pool_general_window_matches_a_plain_loop(void **state) {
  ops_env_t *e = *state;
  check_max_pool(e, 32, 67, 65, 3, 2, 1, 1, false); /* the pool splits */
  check_max_pool(e, 4, 13, 11, 3, 2, 1, 2, false);  /* dilated */
  check_max_pool(e, 2, 9, 10, 3, 1, 0, 1, false);   /* stride 1 */
  /* strided views: the generic engine (planes as volumes of depth 1) */
  check_max_pool(e, 32, 67, 65, 3, 2, 1, 1, true);
  check_max_pool(e, 4, 13, 11, 3, 2, 1, 2, true);
}

/* float64 goes through the generic engine both ways: the forward's indices
 * as a plain loop finds them (ties, a NaN), the backward's sums at them
 * (overlapping windows share elements). */
static void max_pool_of_float64_forward_and_backward(void **state) {
  ops_env_t *e = *state;
  enum { H = 7, W = 6, OH = 4, OW = 3 }; /* 3x3, stride 2, padding 1 */
  int64_t shape[4] = {1, 2, H, W}, pooled[4] = {1, 2, OH, OW};
  double *x, *max, *go, *gi;
  int64_t *index;
  T in = ops_env_tensor(e, diopi_dtype_float64, 4, shape, (void **)&x);
  T out = ops_env_tensor(e, diopi_dtype_float64, 4, pooled, (void **)&max);
  T at = ops_env_tensor(e, diopi_dtype_int64, 4, pooled, (void **)&index);
  T tgo = ops_env_tensor(e, diopi_dtype_float64, 4, pooled, (void **)&go);
  T tgi = ops_env_tensor(e, diopi_dtype_float64, 4, shape, (void **)&gi);
  for (int i = 0; i < 2 * H * W; i++)
    x[i] = (double)((i * 7) % 5); /* ties */
  x[H * W + 8] = NAN;
  for (int i = 0; i < 2 * OH * OW; i++)
    go[i] = 1.0 + i;
  const int64_t three[2] = {3, 3}, two[2] = {2, 2}, one[2] = {1, 1};
  diopiSize_t k = {three, 2}, st = {two, 2}, pd = {one, 2}, dl = {one, 2};
  diopiError_t (*forward)(CTX, T, T, CT, diopiSize_t, diopiSize_t, diopiSize_t,
                          diopiSize_t, bool) =
      (diopiError_t(*)(CTX, T, T, CT, diopiSize_t, diopiSize_t, diopiSize_t,
                       diopiSize_t,
                       bool))ops_env_find(e, "diopiMaxPool2dWithIndices");
  diopiError_t (*backward)(CTX, T, CT, CT, diopiSize_t, diopiSize_t,
                           diopiSize_t, diopiSize_t, bool, CT) =
      (diopiError_t(*)(CTX, T, CT, CT, diopiSize_t, diopiSize_t, diopiSize_t,
                       diopiSize_t, bool,
                       CT))ops_env_find(e, "diopiMaxPool2dBackward");
  assert_int_equal(forward(e->ctx, out, at, in, k, st, pd, dl, false),
                   diopiSuccess);
  assert_int_equal(backward(e->ctx, tgi, tgo, in, k, st, pd, dl, false, at),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  double expected_gi[2 * H * W] = {0};
  float plane[H * W];
  for (int pl = 0; pl < 2; pl++) {
    for (int i = 0; i < H * W; i++)
      plane[i] = (float)x[pl * H * W + i];
    for (int oy = 0; oy < OH; oy++)
      for (int ox = 0; ox < OW; ox++) {
        float best;
        int64_t where;
        plain_max_window(plane, H, W, oy, ox, 3, 2, 1, 1, &best, &where);
        int o = (pl * OH + oy) * OW + ox;
        assert_int_equal(index[o], where);
        assert_true(isnan(best) ? isnan(max[o]) : max[o] == best);
        expected_gi[pl * H * W + where] += go[o];
      }
  }
  for (int i = 0; i < 2 * H * W; i++)
    assert_true(gi[i] == expected_gi[i]);
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(out);
  bp_ops_tensor_destroy(at);
  bp_ops_tensor_destroy(tgo);
  bp_ops_tensor_destroy(tgi);
}

static void kl_div_float_loop_matches_a_double_loop(void **state) {
  ops_env_t *e = *state;
  enum { ROWS = 3, COLS = 30011 }; /* above the loss engine's grain */
  int64_t shape[2] = {ROWS, COLS}, scalar_shape[1] = {1};
  float *x, *t, *loss, *sum;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T tt = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&t);
  T tl = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&loss);
  T ts = ops_env_tensor(e, diopi_dtype_float32, 0, scalar_shape, (void **)&sum);
  uint32_t seed = 5;
  double expected_sum = 0;
  for (int64_t i = 0; i < ROWS * COLS; i++) {
    x[i] = -5.0f * next_uniform(&seed);
    t[i] = i % 13 == 0 ? 0.0f : next_uniform(&seed);
    double target = t[i];
    expected_sum += (target == 0 ? 0 : target * log(target)) - target * x[i];
  }
  diopiError_t (*kl)(CTX, T, CT, CT, diopiReduction_t, bool) = (diopiError_t(*)(
      CTX, T, CT, CT, diopiReduction_t, bool))ops_env_find(e, "diopiKLDivLoss");
  assert_int_equal(kl(e->ctx, tl, tx, tt, ReductionNone, false), diopiSuccess);
  assert_int_equal(kl(e->ctx, ts, tx, tt, ReductionMean, false), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int64_t i = 0; i < ROWS * COLS; i++) {
    double target = t[i];
    double expected = (target == 0 ? 0 : target * log(target)) - target * x[i];
    assert_true(fabs(loss[i] - expected) <= 1e-6 + 1e-6 * fabs(expected));
  }
  double mean = expected_sum / (ROWS * COLS);
  assert_true(fabs(*sum - mean) <= 1e-6 * fabs(mean));
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(tt);
  bp_ops_tensor_destroy(tl);
  bp_ops_tensor_destroy(ts);
}

/* index_select_backward's float32 path (a whole slice of a row added per
 * index, slices split across threads when there is one block) against a
 * plain float loop in the same order: repeated indices accumulate, odd
 * widths, int32 and int64 indices, dim 0 and an inner dim. */
static void check_index_select_backward(ops_env_t *e, int64_t outer,
                                        int64_t inner, int64_t dim,
                                        diopiDtype_t index_dtype) {
  enum { LEN = 7, PICKED = 6 };
  const int64_t picks[PICKED] = {3, 0, 3, 6, 3, 5};
  int64_t grad_shape[3] = {outer, PICKED, inner},
          in_shape[3] = {outer, LEN, inner}, index_shape[1] = {PICKED};
  size_t ndim = dim == 0 ? 2 : 3;
  const int64_t *gshape = dim == 0 ? grad_shape + 1 : grad_shape;
  const int64_t *ishape = dim == 0 ? in_shape + 1 : in_shape;
  int64_t n_out = (dim == 0 ? 1 : outer) * LEN * inner;
  int64_t n_grad = (dim == 0 ? 1 : outer) * PICKED * inner;
  float *grad, *out, *want = calloc((size_t)n_out, sizeof(float));
  void *index;
  T tg = ops_env_tensor(e, diopi_dtype_float32, ndim, gshape, (void **)&grad);
  T to = ops_env_tensor(e, diopi_dtype_float32, ndim, ishape, (void **)&out);
  T ti = ops_env_tensor(e, index_dtype, 1, index_shape, &index);
  uint32_t seed = 11;
  for (int64_t i = 0; i < n_grad; i++)
    grad[i] = next_uniform(&seed) - 0.5f;
  for (int64_t i = 0; i < n_out; i++)
    out[i] = 99.0f; /* every element is written */
  for (int k = 0; k < PICKED; k++) {
    if (index_dtype == diopi_dtype_int64)
      ((int64_t *)index)[k] = picks[k];
    else
      ((int32_t *)index)[k] = (int32_t)picks[k];
  }
  int64_t blocks = dim == 0 ? 1 : outer;
  for (int64_t o = 0; o < blocks; o++)
    for (int k = 0; k < PICKED; k++)
      for (int64_t i = 0; i < inner; i++)
        want[(o * LEN + picks[k]) * inner + i] +=
            grad[(o * PICKED + k) * inner + i];
  diopiError_t (*fn)(CTX, T, CT, diopiSize_t, int64_t, CT) =
      (diopiError_t(*)(CTX, T, CT, diopiSize_t, int64_t, CT))ops_env_find(
          e, "diopiIndexSelectBackward");
  diopiSize_t sizes = {ishape, (int64_t)ndim};
  assert_int_equal(fn(e->ctx, to, tg, sizes, dim == 0 ? 0 : 1, ti),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  assert_memory_equal(out, want, sizeof(float) * (size_t)n_out);
  free(want);
  bp_ops_tensor_destroy(tg);
  bp_ops_tensor_destroy(to);
  bp_ops_tensor_destroy(ti);
}

static void index_select_backward_adds_whole_rows_in_order(void **state) {
  ops_env_t *e = *state;
  check_index_select_backward(e, 1, 131, 0, diopi_dtype_int64);
  check_index_select_backward(e, 1, 257, 0, diopi_dtype_int32);
  check_index_select_backward(e, 3, 67, 1, diopi_dtype_int64);
  check_index_select_backward(e, 5, 1, 1, diopi_dtype_int32);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(fill_sets_every_element_around_the_grain,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          a_value_per_row_multiplies_its_own_row_only, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(gelu_tanh_mode_matches_the_double_formula,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          max_pool_general_window_matches_a_plain_loop, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(max_pool_of_float64_forward_and_backward,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(kl_div_float_loop_matches_a_double_loop,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          index_select_backward_adds_whole_rows_in_order, ops_env_setup,
          ops_env_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
