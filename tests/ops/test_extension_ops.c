/* The extension ops (var, logsumexp, kl_div, adagrad, eye, digamma, amin,
 * prod over dims), nll_loss
 * v2's total weight, channel dropout and dropout inside flash attention, as
 * a caller meets them: bad arguments fail with a message naming the op, the
 * argument, what was expected and what was given (messages written out by
 * hand); dropout drops whole channels, repeats for a generator seed, and
 * attention's backward finds the forward's mask from the generator the
 * forward left. Values against PyTorch are the conformance cases'
 * (tests/data/ops, tests/data/ops_diopi). */
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
typedef diopiContextHandle_t CTX;
typedef diopiGeneratorHandle_t G;
typedef const char *(*last_error_t)(void);

#define F32 diopi_dtype_float32

static const char *last(ops_env_t *e) {
  return ((last_error_t)ops_env_find(e, "diopiGetLastErrorString"))();
}

static void extension_ops_name_the_bad_argument(void **state) {
  ops_env_t *e = *state;
  int64_t s23[2] = {2, 3}, s2[1] = {2}, s3[1] = {3}, s32[2] = {3, 2};
  void *unused;
  T a = ops_env_tensor(e, F32, 2, s23, &unused),
    row = ops_env_tensor(e, F32, 1, s2, &unused),
    col = ops_env_tensor(e, F32, 1, s3, &unused),
    wide = ops_env_tensor(e, F32, 2, s32, &unused),
    ints = ops_env_tensor(e, diopi_dtype_int32, 2, s23, &unused);
  int64_t bad_dim = 2, dim1 = 1;

  diopiError_t (*var)(CTX, T, CT, diopiSize_t, const diopiScalar_t *) =
      (diopiError_t(*)(CTX, T, CT, diopiSize_t,
                       const diopiScalar_t *))ops_env_find(e, "diopiVar");
  assert_int_equal(var(e->ctx, row, a, (diopiSize_t){&bad_dim, 1}, NULL),
                   diopiErrorOccurred);
  assert_string_equal(last(e), "diopiVar: dim: dim 2 out of range for 2 dims");
  diopiError_t (*lse)(CTX, T, CT, diopiSize_t) =
      (diopiError_t(*)(CTX, T, CT, diopiSize_t))ops_env_find(e,
                                                             "diopiLogsumexp");
  assert_int_equal(lse(e->ctx, col, a, (diopiSize_t){&dim1, 1}),
                   diopiErrorOccurred);
  assert_string_equal(last(e),
                      "diopiLogsumexp: out: expected shape [2], got [3]");
  diopiError_t (*lse_backward)(CTX, T, CT, CT, CT, diopiSize_t) =
      (diopiError_t(*)(CTX, T, CT, CT, CT, diopiSize_t))ops_env_find(
          e, "diopiLogsumexpBackward");
  assert_int_equal(
      lse_backward(e->ctx, a, row, a, col, (diopiSize_t){&dim1, 1}),
      diopiErrorOccurred);
  assert_string_equal(
      last(e), "diopiLogsumexpBackward: result: expected shape [2], got [3]");

  diopiError_t (*kl_div)(CTX, T, CT, CT, diopiReduction_t, bool) =
      (diopiError_t(*)(CTX, T, CT, CT, diopiReduction_t, bool))ops_env_find(
          e, "diopiKLDivLoss");
  assert_int_equal(kl_div(e->ctx, a, a, a, (diopiReduction_t)7, false),
                   diopiErrorOccurred);
  assert_string_equal(last(e), "diopiKLDivLoss: reduction: expected none, "
                               "mean or sum (0-2), got 7");
  assert_int_equal(kl_div(e->ctx, a, a, wide, ReductionNone, false),
                   diopiErrorOccurred);
  assert_non_null(strstr(last(e), "diopiKLDivLoss: target:"));

  diopiError_t (*adagrad)(CTX, T, CT, T, float, float, float, float, int64_t) =
      (diopiError_t(*)(CTX, T, CT, T, float, float, float, float,
                       int64_t))ops_env_find(e, "diopiAdagrad");
  assert_int_equal(adagrad(e->ctx, a, a, a, 0.1f, 0, 0, 1e-10f, 0),
                   diopiErrorOccurred);
  assert_string_equal(last(e), "diopiAdagrad: step: expected >= 1 (the step "
                               "being taken), got 0");
  assert_int_equal(adagrad(e->ctx, a, a, wide, 0.1f, 0, 0, 1e-10f, 1),
                   diopiErrorOccurred);
  assert_string_equal(
      last(e), "diopiAdagrad: state_sum: expected shape [2, 3], got [3, 2]");
  assert_int_equal(adagrad(e->ctx, a, a, a, 0.1f, -1, 0, 1e-10f, 1),
                   diopiErrorOccurred);
  assert_string_equal(last(e), "diopiAdagrad: lr_decay: expected >= 0, got -1");

  diopiError_t (*eye)(CTX, T, int64_t, int64_t) =
      (diopiError_t(*)(CTX, T, int64_t, int64_t))ops_env_find(e, "diopiEye");
  assert_int_equal(eye(e->ctx, a, 3, 2), diopiErrorOccurred);
  assert_string_equal(last(e), "diopiEye: out: expected shape [3, 2], got "
                               "[2, 3]");
  assert_int_equal(eye(e->ctx, a, 2, -3), diopiErrorOccurred);
  assert_string_equal(last(e), "diopiEye: m: expected >= 0, got -3");

  diopiError_t (*digamma)(CTX, T, CT) =
      (diopiError_t(*)(CTX, T, CT))ops_env_find(e, "diopiDigamma");
  assert_int_equal(digamma(e->ctx, ints, a), diopiErrorOccurred);
  assert_string_equal(
      last(e), "diopiDigamma: out: expected a floating dtype, got dtype 4");

  /* nll_loss v2's total weight: one element */
  diopiError_t (*nll_v2)(CTX, T, T, CT, CT, CT, diopiReduction_t, int64_t) =
      (diopiError_t(*)(CTX, T, T, CT, CT, CT, diopiReduction_t,
                       int64_t))ops_env_find(e, "diopiNLLLossV2");
  assert_int_equal(nll_v2(e->ctx, a, row, a, row, NULL, ReductionMean, -100),
                   diopiErrorOccurred);
  assert_string_equal(last(e),
                      "diopiNLLLossV2: totalWeight: expected one element, got "
                      "2");

  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  T made[5] = {a, row, col, wide, ints};
  for (int k = 0; k < 5; k++)
    bp_ops_tensor_destroy(made[k]);
}

typedef diopiError_t (*dropout_t)(CTX, T, T, CT, double, bool, G);

/* Channel dropout on [N, C, H, W] with an [N, C, 1, 1] mask. */
static void dropout_with_a_channel_mask_drops_whole_channels(void **state) {
  ops_env_t *e = *state;
  enum { N = 4, C = 16, HW = 9 };
  int64_t shape[4] = {N, C, 3, 3}, mshape[4] = {N, C, 1, 1};
  float *x, *y, *y2;
  uint8_t *mask, *mask2;
  T in = ops_env_tensor(e, F32, 4, shape, (void **)&x),
    out = ops_env_tensor(e, F32, 4, shape, (void **)&y),
    out2 = ops_env_tensor(e, F32, 4, shape, (void **)&y2),
    m = ops_env_tensor(e, diopi_dtype_uint8, 4, mshape, (void **)&mask),
    m2 = ops_env_tensor(e, diopi_dtype_uint8, 4, mshape, (void **)&mask2);
  for (int k = 0; k < N * C * HW; k++)
    x[k] = 1.0f + (float)(k % 13);
  dropout_t dropout = (dropout_t)ops_env_find(e, "diopiDropout");
  G g;
  assert_int_equal(bp_ops_generator_create(5, &g), BP_OK);
  assert_int_equal(dropout(e->ctx, out, m, in, 0.5, true, g), diopiSuccess);
  uint64_t seed, offset;
  assert_int_equal(diopiGeneratorGetSeedAndOffset(g, &seed, &offset),
                   diopiSuccess);
  assert_int_equal(offset, N * C); /* one draw per channel */
  /* the same seed again: the same channels */
  assert_int_equal(diopiGeneratorSetSeedAndOffset(g, 5, 0), diopiSuccess);
  assert_int_equal(dropout(e->ctx, out2, m2, in, 0.5, true, g), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  int dropped = 0;
  for (int c = 0; c < N * C; c++) {
    assert_true(mask[c] == 0 || mask[c] == 1);
    assert_int_equal(mask[c], mask2[c]);
    dropped += mask[c] == 0;
    for (int k = c * HW; k < (c + 1) * HW; k++)
      assert_true(y[k] == (mask[c] ? 2.0f * x[k] : 0.0f) && y2[k] == y[k]);
  }
  assert_true(dropped > 0 && dropped < N * C);
  bp_ops_generator_destroy(g);
  T made[5] = {in, out, out2, m, m2};
  for (int k = 0; k < 5; k++)
    bp_ops_tensor_destroy(made[k]);
}

typedef diopiError_t (*attention_t)(CTX, T, T, G, CT, CT, CT, CT, float, float,
                                    bool, int32_t, int32_t);
typedef diopiError_t (*attention_backward_t)(CTX, T, T, T, CT, G, CT, CT, CT,
                                             CT, CT, CT, float, float, bool,
                                             int32_t, int32_t);

enum { B = 1, SQ = 4, SK = 6, H = 2, D = 4 };

/* q [B, SQ, H, D], k and v [B, SK, H, D], filled from a small LCG. */
static void fill(float *x, int n, uint32_t seed) {
  for (int k = 0; k < n; k++) {
    seed = seed * 1664525u + 1013904223u;
    x[k] = (float)(seed >> 8) / (float)(1u << 24) - 0.5f;
  }
}

static void attention_dropout_repeats_and_backward_uses_its_mask(void **state) {
  ops_env_t *e = *state;
  int64_t qs[4] = {B, SQ, H, D}, ks[4] = {B, SK, H, D}, ls[3] = {B, H, SQ};
  float *q, *k, *v, *o, *o2, *o0, *lse, *lse2, *go, *gq, *gk, *gv, *gv2;
  T tq = ops_env_tensor(e, F32, 4, qs, (void **)&q),
    tk = ops_env_tensor(e, F32, 4, ks, (void **)&k),
    tv = ops_env_tensor(e, F32, 4, ks, (void **)&v),
    to = ops_env_tensor(e, F32, 4, qs, (void **)&o),
    to2 = ops_env_tensor(e, F32, 4, qs, (void **)&o2),
    to0 = ops_env_tensor(e, F32, 4, qs, (void **)&o0),
    tl = ops_env_tensor(e, F32, 3, ls, (void **)&lse),
    tl2 = ops_env_tensor(e, F32, 3, ls, (void **)&lse2),
    tgo = ops_env_tensor(e, F32, 4, qs, (void **)&go),
    tgq = ops_env_tensor(e, F32, 4, qs, (void **)&gq),
    tgk = ops_env_tensor(e, F32, 4, ks, (void **)&gk),
    tgv = ops_env_tensor(e, F32, 4, ks, (void **)&gv),
    tgv2 = ops_env_tensor(e, F32, 4, ks, (void **)&gv2);
  fill(q, B * SQ * H * D, 1);
  fill(k, B * SK * H * D, 2);
  fill(v, B * SK * H * D, 3);
  fill(go, B * SQ * H * D, 4);
  attention_t fw = (attention_t)ops_env_find(e, "diopiFlashAttention");
  attention_backward_t bw =
      (attention_backward_t)ops_env_find(e, "diopiFlashAttentionBackward");
  float scale = 0.5f, p = 0.4f;
  G g;
  assert_int_equal(bp_ops_generator_create(9, &g), BP_OK);

  /* p > 0 without a generator: refused, naming gen */
  assert_int_equal(
      fw(e->ctx, to, tl, NULL, tq, tk, tv, NULL, p, scale, false, -1, -1),
      diopiErrorOccurred);
  assert_string_equal(last(e),
                      "diopiFlashAttention: gen: p_dropout 0.4 needs a "
                      "generator (the backward regenerates the forward's "
                      "mask from it), got NULL");
  assert_int_equal(
      fw(e->ctx, to, tl, g, tq, tk, tv, NULL, 1.5f, scale, false, -1, -1),
      diopiErrorOccurred);
  assert_string_equal(
      last(e), "diopiFlashAttention: p_dropout: expected within [0, 1], got "
               "1.5");

  /* Backward before any forward drew: the generator is not as a forward
   * left it. */
  assert_int_equal(bw(e->ctx, tgq, tgk, tgv, tgo, g, tq, tk, tv, NULL, to, tl,
                      p, scale, false, -1, -1),
                   diopiErrorOccurred);
  assert_string_equal(last(e),
                      "diopiFlashAttentionBackward: gen: offset 0 is below the "
                      "forward's 48 draws: expected the generator as the "
                      "forward left it");

  assert_int_equal(
      fw(e->ctx, to0, tl2, NULL, tq, tk, tv, NULL, 0, scale, false, -1, -1),
      diopiSuccess);
  assert_int_equal(
      fw(e->ctx, to, tl, g, tq, tk, tv, NULL, p, scale, false, -1, -1),
      diopiSuccess);
  uint64_t seed, offset;
  assert_int_equal(diopiGeneratorGetSeedAndOffset(g, &seed, &offset),
                   diopiSuccess);
  assert_int_equal(offset, B * H * SQ * SK);
  assert_int_equal(bw(e->ctx, tgq, tgk, tgv, tgo, g, tq, tk, tv, NULL, to, tl,
                      p, scale, false, -1, -1),
                   diopiSuccess);
  assert_int_equal(diopiGeneratorGetSeedAndOffset(g, &seed, &offset),
                   diopiSuccess);
  assert_int_equal(offset, B * H * SQ * SK); /* the backward draws nothing */
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);

  /* The same seed again: the same output; the softmax's logsumexp is the
   * undropped one; dropout changed the output. */
  assert_int_equal(diopiGeneratorSetSeedAndOffset(g, 9, 0), diopiSuccess);
  assert_int_equal(
      fw(e->ctx, to2, tl2, g, tq, tk, tv, NULL, p, scale, false, -1, -1),
      diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  bool changed = false;
  for (int i = 0; i < B * SQ * H * D; i++) {
    assert_true(o2[i] == o[i]);
    changed |= fabsf(o0[i] - o[i]) > 1e-3f;
  }
  assert_true(changed);

  /* grad_v_j = sum_i Z_ij P_ij dO_i and out_i = sum_j Z_ij P_ij v_j (Z
   * the dropout factors), so per head sum_j grad_v_j . v_j equals
   * sum_i dO_i . out_i only when the backward used the forward's mask. */
  for (int h = 0; h < H; h++) {
    double lhs = 0, rhs = 0;
    for (int j = 0; j < SK; j++)
      for (int c = 0; c < D; c++)
        lhs += (double)gv[(j * H + h) * D + c] * v[(j * H + h) * D + c];
    for (int i = 0; i < SQ; i++)
      for (int c = 0; c < D; c++)
        rhs += (double)go[(i * H + h) * D + c] * o[(i * H + h) * D + c];
    assert_true(fabs(lhs - rhs) < 1e-4 * (1 + fabs(rhs)));
  }
  /* A second backward with the same generator state: the same mask. */
  assert_int_equal(bw(e->ctx, tgq, tgk, tgv2, tgo, g, tq, tk, tv, NULL, to, tl,
                      p, scale, false, -1, -1),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int i = 0; i < B * SK * H * D; i++)
    assert_true(gv2[i] == gv[i]);

  bp_ops_generator_destroy(g);
  T made[13] = {tq, tk, tv, to, to2, to0, tl, tl2, tgo, tgq, tgk, tgv, tgv2};
  for (int i = 0; i < 13; i++)
    bp_ops_tensor_destroy(made[i]);
}

/* amin over one dim, several dims (kept as size 1) and all dims, on a
 * non-contiguous view: values picked by hand, NaN wins as in PyTorch. */
static void amin_takes_the_minimum_over_dims(void **state) {
  ops_env_t *e = *state;
  diopiError_t (*amin)(CTX, T, CT, diopiSize_t, bool) =
      (diopiError_t(*)(CTX, T, CT, diopiSize_t, bool))ops_env_find(e,
                                                                   "diopiAmin");
  int64_t s23[2] = {2, 3}, s2[1] = {2}, s3[1] = {3}, s11[2] = {1, 1};
  float *x, *rows, *cols, *all, *kept;
  T tx = ops_env_tensor(e, F32, 2, s23, (void **)&x);
  const float values[6] = {4, -1, 7, 2, 9, -3};
  memcpy(x, values, sizeof values);
  T trows = ops_env_tensor(e, F32, 1, s2, (void **)&rows),
    tcols = ops_env_tensor(e, F32, 1, s3, (void **)&cols),
    tall = ops_env_tensor(e, F32, 0, NULL, (void **)&all), /* every dim: 0-d */
      tkept = ops_env_tensor(e, F32, 2, s11, (void **)&kept);
  int64_t dim1 = 1, dim0 = 0, both[2] = {0, 1};
  assert_int_equal(amin(e->ctx, trows, tx, (diopiSize_t){&dim1, 1}, false),
                   diopiSuccess);
  assert_int_equal(amin(e->ctx, tcols, tx, (diopiSize_t){&dim0, 1}, false),
                   diopiSuccess);
  assert_int_equal(amin(e->ctx, tall, tx, (diopiSize_t){NULL, 0}, false),
                   diopiSuccess);
  assert_int_equal(amin(e->ctx, tkept, tx, (diopiSize_t){both, 2}, true),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  assert_true(rows[0] == -1 && rows[1] == -3);
  assert_true(cols[0] == 2 && cols[1] == -1 && cols[2] == -3);
  assert_true(all[0] == -3 && kept[0] == -3);

  x[4] = NAN;
  assert_int_equal(amin(e->ctx, trows, tx, (diopiSize_t){&dim1, 1}, false),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  assert_true(rows[0] == -1 && isnan(rows[1]));

  assert_int_equal(amin(e->ctx, tcols, tx, (diopiSize_t){&dim1, 1}, false),
                   diopiErrorOccurred);
  assert_string_equal(last(e), "diopiAmin: out: expected shape [2], got [3]");
  T made[5] = {tx, trows, tcols, tall, tkept};
  for (int i = 0; i < 5; i++)
    bp_ops_tensor_destroy(made[i]);
}

/* prod over several dims (kept as size 1 or dropped), over every dim, and
 * over a non-contiguous view, float32 and int64: values picked by hand. */
static void prod_dims_multiplies_over_several_dims(void **state) {
  ops_env_t *e = *state;
  diopiError_t (*prod)(CTX, T, CT, diopiSize_t) =
      (diopiError_t(*)(CTX, T, CT, diopiSize_t))ops_env_find(e,
                                                             "diopiProdDims");
  /* x[i][j][k] = values[i * 6 + j * 2 + k], shape [2, 3, 2] */
  int64_t s232[3] = {2, 3, 2}, s3[1] = {3}, s131[3] = {1, 3, 1}, s2[1] = {2};
  float *x, *mid, *kept, *all, *row;
  T tx = ops_env_tensor(e, F32, 3, s232, (void **)&x);
  const float values[12] = {1, 2, 3, 4, 5, 6, -1, 0.5f, 2, -2, 1, 3};
  memcpy(x, values, sizeof values);
  T tmid = ops_env_tensor(e, F32, 1, s3, (void **)&mid),
    tkept = ops_env_tensor(e, F32, 3, s131, (void **)&kept),
    tall = ops_env_tensor(e, F32, 0, NULL, (void **)&all);
  int64_t outer[2] = {0, 2}, negative[2] = {-1, 0};
  assert_int_equal(prod(e->ctx, tmid, tx, (diopiSize_t){outer, 2}),
                   diopiSuccess);
  assert_int_equal(prod(e->ctx, tkept, tx, (diopiSize_t){negative, 2}),
                   diopiSuccess);
  assert_int_equal(prod(e->ctx, tall, tx, (diopiSize_t){NULL, 0}),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  /* j = 0: 1 * 2 * -1 * 0.5; j = 1: 3 * 4 * 2 * -2; j = 2: 5 * 6 * 1 * 3 */
  assert_true(mid[0] == -1 && mid[1] == -48 && mid[2] == 90);
  assert_true(kept[0] == -1 && kept[1] == -48 && kept[2] == 90);
  assert_true(all[0] == 4320);

  /* The view x[:, ::2, 1] (strides 6 and 4) over its dim 1: [2 * 6, 0.5 *
   * 3]. */
  int64_t view_shape[2] = {2, 2}, view_strides[2] = {6, 4};
  T view, trow = ops_env_tensor(e, F32, 1, s2, (void **)&row);
  assert_int_equal(bp_ops_tensor_wrap(e->device, x + 1, F32, 2, view_shape,
                                      view_strides, &view),
                   BP_OK);
  int64_t dim1 = 1;
  assert_int_equal(prod(e->ctx, trow, view, (diopiSize_t){&dim1, 1}),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  assert_true(row[0] == 12 && row[1] == 1.5f);

  int64_t *ints, *iprod;
  T tints = ops_env_tensor(e, diopi_dtype_int64, 3, s232, (void **)&ints),
    tiprod = ops_env_tensor(e, diopi_dtype_int64, 1, s3, (void **)&iprod);
  for (int i = 0; i < 12; i++)
    ints[i] = i + 1;
  assert_int_equal(prod(e->ctx, tiprod, tints, (diopiSize_t){outer, 2}),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  /* j = 0: 1 * 2 * 7 * 8; j = 1: 3 * 4 * 9 * 10; j = 2: 5 * 6 * 11 * 12 */
  assert_true(iprod[0] == 112 && iprod[1] == 1080 && iprod[2] == 3960);

  assert_int_equal(prod(e->ctx, tmid, tx, (diopiSize_t){&dim1, 1}),
                   diopiErrorOccurred);
  assert_string_equal(last(e),
                      "diopiProdDims: out: expected shape [2, 2], got [3]");
  T made[8] = {tx, tmid, tkept, tall, view, trow, tints, tiprod};
  for (int i = 0; i < 8; i++)
    bp_ops_tensor_destroy(made[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(extension_ops_name_the_bad_argument),
      cmocka_unit_test(dropout_with_a_channel_mask_drops_whole_channels),
      cmocka_unit_test(attention_dropout_repeats_and_backward_uses_its_mask),
      cmocka_unit_test(amin_takes_the_minimum_over_dims),
      cmocka_unit_test(prod_dims_multiplies_over_several_dims),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
