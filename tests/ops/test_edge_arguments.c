/* Arguments at the edge of their range that PyTorch accepts and DIOPI's
 * configured cases pass: an adaptive max pooling to an output of 0 x 0,
 * avg_pool2d's negative divisor_override (the window's sum divided by it;
 * only 0 is refused), group_norm over groups with no elements (mean 0,
 * inverse deviation NaN from a variance of 0/0, and so a NaN weight
 * gradient, while the bias gradient sums nothing), group_norm's float16
 * backward from float16 statistics, layer_norm's float32 parameter
 * gradients summed as PyTorch sums them, negative pads (a crop) in every
 * pad mode, and hardswish's gradient at its kinks. Expected values are worked
 * out by hand or taken from PyTorch 1.13. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "ops_env.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;
typedef diopiContextHandle_t CTX;

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* (1, 2, 3, 3) pooled to (1, 2, 0, 0): an empty output and indices; the
 * backward of nothing is a zero gradient. */
static void adaptive_max_pool2d_to_an_empty_output(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*pool)(CTX, T, T, CT, diopiSize_t) =
      (diopiError_t(*)(CTX, T, T, CT, diopiSize_t))ops_env_find(
          e, "diopiAdaptiveMaxPool2dWithIndices");
  diopiError_t (*backward)(CTX, T, CT, CT, CT) = (diopiError_t(*)(
      CTX, T, CT, CT, CT))ops_env_find(e, "diopiAdaptiveMaxPool2dBackward");
  int64_t s_in[4] = {1, 2, 3, 3}, s_out[4] = {1, 2, 0, 0}, zero[2] = {0, 0};
  float garbage[18], *gi;
  for (int i = 0; i < 18; i++)
    garbage[i] = 7;
  T tin = ops_made_tensor(&m, diopi_dtype_float32, 4, s_in, garbage,
                          sizeof garbage, NULL),
    tout = ops_made_tensor(&m, diopi_dtype_float32, 4, s_out, NULL, 0, NULL),
    tidx = ops_made_tensor(&m, diopi_dtype_int64, 4, s_out, NULL, 0, NULL),
    tgi = ops_made_tensor(&m, diopi_dtype_float32, 4, s_in, garbage,
                          sizeof garbage, (void **)&gi);
  diopiSize_t output_size = {zero, 2};
  assert_int_equal(pool(e->ctx, tout, tidx, tin, output_size), diopiSuccess);
  assert_int_equal(backward(e->ctx, tgi, tout, tin, tidx), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 18; i++)
    assert_true(gi[i] == 0.0f);
  ops_made_destroy(&m);
}

/* 0..15 as (1, 1, 4, 4), 2 x 2 windows, divisor_override -3: each window's
 * sum over -3 (10, 18, 42, 50); the backward of ones gives -1/3 to every
 * input element. A divisor of 0 is refused. */
static void avg_pool2d_divides_by_a_negative_divisor_override(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*pool)(CTX, T, CT, diopiSize_t, diopiSize_t, diopiSize_t, bool,
                       bool, const int64_t *) =
      (diopiError_t(*)(CTX, T, CT, diopiSize_t, diopiSize_t, diopiSize_t, bool,
                       bool, const int64_t *))ops_env_find(e, "diopiAvgPool2d");
  diopiError_t (*backward)(CTX, T, CT, CT, diopiSize_t, diopiSize_t,
                           diopiSize_t, bool, bool, const int64_t *) =
      (diopiError_t(*)(
          CTX, T, CT, CT, diopiSize_t, diopiSize_t, diopiSize_t, bool, bool,
          const int64_t *))ops_env_find(e, "diopiAvgPool2dBackward");
  int64_t s_in[4] = {1, 1, 4, 4}, s_out[4] = {1, 1, 2, 2}, two[1] = {2};
  float x[16], *y, *gi;
  for (int i = 0; i < 16; i++)
    x[i] = (float)i;
  const float ones[4] = {1, 1, 1, 1};
  T tin = ops_made_tensor(&m, diopi_dtype_float32, 4, s_in, x, sizeof x, NULL),
    tout = ops_made_tensor(&m, diopi_dtype_float32, 4, s_out, NULL, 0,
                           (void **)&y),
    tgo = ops_made_tensor(&m, diopi_dtype_float32, 4, s_out, ones, sizeof ones,
                          NULL),
    tgi = ops_made_tensor(&m, diopi_dtype_float32, 4, s_in, NULL, 0,
                          (void **)&gi);
  diopiSize_t kernel = {two, 1}, none = {NULL, 0};
  const int64_t minus_three = -3, zero = 0;
  assert_int_equal(
      pool(e->ctx, tout, tin, kernel, none, none, false, true, &minus_three),
      diopiSuccess);
  assert_int_equal(backward(e->ctx, tgi, tgo, tin, kernel, none, none, false,
                            true, &minus_three),
                   diopiSuccess);
  synchronize(e);
  const float want[4] = {10.0f / -3, 18.0f / -3, 42.0f / -3, 50.0f / -3};
  for (int i = 0; i < 4; i++)
    assert_true(fabsf(y[i] - want[i]) <= 1e-6f * fabsf(want[i]));
  for (int i = 0; i < 16; i++)
    assert_true(fabsf(gi[i] + 1.0f / 3) <= 1e-7f);
  assert_int_equal(
      pool(e->ctx, tout, tin, kernel, none, none, false, true, &zero),
      diopiErrorOccurred);
  ops_made_destroy(&m);
}

/* input (2, 4, 0) in 2 groups: every group is empty. save_mean is 0 and
 * save_invstd 1 / sqrt(0/0 + eps), NaN; the backward's weight gradient
 * sums (dy (x - mean)) * rstd per image, NaN, its bias gradient sums
 * nothing, 0. */
static void group_norm_over_empty_groups(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*norm)(CTX, T, T, T, CT, CT, CT, int64_t, double) =
      (diopiError_t(*)(CTX, T, T, T, CT, CT, CT, int64_t, double))ops_env_find(
          e, "diopiGroupNorm");
  diopiError_t (*backward)(CTX, T, T, T, CT, CT, CT, CT, CT, int64_t) =
      (diopiError_t(*)(CTX, T, T, T, CT, CT, CT, CT, CT, int64_t))ops_env_find(
          e, "diopiGroupNormBackward");
  int64_t s_in[3] = {2, 4, 0}, s_stat[2] = {2, 2}, s4[1] = {4};
  const float sevens[4] = {7, 7, 7, 7}, w[4] = {1, 2, 3, 4};
  float *mean, *rstd, *gw, *gb;
  T tin = ops_made_tensor(&m, diopi_dtype_float32, 3, s_in, NULL, 0, NULL),
    tout = ops_made_tensor(&m, diopi_dtype_float32, 3, s_in, NULL, 0, NULL),
    tmean = ops_made_tensor(&m, diopi_dtype_float32, 2, s_stat, sevens,
                            sizeof sevens, (void **)&mean),
    trstd = ops_made_tensor(&m, diopi_dtype_float32, 2, s_stat, sevens,
                            sizeof sevens, (void **)&rstd),
    tw = ops_made_tensor(&m, diopi_dtype_float32, 1, s4, w, sizeof w, NULL),
    tgw = ops_made_tensor(&m, diopi_dtype_float32, 1, s4, sevens, sizeof sevens,
                          (void **)&gw),
    tgb = ops_made_tensor(&m, diopi_dtype_float32, 1, s4, sevens, sizeof sevens,
                          (void **)&gb);
  assert_int_equal(norm(e->ctx, tout, tmean, trstd, tin, tw, NULL, 2, 1e-5),
                   diopiSuccess);
  assert_int_equal(
      backward(e->ctx, tout, tgw, tgb, tin, tin, tw, tmean, trstd, 2),
      diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 4; i++) {
    assert_true(mean[i] == 0.0f);
    assert_true(isnan(rstd[i]));
    assert_true(isnan(gw[i]));
    assert_true(gb[i] == 0.0f);
  }
  ops_made_destroy(&m);
}

/* float16 group_norm backward of (1, 2, 2) [[1000, 1001], [1001, 1001]]
 * in 1 group, weight and grad_output ones, from the float16 forward's
 * statistics: mean 1001 (1000.75 rounded), rstd 2.30859375. PyTorch 1.13
 * (float32, rounded once) gives grad_input 0, grad_weight -1.1543 and
 * 1.1543, grad_bias 2: the exact mean, not the rounded one, centres x.
 * Values as float16 bits. */
static void
group_norm_backward_in_float16_from_rounded_statistics(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*backward)(CTX, T, T, T, CT, CT, CT, CT, CT, int64_t) =
      (diopiError_t(*)(CTX, T, T, T, CT, CT, CT, CT, CT, int64_t))ops_env_find(
          e, "diopiGroupNormBackward");
  int64_t s_in[3] = {1, 2, 2}, s_stat[2] = {1, 1}, s2[1] = {2};
  const uint16_t x[4] = {0x63d0, 0x63d2, 0x63d2, 0x63d2},
                 ones[4] = {0x3c00, 0x3c00, 0x3c00, 0x3c00}, mean[1] = {0x63d2},
                 rstd[1] = {0x409e};
  uint16_t *gi, *gw, *gb;
  T tx = ops_made_tensor(&m, diopi_dtype_float16, 3, s_in, x, sizeof x, NULL),
    tgo = ops_made_tensor(&m, diopi_dtype_float16, 3, s_in, ones, sizeof ones,
                          NULL),
    tw = ops_made_tensor(&m, diopi_dtype_float16, 1, s2, ones, 4, NULL),
    tmean = ops_made_tensor(&m, diopi_dtype_float16, 2, s_stat, mean,
                            sizeof mean, NULL),
    trstd = ops_made_tensor(&m, diopi_dtype_float16, 2, s_stat, rstd,
                            sizeof rstd, NULL),
    tgi = ops_made_tensor(&m, diopi_dtype_float16, 3, s_in, NULL, 0,
                          (void **)&gi),
    tgw =
        ops_made_tensor(&m, diopi_dtype_float16, 1, s2, NULL, 0, (void **)&gw),
    tgb =
        ops_made_tensor(&m, diopi_dtype_float16, 1, s2, NULL, 0, (void **)&gb);
  assert_int_equal(
      backward(e->ctx, tgi, tgw, tgb, tgo, tx, tw, tmean, trstd, 1),
      diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 4; i++)
    assert_true(gi[i] == 0 || gi[i] == 0x8000); /* +-0 */
  assert_int_equal(gw[0], 0xbc9e);
  assert_int_equal(gw[1], 0x3c9e);
  assert_int_equal(gb[0], 0x4000);
  assert_int_equal(gb[1], 0x4000);
  ops_made_destroy(&m);
}

/* float32 layer_norm backward over (3, 4) rows [1, -1, 1, -1], mean 0,
 * rstd 1, weight ones, grad_output ones but 2^24 at (0, 0): PyTorch 1.13
 * sums grad_weight and grad_bias down the rows in float32, so column 0's
 * 2^24 + 1 + 1 is 2^24 (each 1 lost to rounding), not 2^24 + 2. Expected
 * values from torch.ops.aten.native_layer_norm_backward. */
static void
layer_norm_backward_sums_parameter_gradients_in_float32(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*backward)(CTX, T, T, T, CT, CT, CT, CT, CT, CT, diopiSize_t) =
      (diopiError_t(*)(CTX, T, T, T, CT, CT, CT, CT, CT, CT,
                       diopiSize_t))ops_env_find(e, "diopiLayerNormBackward");
  int64_t s_in[2] = {3, 4}, s_stat[2] = {3, 1}, s4[1] = {4}, row[1] = {4};
  const float x[12] = {1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1},
              g[12] = {16777216, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
              ones[4] = {1, 1, 1, 1}, zeros[3] = {0, 0, 0};
  const float want_gw[4] = {16777216, -3, 3, -3},
              want_gb[4] = {16777216, 3, 3, 3};
  float *gw, *gb;
  T tx = ops_made_tensor(&m, diopi_dtype_float32, 2, s_in, x, sizeof x, NULL),
    tg = ops_made_tensor(&m, diopi_dtype_float32, 2, s_in, g, sizeof g, NULL),
    tw = ops_made_tensor(&m, diopi_dtype_float32, 1, s4, ones, sizeof ones,
                         NULL),
    tmean = ops_made_tensor(&m, diopi_dtype_float32, 2, s_stat, zeros,
                            sizeof zeros, NULL),
    trstd = ops_made_tensor(&m, diopi_dtype_float32, 2, s_stat, ones, 12, NULL),
    tgi = ops_made_tensor(&m, diopi_dtype_float32, 2, s_in, NULL, 0, NULL),
    tgw =
        ops_made_tensor(&m, diopi_dtype_float32, 1, s4, NULL, 0, (void **)&gw),
    tgb =
        ops_made_tensor(&m, diopi_dtype_float32, 1, s4, NULL, 0, (void **)&gb);
  diopiSize_t normalized_shape = {row, 1};
  assert_int_equal(backward(e->ctx, tgi, tgw, tgb, tg, tx, tw, NULL, tmean,
                            trstd, normalized_shape),
                   diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 4; i++) {
    assert_true(gw[i] == want_gw[i]);
    assert_true(gb[i] == want_gb[i]);
  }
  ops_made_destroy(&m);
}

/* 0..4 as (1, 1, 5) padded with a negative pad (a crop) on one side, as
 * PyTorch 1.13's F.pad takes it: reflect and replicate index the whole dim,
 * circular crops first and wraps within what is left. Expected values from
 * torch.nn.functional.pad. */
static void pad_crops_with_negative_pads_in_every_mode(void **state) {
  ops_env_t *e = *state;
  diopiError_t (*pad)(CTX, T, CT, diopiSize_t, const char *, const double *) =
      (diopiError_t(*)(CTX, T, CT, diopiSize_t, const char *,
                       const double *))ops_env_find(e, "diopiPad");
  static const struct {
    const char *mode;
    int64_t pads[2];
    int64_t n;
    float expected[7];
  } cases[] = {
      {"reflect", {-1, 3}, 7, {1, 2, 3, 4, 3, 2, 1}},
      {"replicate", {-2, 1}, 4, {2, 3, 4, 4}},
      {"circular", {-1, 3}, 7, {1, 2, 3, 4, 1, 2, 3}},
      {"circular", {2, -1}, 6, {2, 3, 0, 1, 2, 3}},
  };
  const float x[5] = {0, 1, 2, 3, 4};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    ops_made_t m = {.e = e};
    int64_t s_in[3] = {1, 1, 5}, s_out[3] = {1, 1, cases[c].n};
    float *y;
    T tin =
          ops_made_tensor(&m, diopi_dtype_float32, 3, s_in, x, sizeof x, NULL),
      tout = ops_made_tensor(&m, diopi_dtype_float32, 3, s_out, NULL, 0,
                             (void **)&y);
    diopiSize_t pads = {cases[c].pads, 2};
    assert_int_equal(pad(e->ctx, tout, tin, pads, cases[c].mode, NULL),
                     diopiSuccess);
    synchronize(e);
    for (int64_t i = 0; i < cases[c].n; i++)
      assert_true(y[i] == cases[c].expected[i]);
    ops_made_destroy(&m);
  }
}

/* hardswish's gradient at its kinks x = -3 and x = 3, as PyTorch 1.13's
 * CPU kernel gives it for all but a tensor's scalar tail
 * (torch.ops.aten.hardswish_backward of ones over (-3, 3, 0, -4) x 16):
 * -0.5 at -3, 1 at 3, in float32 and float64. */
static void hardswish_backward_at_its_kinks(void **state) {
  ops_env_t *e = *state;
  diopiError_t (*backward)(CTX, T, CT, CT) =
      (diopiError_t(*)(CTX, T, CT, CT))ops_env_find(e,
                                                    "diopiHardswishBackward");
  const double x[4] = {-3, 3, 0, -4}, expected[4] = {-0.5, 1, 0.5, 0};
  const diopiDtype_t dtypes[2] = {diopi_dtype_float32, diopi_dtype_float64};
  for (int k = 0; k < 2; k++) {
    ops_made_t m = {.e = e};
    int64_t shape[1] = {64};
    float xf[64], onesf[64];
    double xd[64], onesd[64];
    for (int i = 0; i < 64; i++) {
      xf[i] = (float)x[i % 4];
      xd[i] = x[i % 4];
      onesf[i] = 1;
      onesd[i] = 1;
    }
    bool f32 = dtypes[k] == diopi_dtype_float32;
    size_t bytes = f32 ? sizeof xf : sizeof xd;
    void *gi;
    T tx = ops_made_tensor(&m, dtypes[k], 1, shape, f32 ? (void *)xf : xd,
                           bytes, NULL),
      tgo = ops_made_tensor(&m, dtypes[k], 1, shape,
                            f32 ? (void *)onesf : onesd, bytes, NULL),
      tgi = ops_made_tensor(&m, dtypes[k], 1, shape, NULL, 0, &gi);
    assert_int_equal(backward(e->ctx, tgi, tgo, tx), diopiSuccess);
    synchronize(e);
    for (int i = 0; i < 64; i++) {
      double got = f32 ? ((float *)gi)[i] : ((double *)gi)[i];
      assert_true(got == expected[i % 4]);
    }
    ops_made_destroy(&m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(adaptive_max_pool2d_to_an_empty_output),
      cmocka_unit_test(avg_pool2d_divides_by_a_negative_divisor_override),
      cmocka_unit_test(group_norm_over_empty_groups),
      cmocka_unit_test(group_norm_backward_in_float16_from_rounded_statistics),
      cmocka_unit_test(layer_norm_backward_sums_parameter_gradients_in_float32),
      cmocka_unit_test(pad_crops_with_negative_pads_in_every_mode),
      cmocka_unit_test(hardswish_backward_at_its_kinks),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
