/* The ops beyond issue 25's first list that DIOPI's configurations name
 * (instance_norm, normalize, 3-d adaptive pooling, the mode-switched
 * pools, conv_transpose3d, grid sampling, rotary embedding, unique), where
 * their configured cases do not reach: strided views, absent scale and bias,
 * the infinity norm's ties, a norm below eps, a NaN in a max window,
 * output_padding, padding modes and rounding, in place, a data-sized
 * result, and the argument checks (each naming the op, the argument, what
 * was expected and what was given). Expected values are worked out by hand
 * (and agree with PyTorch 1.13). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
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
typedef diopiContextHandle_t CTX;

#define F32 diopi_dtype_float32

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

static void assert_near(double got, double want) {
  if (!(fabs(got - want) <= 1e-5 * (1 + fabs(want))))
    fail_msg("got %.9g, want %.9g", got, want);
}

/* The library's last error holds every one of `parts`. */
/* A float32 view of `shape` and `strides` over `data`, device memory of
 * the env's device. */
static T strided(ops_made_t *m, void *data, size_t ndim, const int64_t *shape,
                 const int64_t *strides) {
  T t;
  assert_true(m->n < OPS_MADE_MAX);
  assert_int_equal(
      bp_ops_tensor_wrap(m->e->device, data, F32, ndim, shape, strides, &t),
      BP_OK);
  return m->t[m->n++] = t;
}

typedef diopiError_t (*instance_norm_fn)(CTX, T, CT, int64_t, CT, CT, double);
typedef diopiError_t (*instance_norm_backward_fn)(CTX, T, T, T, CT, CT, CT, CT,
                                                  int64_t, double);

/* Rows [1, 3] and [0, 4] of (1, 2, 2), every other float of their storage
 * (input and output alike): xhat is [-1, 1] in both; scale [2, 3] and bias
 * [0.5, -1] give [-1.5, 2.5] and [-4, 2]; without them, xhat itself. */
static void instance_norm_reads_and_writes_strided_rows(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  instance_norm_fn norm =
      (instance_norm_fn)ops_env_find(e, "diopiInstanceNorm");
  const float x[8] = {1, -7, 3, -7, 0, -7, 4, -7}, w[2] = {2, 3},
              b[2] = {0.5f, -1};
  int64_t s8[1] = {8}, s2[1] = {2}, shape[3] = {1, 2, 2},
          strides[3] = {8, 4, 2};
  float *xd, *yd;
  ops_made_tensor(&m, F32, 1, s8, x, sizeof x, (void **)&xd);
  ops_made_tensor(&m, F32, 1, s8, NULL, 0, (void **)&yd);
  T in = strided(&m, xd, 3, shape, strides),
    out = strided(&m, yd, 3, shape, strides);
  T scale = ops_made_tensor(&m, F32, 1, s2, w, sizeof w, NULL),
    bias = ops_made_tensor(&m, F32, 1, s2, b, sizeof b, NULL);
  assert_int_equal(norm(e->ctx, out, in, 2, scale, bias, 0), diopiSuccess);
  synchronize(e);
  const float want[4] = {-1.5f, 2.5f, -4, 2};
  for (int i = 0; i < 4; i++)
    assert_near(yd[2 * i], want[i]);
  assert_int_equal(norm(e->ctx, out, in, 1, NULL, NULL, 0), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 4; i++)
    assert_near(yd[2 * i], i % 2 ? 1 : -1);
  ops_made_destroy(&m);
}

/* Row [0, 1, 2] (mean 1, rstd sqrt(1.5)), scale 2, grad_output [1, 0, 0]:
 * grad_input = 2 rstd (dy - 1/3 - xhat mean(dy xhat)) = sqrt(6) [1/6, -1/3,
 * 1/6], grad_scale = sum dy xhat = -sqrt(1.5), grad_bias = 1; with
 * grad_input NULL the parameter gradients alone. */
static void instance_norm_backward_recomputes_the_statistics(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  instance_norm_backward_fn backward =
      (instance_norm_backward_fn)ops_env_find(e, "diopiInstanceNormBackward");
  const float x[3] = {0, 1, 2}, dy[3] = {1, 0, 0}, w[1] = {2}, b[1] = {0.5f};
  int64_t shape[3] = {1, 1, 3}, s1[1] = {1};
  float *gi, *gw, *gb;
  T in = ops_made_tensor(&m, F32, 3, shape, x, sizeof x, NULL),
    go = ops_made_tensor(&m, F32, 3, shape, dy, sizeof dy, NULL),
    grad_in = ops_made_tensor(&m, F32, 3, shape, NULL, 0, (void **)&gi),
    scale = ops_made_tensor(&m, F32, 1, s1, w, sizeof w, NULL),
    bias = ops_made_tensor(&m, F32, 1, s1, b, sizeof b, NULL),
    grad_w = ops_made_tensor(&m, F32, 1, s1, NULL, 0, (void **)&gw),
    grad_b = ops_made_tensor(&m, F32, 1, s1, NULL, 0, (void **)&gb);
  assert_int_equal(
      backward(e->ctx, grad_in, grad_w, grad_b, go, in, scale, bias, 2, 0),
      diopiSuccess);
  synchronize(e);
  double s6 = sqrt(6.0);
  assert_near(gi[0], s6 / 6);
  assert_near(gi[1], -s6 / 3);
  assert_near(gi[2], s6 / 6);
  assert_near(gw[0], -sqrt(1.5));
  assert_near(gb[0], 1);
  gw[0] = gb[0] = 0;
  assert_int_equal(
      backward(e->ctx, NULL, grad_w, grad_b, go, in, scale, bias, 2, 0),
      diopiSuccess);
  synchronize(e);
  assert_near(gw[0], -sqrt(1.5));
  assert_near(gb[0], 1);
  ops_made_destroy(&m);
}

/* Two channels of contiguous float32 rows (the backward's float32 loops):
 * channel 0 as above (scale 2); channel 1 the same row with grad_output
 * [0, 0, 1] and scale 3: xhat = sqrt(1.5) [-1, 0, 1], grad_input =
 * 3 rstd (dy - 1/3 - xhat sqrt(1.5) / 3) = sqrt(1.5) [1/2, -1, 1/2],
 * grad_scale = sqrt(1.5), grad_bias = 1. */
static void instance_norm_backward_takes_each_channels_scale(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  instance_norm_backward_fn backward =
      (instance_norm_backward_fn)ops_env_find(e, "diopiInstanceNormBackward");
  const float x[6] = {0, 1, 2, 0, 1, 2}, dy[6] = {1, 0, 0, 0, 0, 1},
              w[2] = {2, 3}, b[2] = {0.5f, -1};
  int64_t shape[3] = {1, 2, 3}, s2[1] = {2};
  float *gi, *gw, *gb;
  T in = ops_made_tensor(&m, F32, 3, shape, x, sizeof x, NULL),
    go = ops_made_tensor(&m, F32, 3, shape, dy, sizeof dy, NULL),
    grad_in = ops_made_tensor(&m, F32, 3, shape, NULL, 0, (void **)&gi),
    scale = ops_made_tensor(&m, F32, 1, s2, w, sizeof w, NULL),
    bias = ops_made_tensor(&m, F32, 1, s2, b, sizeof b, NULL),
    grad_w = ops_made_tensor(&m, F32, 1, s2, NULL, 0, (void **)&gw),
    grad_b = ops_made_tensor(&m, F32, 1, s2, NULL, 0, (void **)&gb);
  assert_int_equal(
      backward(e->ctx, grad_in, grad_w, grad_b, go, in, scale, bias, 1, 0),
      diopiSuccess);
  synchronize(e);
  double s6 = sqrt(6.0), a = sqrt(1.5);
  const double want[6] = {s6 / 6, -s6 / 3, s6 / 6, a / 2, -a, a / 2};
  for (int i = 0; i < 6; i++)
    assert_near(gi[i], want[i]);
  assert_near(gw[0], -a);
  assert_near(gw[1], a);
  assert_near(gb[0], 1);
  assert_near(gb[1], 1);
  ops_made_destroy(&m);
}

static void instance_norm_checks_name_the_argument(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  instance_norm_fn norm =
      (instance_norm_fn)ops_env_find(e, "diopiInstanceNorm");
  int64_t shape[3] = {2, 3, 4}, flat[2] = {2, 3}, s2[1] = {2};
  T in = ops_made_tensor(&m, F32, 3, shape, NULL, 0, NULL),
    out = ops_made_tensor(&m, F32, 3, shape, NULL, 0, NULL),
    in2 = ops_made_tensor(&m, F32, 2, flat, NULL, 0, NULL),
    scale = ops_made_tensor(&m, F32, 1, s2, NULL, 0, NULL);
  assert_int_equal(norm(e->ctx, out, in, 3, NULL, NULL, 1e-5),
                   diopiErrorOccurred);
  const char *axis[] = {"diopiInstanceNorm", "axis", "got 3"};
  ops_env_expect_error_names(e, axis, 3);
  assert_int_equal(norm(e->ctx, out, in2, 2, NULL, NULL, 1e-5),
                   diopiErrorOccurred);
  const char *dims[] = {"input", "(N, C, spatial...)", "got 2 dims"};
  ops_env_expect_error_names(e, dims, 3);
  assert_int_equal(norm(e->ctx, out, in, 2, scale, NULL, 1e-5),
                   diopiErrorOccurred);
  const char *channels[] = {"scale", "[3]", "[2]"};
  ops_env_expect_error_names(e, channels, 3);
  synchronize(e);
  ops_made_destroy(&m);
}

typedef diopiError_t (*normalize_fn)(CTX, T, CT, float, int64_t, double);
typedef diopiError_t (*normalize_backward_fn)(CTX, T, CT, CT, float, int64_t,
                                              double);

/* [3, -3, 1] over its infinity norm 3 is [1, -1, 1/3]; grad_output
 * [1, 0, 0]: dy / 3 - (dy . x) / 9 * d|x|max/dx, the norm's slope shared
 * by the two elements of magnitude 3: [1/6, 1/6, 0]. Along dim -1. */
static void
normalize_shares_the_infinity_norm_gradient_among_ties(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  normalize_fn forward = (normalize_fn)ops_env_find(e, "diopiNormalize");
  normalize_backward_fn backward =
      (normalize_backward_fn)ops_env_find(e, "diopiNormalizeBackward");
  const float x[3] = {3, -3, 1}, dy[3] = {1, 0, 0};
  int64_t s3[1] = {3};
  float *y, *gi;
  T in = ops_made_tensor(&m, F32, 1, s3, x, sizeof x, NULL),
    go = ops_made_tensor(&m, F32, 1, s3, dy, sizeof dy, NULL),
    out = ops_made_tensor(&m, F32, 1, s3, NULL, 0, (void **)&y),
    grad_in = ops_made_tensor(&m, F32, 1, s3, NULL, 0, (void **)&gi);
  assert_int_equal(forward(e->ctx, out, in, INFINITY, -1, 1e-12), diopiSuccess);
  assert_int_equal(backward(e->ctx, grad_in, go, in, INFINITY, -1, 1e-12),
                   diopiSuccess);
  synchronize(e);
  assert_near(y[0], 1);
  assert_near(y[1], -1);
  assert_near(y[2], 1.0 / 3);
  assert_near(gi[0], 1.0 / 6);
  assert_near(gi[1], 1.0 / 6);
  assert_near(gi[2], 0);
  ops_made_destroy(&m);
}

/* [0.3, 0.4] has 2-norm 0.5, below eps 1: divided by eps, and the gradient
 * does not flow through the clamped norm (grad_input = grad_output / 1). A
 * norm order of 0 is refused. */
static void normalize_below_eps_divides_by_eps(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  normalize_fn forward = (normalize_fn)ops_env_find(e, "diopiNormalize");
  normalize_backward_fn backward =
      (normalize_backward_fn)ops_env_find(e, "diopiNormalizeBackward");
  const float x[2] = {0.3f, 0.4f}, dy[2] = {1, 1};
  int64_t s2[1] = {2};
  float *y, *gi;
  T in = ops_made_tensor(&m, F32, 1, s2, x, sizeof x, NULL),
    go = ops_made_tensor(&m, F32, 1, s2, dy, sizeof dy, NULL),
    out = ops_made_tensor(&m, F32, 1, s2, NULL, 0, (void **)&y),
    grad_in = ops_made_tensor(&m, F32, 1, s2, NULL, 0, (void **)&gi);
  assert_int_equal(forward(e->ctx, out, in, 2, 0, 1), diopiSuccess);
  assert_int_equal(backward(e->ctx, grad_in, go, in, 2, 0, 1), diopiSuccess);
  synchronize(e);
  assert_near(y[0], 0.3);
  assert_near(y[1], 0.4);
  assert_near(gi[0], 1);
  assert_near(gi[1], 1);
  assert_int_equal(forward(e->ctx, out, in, 0, 0, 1), diopiErrorOccurred);
  const char *order[] = {"diopiNormalize", "p:", "above 0", "got 0"};
  ops_env_expect_error_names(e, order, 4);
  ops_made_destroy(&m);
}

typedef diopiError_t (*adaptive3_fn)(CTX, T, T, CT, diopiSize_t);
typedef diopiError_t (*adaptive3_avg_fn)(CTX, T, CT, diopiSize_t);

/* A (1, 1, 2, 2, 2) volume holding 0..7 with a NaN at flat position 5:
 * pooled to 1, the NaN wins with its index 5; averaged to (1, 1, 2), the
 * columns w = 0 and w = 1 of 0..7 average 3 and 4. */
static void adaptive_pool3d_nan_wins_and_windows_average(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  adaptive3_fn max_pool =
      (adaptive3_fn)ops_env_find(e, "diopiAdaptiveMaxPool3dWithIndices");
  adaptive3_avg_fn avg_pool =
      (adaptive3_avg_fn)ops_env_find(e, "diopiAdaptiveAvgPool3d");
  float x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int64_t shape[5] = {1, 1, 2, 2, 2}, one[5] = {1, 1, 1, 1, 1},
          two[5] = {1, 1, 1, 1, 2}, size1[1] = {1}, size3[3] = {1, 1, 2};
  float *xd, *y, *avg;
  int64_t *idx;
  T in = ops_made_tensor(&m, F32, 5, shape, x, sizeof x, (void **)&xd),
    out = ops_made_tensor(&m, F32, 5, one, NULL, 0, (void **)&y),
    indices =
        ops_made_tensor(&m, diopi_dtype_int64, 5, one, NULL, 0, (void **)&idx),
    mean = ops_made_tensor(&m, F32, 5, two, NULL, 0, (void **)&avg);
  assert_int_equal(avg_pool(e->ctx, mean, in, (diopiSize_t){size3, 3}),
                   diopiSuccess);
  synchronize(e);
  assert_near(avg[0], 3);
  assert_near(avg[1], 4);
  xd[5] = NAN;
  assert_int_equal(max_pool(e->ctx, out, indices, in, (diopiSize_t){size1, 1}),
                   diopiSuccess);
  synchronize(e);
  assert_true(isnan(y[0]));
  assert_int_equal(idx[0], 5);
  assert_int_equal(max_pool(e->ctx, out, indices, in, (diopiSize_t){size3, 2}),
                   diopiErrorOccurred);
  const char *count[] = {"diopiAdaptiveMaxPool3dWithIndices", "output_size"};
  ops_env_expect_error_names(e, count, 2);
  ops_made_destroy(&m);
}

typedef diopiError_t (*pool_fn)(CTX, T, CT, const char *, diopiSize_t,
                                diopiSize_t, diopiSize_t, diopiSize_t, bool,
                                bool, bool, diopiSize_t);
typedef diopiError_t (*pool_backward_fn)(CTX, T, CT, CT, const char *,
                                         diopiSize_t, diopiSize_t, diopiSize_t,
                                         diopiSize_t, bool, bool, bool, CT);

/* diopiPool2d "avg" over [2, 4] with windows of 2, stride 2 and padding 1:
 * [pad, 2] and [4, pad] average 1 and 2 counting the padding, 2 and 4
 * exclusive of it; "max" picks 2 and 4. */
static void pool2d_switches_on_mode_and_exclusive(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  pool_fn pool = (pool_fn)ops_env_find(e, "diopiPool2d");
  const float x[2] = {2, 4};
  int64_t shape[4] = {1, 1, 1, 2}, k[2] = {1, 2}, s[2] = {1, 2}, p[2] = {0, 1},
          d[2] = {1, 1};
  float *y;
  T in = ops_made_tensor(&m, F32, 4, shape, x, sizeof x, NULL),
    out = ops_made_tensor(&m, F32, 4, shape, NULL, 0, (void **)&y);
  diopiSize_t ks = {k, 2}, st = {s, 2}, pad = {p, 2}, dil = {d, 2},
              none = {NULL, 0};
  const float want[3][2] = {{1, 2}, {2, 4}, {2, 4}};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(pool(e->ctx, out, in, i == 2 ? "max" : "avg", ks, st, pad,
                          dil, false, i == 1, false, none),
                     diopiSuccess);
    synchronize(e);
    assert_near(y[0], want[i][0]);
    assert_near(y[1], want[i][1]);
  }
  ops_made_destroy(&m);
}

static void pools_refuse_an_unknown_mode_and_max_without_indices(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  pool_fn pool = (pool_fn)ops_env_find(e, "diopiPool1d");
  pool_backward_fn backward =
      (pool_backward_fn)ops_env_find(e, "diopiPool3dBackward");
  int64_t shape[3] = {1, 1, 4}, k[1] = {2};
  T in = ops_made_tensor(&m, F32, 3, shape, NULL, 0, NULL),
    out = ops_made_tensor(&m, F32, 3, shape, NULL, 0, NULL);
  diopiSize_t ks = {k, 1}, none = {NULL, 0};
  assert_int_equal(pool(e->ctx, out, in, "sum", ks, none, none, none, false,
                        false, false, none),
                   diopiErrorOccurred);
  const char *mode[] = {"diopiPool1d", "mode", "\"max\" or \"avg\"",
                        "got \"sum\""};
  ops_env_expect_error_names(e, mode, 4);
  assert_int_equal(backward(e->ctx, out, in, in, "max", ks, none, none, none,
                            false, false, true, NULL),
                   diopiErrorOccurred);
  const char *indices[] = {"diopiPool3dBackward", "indices", "NULL"};
  ops_env_expect_error_names(e, indices, 3);
  synchronize(e);
  ops_made_destroy(&m);
}

typedef diopiError_t (*conv_t3d_fn)(CTX, T, CT, CT, CT, diopiSize_t,
                                    diopiSize_t, diopiSize_t, int64_t,
                                    diopiSize_t);
typedef diopiError_t (*conv_t3d_backward_fn)(CTX, T, T, T, CT, CT, CT,
                                             diopiSize_t *, diopiSize_t,
                                             diopiSize_t, diopiSize_t,
                                             diopiSize_t, int64_t);

/* A line [1, 2] through kernel [1, 10] at stride 2 (along W) with
 * output_padding 1 and bias 0.5: [1, 10, 2, 20, 0] + 0.5. Backward against
 * ones: grad_input 1 + 10 per element, grad_weight 1 + 2 per tap,
 * grad_bias the 5 outputs. */
static void conv_transpose3d_spreads_each_input_over_its_taps(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  conv_t3d_fn forward = (conv_t3d_fn)ops_env_find(e, "diopiConvTranspose3d");
  conv_t3d_backward_fn backward =
      (conv_t3d_backward_fn)ops_env_find(e, "diopiConvTranspose3dBackward");
  const float x[2] = {1, 2}, w[2] = {1, 10}, b[1] = {0.5f},
              ones[5] = {1, 1, 1, 1, 1};
  int64_t in_shape[5] = {1, 1, 1, 1, 2}, out_shape[5] = {1, 1, 1, 1, 5},
          s1[1] = {1}, st[3] = {1, 1, 2}, zero[3] = {0, 0, 0},
          extra[3] = {0, 0, 1}, one[3] = {1, 1, 1};
  float *y, *gi, *gw, *gb;
  T in = ops_made_tensor(&m, F32, 5, in_shape, x, sizeof x, NULL),
    weight = ops_made_tensor(&m, F32, 5, in_shape, w, sizeof w, NULL),
    bias = ops_made_tensor(&m, F32, 1, s1, b, sizeof b, NULL),
    out = ops_made_tensor(&m, F32, 5, out_shape, NULL, 0, (void **)&y),
    go = ops_made_tensor(&m, F32, 5, out_shape, ones, sizeof ones, NULL),
    grad_in = ops_made_tensor(&m, F32, 5, in_shape, NULL, 0, (void **)&gi),
    grad_w = ops_made_tensor(&m, F32, 5, in_shape, NULL, 0, (void **)&gw),
    grad_b = ops_made_tensor(&m, F32, 1, s1, NULL, 0, (void **)&gb);
  diopiSize_t stride = {st, 3}, padding = {zero, 3},
              output_padding = {extra, 3}, dilation = {one, 3},
              bias_sizes = {s1, 1};
  assert_int_equal(forward(e->ctx, out, in, weight, bias, stride, padding,
                           output_padding, 1, dilation),
                   diopiSuccess);
  assert_int_equal(backward(e->ctx, grad_in, grad_w, grad_b, go, in, weight,
                            &bias_sizes, stride, padding, dilation,
                            output_padding, 1),
                   diopiSuccess);
  synchronize(e);
  const float want[5] = {1.5f, 10.5f, 2.5f, 20.5f, 0.5f};
  for (int i = 0; i < 5; i++)
    assert_near(y[i], want[i]);
  assert_near(gi[0], 11);
  assert_near(gi[1], 11);
  assert_near(gw[0], 3);
  assert_near(gw[1], 3);
  assert_near(gb[0], 5);
  extra[2] = 2; /* not below the stride (2) nor the dilation (1) */
  assert_int_equal(forward(e->ctx, out, in, weight, bias, stride, padding,
                           output_padding, 1, dilation),
                   diopiErrorOccurred);
  const char *why[] = {"diopiConvTranspose3d", "output_padding",
                       "less than the stride"};
  ops_env_expect_error_names(e, why, 3);
  ops_made_destroy(&m);
}

typedef diopiError_t (*grid_sampler_fn)(CTX, T, CT, CT, const char *,
                                        const char *, bool);

/* Input [10, 20] (1 x 2) sampled at x = 0 (source column 0.5 without
 * align_corners): bilinear 15, nearest 10 (the half to even); at x = -1
 * (column -0.5): zeros padding 5, border 10. */
static void grid_sampler_pads_and_rounds_as_pytorch(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  grid_sampler_fn sampler =
      (grid_sampler_fn)ops_env_find(e, "diopiGridSampler");
  const float x[2] = {10, 20}, at_0[2] = {0, 0}, at_edge[2] = {-1, 0};
  int64_t in_shape[4] = {1, 1, 1, 2}, grid_shape[4] = {1, 1, 1, 2},
          out_shape[4] = {1, 1, 1, 1};
  float *y;
  T in = ops_made_tensor(&m, F32, 4, in_shape, x, sizeof x, NULL),
    middle = ops_made_tensor(&m, F32, 4, grid_shape, at_0, sizeof at_0, NULL),
    edge =
        ops_made_tensor(&m, F32, 4, grid_shape, at_edge, sizeof at_edge, NULL),
    out = ops_made_tensor(&m, F32, 4, out_shape, NULL, 0, (void **)&y);
  const struct {
    T grid;
    const char *mode, *padding;
    float want;
  } rows[] = {{middle, "bilinear", "zeros", 15},
              {middle, "nearest", "zeros", 10},
              {edge, "bilinear", "zeros", 5},
              {edge, "bilinear", "border", 10}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    assert_int_equal(sampler(e->ctx, out, in, rows[i].grid, rows[i].mode,
                             rows[i].padding, false),
                     diopiSuccess);
    synchronize(e);
    assert_near(y[0], rows[i].want);
  }
  assert_int_equal(sampler(e->ctx, out, in, middle, "bicubic", "zeros", false),
                   diopiErrorOccurred);
  const char *mode[] = {"diopiGridSampler", "mode", "got bicubic"};
  ops_env_expect_error_names(e, mode, 3);
  ops_made_destroy(&m);
}

typedef diopiError_t (*rotary_fn)(CTX, T, CT, CT, CT, bool, bool);

/* x [1, 0, 0, 1] in place, halves paired: (x0, x2) = (1, 0) turns by 90
 * degrees (cos 0, sin 1) to (0, 1); (x1, x3) = (0, 1) by 0 stays. */
static void rotary_embedding_turns_each_pair_in_place(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  rotary_fn rotary = (rotary_fn)ops_env_find(e, "diopiRotaryEmbedding");
  const float x[4] = {1, 0, 0, 1}, cosines[2] = {0, 1}, sines[2] = {1, 0};
  int64_t s4[1] = {4}, s2[1] = {2};
  float *xd;
  T in = ops_made_tensor(&m, F32, 1, s4, x, sizeof x, (void **)&xd),
    c = ops_made_tensor(&m, F32, 1, s2, cosines, sizeof cosines, NULL),
    s = ops_made_tensor(&m, F32, 1, s2, sines, sizeof sines, NULL);
  assert_int_equal(rotary(e->ctx, in, in, c, s, false, false), diopiSuccess);
  synchronize(e);
  const float want[4] = {0, 0, 1, 1};
  for (int i = 0; i < 4; i++)
    assert_near(xd[i], want[i]);
  ops_made_destroy(&m);
}

typedef diopiError_t (*unique_fn)(CTX, T *, CT, const int64_t *, bool, bool, T,
                                  T *);

/* [3, 1, 3, 2] unsorted-asked: out [1, 2, 3] (sorted all the same), the
 * inverse [2, 0, 2, 1], the counts [1, 1, 2]; return_counts without a
 * place for them is refused. */
static void unique_sizes_its_result_by_the_data(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  unique_fn unique = (unique_fn)ops_env_find(e, "diopiUnique");
  const int32_t x[4] = {3, 1, 3, 2};
  int64_t s4[1] = {4};
  int64_t *inverse;
  T in = ops_made_tensor(&m, diopi_dtype_int32, 1, s4, x, sizeof x, NULL),
    inv = ops_made_tensor(&m, diopi_dtype_int64, 1, s4, NULL, 0,
                          (void **)&inverse);
  T out = NULL, counts = NULL;
  assert_int_equal(unique(e->ctx, &out, in, NULL, false, true, inv, &counts),
                   diopiSuccess);
  synchronize(e);
  const void *y, *n;
  int64_t numel = 0;
  assert_int_equal(diopiGetTensorNumel(out, &numel), diopiSuccess);
  assert_int_equal(numel, 3);
  assert_int_equal(diopiGetTensorDataConst(out, &y), diopiSuccess);
  assert_int_equal(diopiGetTensorDataConst(counts, &n), diopiSuccess);
  const int32_t want[3] = {1, 2, 3};
  const int64_t want_counts[3] = {1, 1, 2}, want_inverse[4] = {2, 0, 2, 1};
  assert_memory_equal(y, want, sizeof want);
  assert_memory_equal(n, want_counts, sizeof want_counts);
  assert_memory_equal(inverse, want_inverse, sizeof want_inverse);
  assert_int_equal(unique(e->ctx, &out, in, NULL, true, true, NULL, NULL),
                   diopiErrorOccurred);
  const char *why[] = {"diopiUnique", "counts", "NULL"};
  ops_env_expect_error_names(e, why, 3);
  bp_ops_context_clear(e->ctx);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(instance_norm_reads_and_writes_strided_rows),
      cmocka_unit_test(instance_norm_backward_recomputes_the_statistics),
      cmocka_unit_test(instance_norm_backward_takes_each_channels_scale),
      cmocka_unit_test(instance_norm_checks_name_the_argument),
      cmocka_unit_test(normalize_shares_the_infinity_norm_gradient_among_ties),
      cmocka_unit_test(normalize_below_eps_divides_by_eps),
      cmocka_unit_test(adaptive_pool3d_nan_wins_and_windows_average),
      cmocka_unit_test(pool2d_switches_on_mode_and_exclusive),
      cmocka_unit_test(pools_refuse_an_unknown_mode_and_max_without_indices),
      cmocka_unit_test(conv_transpose3d_spreads_each_input_over_its_taps),
      cmocka_unit_test(grid_sampler_pads_and_rounds_as_pytorch),
      cmocka_unit_test(rotary_embedding_turns_each_pair_in_place),
      cmocka_unit_test(unique_sizes_its_result_by_the_data),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
