/* The case table of `backplane bench ops` and the calls that run each
 * case's op. Sizes: the original rows keep theirs (GEMM, 8 Mi-element
 * elementwise, 2048x1024 rows, two ResNet-like convolutions); the rows of
 * the other ops use the larger shapes DIOPI's own test configurations use
 * most (2x32x130x130 images, 2x128x3072 rows, 384x128 and 4096x256 tables),
 * with attributes as PyTorch's defaults give them. */
#include "bench_ops_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/ops.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;
typedef diopiContextHandle_t CTX;
typedef diopiSize_t Z;
typedef const diopiScalar_t *S;
typedef diopiGeneratorHandle_t G;

#define FN(...) ((diopiError_t(*)(CTX, __VA_ARGS__))c->fn)
#define IN(k) ((CT)c->t[k])
#define SCALAR(v) ((diopiScalar_t){.stype = diopi_dtype_float64, .fval = (v)})
#define SIZE(...)                                                              \
  ((Z){(const int64_t[]){__VA_ARGS__},                                         \
       sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)})

static const int64_t LAST = -1;

/* out = op(in) */
static diopiError_t unary(const ops_call_t *c) {
  return FN(T, CT)(c->ctx, c->t[1], IN(0));
}
/* out = op(a, b) */
static diopiError_t binary(const ops_call_t *c) {
  return FN(T, CT, CT)(c->ctx, c->t[2], IN(0), IN(1));
}
/* out = op(a, b, c) */
static diopiError_t ternary(const ops_call_t *c) {
  return FN(T, CT, CT, CT)(c->ctx, c->t[3], IN(0), IN(1), IN(2));
}
/* out = op(in, dim = -1) */
static diopiError_t last_dim(const ops_call_t *c) {
  return FN(T, CT, int64_t)(c->ctx, c->t[1], IN(0), -1);
}

#define CALL_S1(name, v)                                                       \
  static diopiError_t name(const ops_call_t *c) {                              \
    diopiScalar_t s = SCALAR(v);                                               \
    return FN(T, CT, S)(c->ctx, c->t[1], IN(0), &s);                           \
  }
#define CALL_S2(name, v, w)                                                    \
  static diopiError_t name(const ops_call_t *c) {                              \
    diopiScalar_t s = SCALAR(v), u = SCALAR(w);                                \
    return FN(T, CT, S, S)(c->ctx, c->t[1], IN(0), &s, &u);                    \
  }
#define CALL_BIN_S(name, v)                                                    \
  static diopiError_t name(const ops_call_t *c) {                              \
    diopiScalar_t s = SCALAR(v);                                               \
    return FN(T, CT, CT, S)(c->ctx, c->t[2], IN(0), IN(1), &s);                \
  }
#define CALL_TER_S(name, v)                                                    \
  static diopiError_t name(const ops_call_t *c) {                              \
    diopiScalar_t s = SCALAR(v);                                               \
    return FN(T, CT, CT, CT, S)(c->ctx, c->t[3], IN(0), IN(1), IN(2), &s);     \
  }

CALL_S1(leaky_relu, 0.01)
CALL_S1(pow_2, 2.0)
CALL_S1(scalar_0, 0.0)
CALL_S1(scalar_1_5, 1.5)
CALL_S2(clamp_half, -0.5, 0.5)
CALL_S2(hardtanh, -1.0, 1.0)
CALL_S2(threshold, 0.1, 20.0)
CALL_S2(add_scalar, 1.5, 1.0)
CALL_BIN_S(alpha_1, 1.0)
CALL_BIN_S(lerp_scalar, 0.3)
CALL_BIN_S(masked_fill, 0.0)
CALL_TER_S(addc_half, 0.5)

static diopiError_t gelu(const ops_call_t *c) {
  return FN(T, CT, const char *)(c->ctx, c->t[1], IN(0), "none");
}
static diopiError_t div_true(const ops_call_t *c) {
  return FN(T, CT, CT, diopiRoundMode_t)(c->ctx, c->t[2], IN(0), IN(1),
                                         RoundModeNone);
}
static diopiError_t copy(const ops_call_t *c) {
  return ((diopiError_t(*)(CTX, CT, T))c->fn)(c->ctx, IN(0), c->t[1]);
}

/* Reductions over the last dim (or all of them). */
static diopiError_t sum_dims(const ops_call_t *c, Z dims) {
  return FN(T, CT, Z)(c->ctx, c->t[1], IN(0), dims);
}
static diopiError_t sum_last(const ops_call_t *c) {
  return sum_dims(c, (Z){&LAST, 1});
}
static diopiError_t sum_first(const ops_call_t *c) {
  static const int64_t first = 0;
  return sum_dims(c, (Z){&first, 1});
}
static diopiError_t sum_all(const ops_call_t *c) {
  return sum_dims(c, (Z){NULL, 0});
}
static diopiError_t max_last(const ops_call_t *c) {
  return FN(T, T, CT, int64_t)(c->ctx, c->t[1], c->t[2], IN(0), -1);
}
static diopiError_t amax_last(const ops_call_t *c) {
  return FN(T, CT, Z, bool)(c->ctx, c->t[1], IN(0), (Z){&LAST, 1}, false);
}
static diopiError_t argmax_last(const ops_call_t *c) {
  return FN(T, CT, const int64_t *, bool)(c->ctx, c->t[1], IN(0), &LAST, false);
}
static diopiError_t dim_ptr_last(const ops_call_t *c) { /* prod, any, all */
  return FN(T, CT, const int64_t *)(c->ctx, c->t[1], IN(0), &LAST);
}
static diopiError_t norm_2(const ops_call_t *c) {
  diopiScalar_t p = SCALAR(2.0);
  return FN(T, CT, S, Z)(c->ctx, c->t[1], IN(0), &p, (Z){&LAST, 1});
}
static diopiError_t vector_norm_inf(const ops_call_t *c) {
  diopiScalar_t p = SCALAR(1.0 / 0.0);
  return FN(T, CT, diopiScalar_t *, Z, bool)(c->ctx, c->t[1], IN(0), &p,
                                             (Z){&LAST, 1}, false);
}
static diopiError_t std_last(const ops_call_t *c) {
  diopiScalar_t correction = SCALAR(1.0);
  return FN(T, CT, Z, S)(c->ctx, c->t[1], IN(0), (Z){&LAST, 1}, &correction);
}
static diopiError_t topk_16(const ops_call_t *c) {
  return FN(T, T, CT, int64_t, int64_t, bool, bool)(c->ctx, c->t[1], c->t[2],
                                                    IN(0), 16, -1, true, true);
}
static diopiError_t sort_last(const ops_call_t *c) {
  return FN(T, T, CT, int64_t, bool, const bool *)(c->ctx, c->t[1], c->t[2],
                                                   IN(0), -1, false, NULL);
}

/* Norms. */
static diopiError_t layer_norm(const ops_call_t *c) {
  static const int64_t cols = 1024;
  return FN(T, T, T, CT, CT, CT, Z, double)(c->ctx, c->t[1], NULL, NULL, IN(0),
                                            NULL, NULL, (Z){&cols, 1}, 1e-5);
}
static diopiError_t group_norm_8(const ops_call_t *c) {
  return FN(T, T, T, CT, CT, CT, int64_t, double)(
      c->ctx, c->t[3], c->t[4], c->t[5], IN(0), IN(1), IN(2), 8, 1e-5);
}
static diopiError_t rms_norm(const ops_call_t *c) {
  static const int64_t cols = 3072;
  return FN(T, T, CT, Z, CT, CT, double)(c->ctx, c->t[2], c->t[3], IN(0),
                                         (Z){&cols, 1}, IN(1), NULL, 1e-6);
}

/* Pooling, interpolation, padding: 3x3 windows, stride 2, padding 1. */
static diopiError_t avg_pool(const ops_call_t *c) {
  return FN(T, CT, Z, Z, Z, bool, bool,
            const int64_t *)(c->ctx, c->t[1], IN(0), SIZE(3, 3), SIZE(2, 2),
                             SIZE(1, 1), false, true, NULL);
}
static diopiError_t max_pool(const ops_call_t *c) {
  return FN(T, CT, Z, Z, Z, Z, bool)(c->ctx, c->t[1], IN(0), SIZE(3, 3),
                                     SIZE(2, 2), SIZE(1, 1), SIZE(1, 1), false);
}
static diopiError_t size_7x7(const ops_call_t *c) { /* adaptive pools */
  return FN(T, CT, Z)(c->ctx, c->t[1], IN(0), SIZE(7, 7));
}
static diopiError_t size_130(const ops_call_t *c) { /* nearest upsampling */
  return FN(T, CT, Z)(c->ctx, c->t[1], IN(0), SIZE(130, 130));
}
static diopiError_t bilinear_130(const ops_call_t *c) {
  return FN(T, CT, Z, bool, const char *)(c->ctx, c->t[1], IN(0),
                                          SIZE(130, 130), false, "bilinear");
}
static diopiError_t pad_mode(const ops_call_t *c, const char *mode) {
  static const double zero = 0;
  return FN(T, CT, Z, const char *,
            const double *)(c->ctx, c->t[1], IN(0), SIZE(1, 1, 1, 1), mode,
                            strcmp(mode, "constant") ? NULL : &zero);
}
static diopiError_t pad_constant(const ops_call_t *c) {
  return pad_mode(c, "constant");
}
static diopiError_t pad_reflect(const ops_call_t *c) {
  return pad_mode(c, "reflect");
}
static diopiError_t pad_replicate(const ops_call_t *c) {
  return pad_mode(c, "replicate");
}

/* Shape and indexing. */
static diopiError_t stack_2(const ops_call_t *c) {
  CT in[2] = {IN(0), IN(1)};
  return FN(T, CT *, int64_t, int64_t)(c->ctx, c->t[2], in, 2, 0);
}
static diopiError_t split_halves(const ops_call_t *c) {
  T outs[2] = {c->t[1], c->t[2]};
  return FN(T *, int64_t, CT, const Z, int64_t)(c->ctx, outs, 2, IN(0),
                                                SIZE(1536, 1536), -1);
}
static diopiError_t repeat_2x2(const ops_call_t *c) {
  return FN(T, CT, Z)(c->ctx, c->t[1], IN(0), SIZE(1, 1, 2, 2));
}
static diopiError_t flip_last(const ops_call_t *c) {
  return FN(T, CT, Z)(c->ctx, c->t[1], IN(0), (Z){&LAST, 1});
}
static diopiError_t roll_last(const ops_call_t *c) {
  return FN(T, CT, Z, Z)(c->ctx, c->t[1], IN(0), SIZE(1), (Z){&LAST, 1});
}
static diopiError_t diagonal_0(const ops_call_t *c) { /* tril, triu */
  return FN(T, CT, int64_t)(c->ctx, c->t[1], IN(0), 0);
}
static diopiError_t one_hot(const ops_call_t *c) {
  return FN(T, CT, int64_t)(c->ctx, c->t[1], IN(0), 1000);
}
static diopiError_t arange(const ops_call_t *c) {
  diopiScalar_t start = SCALAR(0), end = SCALAR(1 << 20), step = SCALAR(1);
  return FN(T, S, S, S)(c->ctx, c->t[0], &start, &end, &step);
}
static diopiError_t linspace(const ops_call_t *c) {
  diopiScalar_t start = SCALAR(0), end = SCALAR(1);
  return FN(T, S, S, int64_t)(c->ctx, c->t[0], &start, &end, 1 << 20);
}
static diopiError_t fill(const ops_call_t *c) {
  diopiScalar_t value = SCALAR(1.5);
  return FN(T, S)(c->ctx, c->t[0], &value);
}
static diopiError_t gather_last(const ops_call_t *c) {
  return FN(T, CT, int64_t, CT)(c->ctx, c->t[2], IN(0), -1, IN(1));
}
static diopiError_t index_select_0(const ops_call_t *c) {
  return FN(T, CT, int64_t, CT)(c->ctx, c->t[2], IN(0), 0, IN(1));
}
static diopiError_t embedding(const ops_call_t *c) {
  return FN(T, CT, CT, int64_t, bool, bool)(c->ctx, c->t[2], IN(0), IN(1), -1,
                                            false, false);
}
static diopiError_t scatter_reduce(const ops_call_t *c, const char *reduce) {
  return FN(T, CT, int64_t, CT, CT, const char *)(c->ctx, c->t[3], IN(0), -1,
                                                  IN(1), IN(2), reduce);
}
static diopiError_t scatter(const ops_call_t *c) {
  return scatter_reduce(c, "");
}
static diopiError_t scatter_add(const ops_call_t *c) {
  return scatter_reduce(c, "add");
}
static diopiError_t index_put_acc(const ops_call_t *c) {
  CT indices[1] = {IN(2)};
  return FN(T, CT, CT, CT *, int64_t, bool)(c->ctx, c->t[3], IN(0), IN(1),
                                            indices, 1, true);
}
static diopiError_t masked_select(const ops_call_t *c) {
  T out = NULL;
  return FN(T *, CT, CT)(c->ctx, &out, IN(0), IN(1));
}
static diopiError_t nonzero(const ops_call_t *c) {
  T out = NULL;
  return FN(T *, CT)(c->ctx, &out, IN(0));
}
static diopiError_t gather_backward(const ops_call_t *c) {
  return FN(T, CT, CT, int64_t, CT)(c->ctx, c->t[3], IN(0), IN(1), -1, IN(2));
}
static diopiError_t index_select_backward(const ops_call_t *c) {
  return FN(T, CT, Z, int64_t, CT)(c->ctx, c->t[2], IN(0), SIZE(4096, 256), 0,
                                   IN(1));
}

/* nn. */
static diopiError_t conv2d(const ops_call_t *c) {
  return FN(T, CT, CT, CT, Z, Z, Z, int64_t)(c->ctx, c->t[2], IN(0), IN(1),
                                             NULL, SIZE(1, 1), SIZE(1, 1),
                                             SIZE(1, 1), 1);
}
/* conv3d with the attributes of DIOPI's conv3d configurations: kernel
 * 5x1x1 (stride (2, 1, 1), padding (1, 0, 1), dilation (2, 1, 1), 2
 * groups), 1x3x3 (stride 3, 2 groups), 1x1x1 (padding (1, 0, 1),
 * dilation (2, 1, 1)); out = op(input, weight, bias). */
static diopiError_t conv3d_k511(const ops_call_t *c) {
  return FN(T, CT, CT, CT, Z, Z, Z, int64_t)(c->ctx, c->t[3], IN(0), IN(1),
                                             IN(2), SIZE(2, 1, 1),
                                             SIZE(1, 0, 1), SIZE(2, 1, 1), 2);
}
static diopiError_t conv3d_k133(const ops_call_t *c) {
  return FN(T, CT, CT, CT, Z, Z, Z, int64_t)(c->ctx, c->t[3], IN(0), IN(1),
                                             IN(2), SIZE(3, 3, 3),
                                             SIZE(0, 0, 0), SIZE(1, 1, 1), 2);
}
static diopiError_t conv3d_k111(const ops_call_t *c) {
  return FN(T, CT, CT, CT, Z, Z, Z, int64_t)(c->ctx, c->t[3], IN(0), IN(1),
                                             IN(2), SIZE(1, 1, 1),
                                             SIZE(1, 0, 1), SIZE(2, 1, 1), 1);
}
/* conv3d_k133's backward: (grad_input, grad_weight, grad_bias) from
 * (input, weight, grad_output). */
static diopiError_t conv3d_backward_k133(const ops_call_t *c) {
  Z bias_sizes = SIZE(64);
  return FN(T, T, T, CT, CT, CT, Z *, Z, Z, Z, int64_t)(
      c->ctx, c->t[3], c->t[4], c->t[5], IN(2), IN(0), IN(1), &bias_sizes,
      SIZE(3, 3, 3), SIZE(0, 0, 0), SIZE(1, 1, 1), 2);
}
static diopiError_t conv_transpose(const ops_call_t *c) {
  return FN(T, CT, CT, CT, Z, Z, Z, int64_t, Z)(c->ctx, c->t[2], IN(0), IN(1),
                                                NULL, SIZE(2, 2), SIZE(1, 1),
                                                SIZE(1, 1), 1, SIZE(1, 1));
}
static diopiError_t baddbmm(const ops_call_t *c) {
  return FN(T, CT, CT, CT, double, double)(c->ctx, c->t[3], IN(0), IN(1), IN(2),
                                           1.0, 1.0);
}
static diopiError_t attention(const ops_call_t *c) {
  return FN(T, T, G, CT, CT, CT, CT, float, float, bool, int32_t,
            int32_t)(c->ctx, c->t[3], c->t[4], NULL, IN(0), IN(1), IN(2), NULL,
                     0.0f, 0.125f, false, -1, -1);
}
static diopiError_t dropout(const ops_call_t *c) {
  return FN(T, T, CT, double, bool, G)(c->ctx, c->t[1], c->t[2], IN(0), 0.5,
                                       true, NULL);
}
/* Attention's and channel dropout's draws: one generator for the run. */
static G bench_generator(void) {
  static G generator;
  if (!generator && bp_ops_generator_create(1234, &generator))
    generator = NULL;
  return generator;
}
static diopiError_t attention_dropout(const ops_call_t *c) {
  return FN(T, T, G, CT, CT, CT, CT, float, float, bool, int32_t,
            int32_t)(c->ctx, c->t[3], c->t[4], bench_generator(), IN(0), IN(1),
                     IN(2), NULL, 0.1f, 0.125f, false, -1, -1);
}
static diopiError_t dropout2d(const ops_call_t *c) {
  return FN(T, T, CT, double, bool, G)(c->ctx, c->t[1], c->t[2], IN(0), 0.5,
                                       true, bench_generator());
}
static diopiError_t eye(const ops_call_t *c) {
  return FN(T, int64_t, int64_t)(c->ctx, c->t[0], 2048, 2048);
}
static diopiError_t clip_grad_norm(const ops_call_t *c) {
  double norm;
  T grads[4] = {c->t[0], c->t[1], c->t[2], c->t[3]};
  return ((diopiError_t(*)(CTX, double *, T *, int64_t, double, double,
                           bool))c->fn)(c->ctx, &norm, grads, 4, 1.0, 2.0,
                                        false);
}

/* Losses, reduced to their mean. */
static diopiError_t loss_mean(const ops_call_t *c) { /* mse */
  return FN(T, CT, CT, diopiReduction_t)(c->ctx, c->t[2], IN(0), IN(1),
                                         ReductionMean);
}
static diopiError_t smooth_l1(const ops_call_t *c) {
  return FN(T, CT, CT, diopiReduction_t, double)(c->ctx, c->t[2], IN(0), IN(1),
                                                 ReductionMean, 1.0);
}
static diopiError_t bce(const ops_call_t *c) {
  return FN(T, CT, CT, CT, diopiReduction_t)(c->ctx, c->t[2], IN(0), IN(1),
                                             NULL, ReductionMean);
}
static diopiError_t bce_logits(const ops_call_t *c) {
  return FN(T, CT, CT, CT, CT, diopiReduction_t)(c->ctx, c->t[2], IN(0), IN(1),
                                                 NULL, NULL, ReductionMean);
}
static diopiError_t kl_div(const ops_call_t *c) {
  return FN(T, CT, CT, diopiReduction_t, bool)(c->ctx, c->t[2], IN(0), IN(1),
                                               ReductionMean, false);
}
static diopiError_t nll_loss(const ops_call_t *c) {
  return FN(T, CT, CT, CT, diopiReduction_t,
            int64_t)(c->ctx, c->t[2], IN(0), IN(1), NULL, ReductionMean, -100);
}
static diopiError_t cross_entropy(const ops_call_t *c) {
  return FN(T, CT, CT, CT, diopiReduction_t, int64_t, double)(
      c->ctx, c->t[2], IN(0), IN(1), NULL, ReductionMean, -100, 0.0);
}

/* Optimizers: one step on (param, grad, state...), all updated in place. */
static diopiError_t adam_wd(const ops_call_t *c, float weight_decay) {
  return FN(T, CT, T, T, T, float, float, float, float, float, int64_t,
            bool)(c->ctx, c->t[0], IN(1), c->t[2], c->t[3], NULL, 1e-3f, 0.9f,
                  0.999f, 1e-8f, weight_decay, 1, false);
}
static diopiError_t adam(const ops_call_t *c) {
  return adam_wd(c, 0.0f);
}
static diopiError_t adamw(const ops_call_t *c) {
  return adam_wd(c, 0.01f);
}
static diopiError_t sgd_momentum(const ops_call_t *c) {
  return FN(T, T, T, double, double, double, double, bool)(
      c->ctx, c->t[0], c->t[1], c->t[2], 0.01, 0.9, 0.0, 0.0, false);
}
static diopiError_t rmsprop(const ops_call_t *c) {
  return FN(T, CT, T, T, T, float, float, float, float, float,
            bool)(c->ctx, c->t[0], IN(1), c->t[2], NULL, NULL, 0.01f, 0.99f,
                  1e-8f, 0.0f, 0.0f, false);
}
static diopiError_t adagrad(const ops_call_t *c) {
  return FN(T, CT, T, float, float, float, float, int64_t)(
      c->ctx, c->t[0], IN(1), c->t[2], 0.01f, 0.0f, 0.0f, 1e-10f, 1);
}
static diopiError_t fused_adamw(const ops_call_t *c) {
  T params[2] = {c->t[0], c->t[1]}, avgs[2] = {c->t[4], c->t[5]},
    sqs[2] = {c->t[6], c->t[7]};
  CT grads[2] = {IN(2), IN(3)}, steps[2] = {IN(8), IN(9)};
  return FN(T *, CT *, T *, T *, T *, CT *, int64_t, double, double, double,
            double, double, bool, bool)(c->ctx, params, grads, avgs, sqs, NULL,
                                        steps, 2, 1e-3, 0.9, 0.999, 1e-8, 0.01,
                                        false, false);
}

/* Random. */
static diopiError_t normal(const ops_call_t *c) {
  return FN(T, double, double, G)(c->ctx, c->t[0], 0.0, 1.0, NULL);
}
static diopiError_t bernoulli(const ops_call_t *c) {
  return FN(T, double, G)(c->ctx, c->t[0], 0.5, NULL);
}
static diopiError_t randperm(const ops_call_t *c) {
  return FN(T, int64_t, G)(c->ctx, c->t[0], 1 << 20, NULL);
}
static diopiError_t multinomial(const ops_call_t *c) {
  return FN(T, CT, int64_t, bool, G)(c->ctx, c->t[1], IN(0), 16, false, NULL);
}

/* Shapes of the table. */
#define E "2,32,130,130"      /* images */
#define R "2,128,3072"        /* rows */
#define R1 "2,128"            /* rows, reduced */
#define M "8388608"           /* the memcpy-rated elementwise size */
#define ATT "2,512,8,64"      /* attention: batch, sequence, heads, dim */
#define HALF_E "2,32,65,65"   /* half-size images */
#define POOLED "2,32,65,65"   /* E through 3x3, stride 2, padding 1 */
#define PADDED "2,32,128,128" /* E less padding 1 */

typedef struct case_row {
  const char *op, *diopi;
  ops_call_fn_t call;
  int ninputs;
  const char *specs;
  ops_baseline_t vs;
} case_row_t;

#define UN(op, fn, in, out)                                                    \
  { op, fn, unary, 1, in ":" E " " out ":" E, VS_NONE }
#define UNM(op, fn)                                                            \
  { op, fn, unary, 1, "f:" M " f:" M, VS_MEMCPY }

/* The rows beyond the original ones (which make_original adds). */
static const case_row_t ROWS[] = {
    /* elementwise, unary */
    UN("exp", "diopiExp", "f", "f"),
    UN("log", "diopiLog", "p", "f"),
    UN("log2", "diopiLog2", "p", "f"),
    UN("log10", "diopiLog10", "p", "f"),
    UN("log1p", "diopiLog1p", "p", "f"),
    UN("sqrt", "diopiSqrt", "p", "f"),
    UN("rsqrt", "diopiRsqrt", "p", "f"),
    UN("neg", "diopiNeg", "f", "f"),
    UN("abs", "diopiAbs", "f", "f"),
    UN("reciprocal", "diopiReciprocal", "p", "f"),
    UN("sign", "diopiSign", "f", "f"),
    UN("sin", "diopiSin", "f", "f"),
    UN("cos", "diopiCos", "f", "f"),
    UN("erf", "diopiErf", "f", "f"),
    UN("floor", "diopiFloor", "f", "f"),
    UN("ceil", "diopiCeil", "f", "f"),
    UN("sigmoid", "diopiSigmoid", "f", "f"),
    UN("tanh", "diopiTanh", "f", "f"),
    UN("silu", "diopiSilu", "f", "f"),
    UN("hardswish", "diopiHardswish", "f", "f"),
    UN("digamma", "diopiDigamma", "p", "f"),
    {"gelu", "diopiGelu", gelu, 1, "f:" E " f:" E, VS_NONE},
    {"leaky_relu", "diopiLeakyRelu", leaky_relu, 1, "f:" E " f:" E, VS_NONE},
    {"hardtanh", "diopiHardtanh", hardtanh, 1, "f:" E " f:" E, VS_NONE},
    {"threshold", "diopiThreshold", threshold, 1, "f:" E " f:" E, VS_NONE},
    {"clamp", "diopiClampScalar", clamp_half, 1, "f:" E " f:" E, VS_NONE},
    {"clamp_min", "diopiClampMinScalar", scalar_0, 1, "f:" E " f:" E, VS_NONE},
    {"pow", "diopiPow", pow_2, 1, "f:" E " f:" E, VS_NONE},
    {"mul_scalar", "diopiMulScalar", scalar_1_5, 1, "f:" E " f:" E, VS_NONE},
    {"add_scalar", "diopiAddScalar", add_scalar, 1, "f:" E " f:" E, VS_NONE},
    /* elementwise, binary and more */
    {"sub", "diopiSub", alpha_1, 2, "f:" E " f:" E " f:" E, VS_NONE},
    {"div", "diopiDiv", div_true, 2, "f:" E " p:" E " f:" E, VS_NONE},
    {"maximum", "diopiMaximum", binary, 2, "f:" E " f:" E " f:" E, VS_NONE},
    {"pow_tensor", "diopiPowTensor", binary, 2, "p:" E " f:" E " f:" E,
     VS_NONE},
    {"add_bcast", "diopiAdd", alpha_1, 2, "f:" R " f:3072 f:" R, VS_NONE},
    {"mul_bcast", "diopiMul", binary, 2, "f:" R " f:2,128,1 f:" R, VS_NONE},
    {"where", "diopiWhere", ternary, 3, "b:" E " f:" E " f:" E " f:" E,
     VS_NONE},
    {"masked_fill", "diopiMaskedFillScalar", masked_fill, 2,
     "f:" E " b:" E " f:" E, VS_NONE},
    {"addcmul", "diopiAddcmul", addc_half, 3, "f:" E " f:" E " f:" E " f:" E,
     VS_NONE},
    {"addcdiv", "diopiAddcdiv", addc_half, 3, "f:" E " f:" E " p:" E " f:" E,
     VS_NONE},
    {"lerp", "diopiLerpScalar", lerp_scalar, 2, "f:" E " f:" E " f:" E,
     VS_NONE},
    {"clamp_tensor", "diopiClamp", ternary, 3, "f:" E " f:" E " p:" E " f:" E,
     VS_NONE},
    /* elementwise against memcpy */
    {"sub", "diopiSub", alpha_1, 2, "f:" M " f:" M " f:" M, VS_MEMCPY},
    {"div", "diopiDiv", div_true, 2, "f:" M " p:" M " f:" M, VS_MEMCPY},
    UNM("neg", "diopiNeg"),
    UNM("exp", "diopiExp"),
    UNM("sigmoid", "diopiSigmoid"),
    {"clamp", "diopiClampScalar", clamp_half, 1, "f:" M " f:" M, VS_MEMCPY},
    /* comparison and logic */
    {"eq", "diopiEq", binary, 2, "f:" E " f:" E " b:" E, VS_NONE},
    {"lt", "diopiLt", binary, 2, "f:" E " f:" E " b:" E, VS_NONE},
    {"ge_scalar", "diopiGeScalar", scalar_0, 1, "f:" E " b:" E, VS_NONE},
    {"logical_and", "diopiLogicalAnd", binary, 2, "b:" E " b:" E " b:" E,
     VS_NONE},
    {"logical_not", "diopiLogicalNot", unary, 1, "b:" E " b:" E, VS_NONE},
    {"bitwise_and", "diopiBitwiseAnd", binary, 2, "n:" E " n:" E " n:" E,
     VS_NONE},
    {"isnan", "diopiIsNan", unary, 1, "f:" E " b:" E, VS_NONE},
    /* reductions */
    {"sum_last", "diopiSum", sum_last, 1, "f:" R " f:" R1, VS_NONE},
    {"sum_all", "diopiSum", sum_all, 1, "f:" R " f:", VS_NONE},
    {"mean", "diopiMean", sum_last, 1, "f:" R " f:" R1, VS_NONE},
    {"max_dim", "diopiMax", max_last, 1, "f:" R " f:" R1 " i1:" R1, VS_NONE},
    {"min_dim", "diopiMin", max_last, 1, "f:" R " f:" R1 " i1:" R1, VS_NONE},
    {"amax", "diopiAmax", amax_last, 1, "f:" R " f:" R1, VS_NONE},
    {"argmax", "diopiArgmax", argmax_last, 1, "f:" R " i1:" R1, VS_NONE},
    {"max_all", "diopiMaxAll", unary, 1, "f:" R " f:", VS_NONE},
    {"min_all", "diopiMinAll", unary, 1, "f:" R " f:", VS_NONE},
    {"prod", "diopiProd", dim_ptr_last, 1, "p:" R " f:" R1, VS_NONE},
    {"any", "diopiAny", dim_ptr_last, 1, "b:" R " b:" R1, VS_NONE},
    {"all", "diopiAll", dim_ptr_last, 1, "b:" R " b:" R1, VS_NONE},
    {"norm", "diopiNorm", norm_2, 1, "f:" R " f:" R1, VS_NONE},
    {"vector_norm_inf", "diopiLinalgVecNorm", vector_norm_inf, 1,
     "f:" R " f:" R1, VS_NONE},
    {"std", "diopiStd", std_last, 1, "f:" R " f:" R1, VS_NONE},
    {"var", "diopiVar", std_last, 1, "f:" R " f:" R1, VS_NONE},
    {"logsumexp", "diopiLogsumexp", sum_last, 1, "f:" R " f:" R1, VS_NONE},
    {"cumsum", "diopiCumsum", last_dim, 1, "f:" R " f:" R, VS_NONE},
    {"topk", "diopiTopk", topk_16, 1, "f:" R " f:2,128,16 i1:2,128,16",
     VS_NONE},
    {"sort", "diopiSort", sort_last, 1, "f:" R " f:" R " i1:" R, VS_NONE},
    {"softmax", "diopiSoftmax", last_dim, 1, "f:" R " f:" R, VS_NONE},
    {"log_softmax", "diopiLogSoftmax", last_dim, 1, "f:" R " f:" R, VS_NONE},
    /* norms */
    {"group_norm", "diopiGroupNorm", group_norm_8, 3,
     "f:" E " f:32 f:32 f:" E " f:2,8 f:2,8", VS_NONE},
    {"rms_norm", "diopiRMSNorm", rms_norm, 2,
     "f:" R " f:3072 f:" R " f:2,128,1", VS_NONE},
    /* pooling, interpolation, padding */
    {"avg_pool2d", "diopiAvgPool2d", avg_pool, 1, "f:" E " f:" POOLED, VS_NONE},
    {"max_pool2d", "diopiMaxPool2d", max_pool, 1, "f:" E " f:" POOLED, VS_NONE},
    {"adaptive_max_pool2d", "diopiAdaptiveMaxPool2d", size_7x7, 1,
     "f:" E " f:2,32,7,7", VS_NONE},
    {"adaptive_avg_pool2d", "diopiAdaptiveAvgPool2d", size_7x7, 1,
     "f:" E " f:2,32,7,7", VS_NONE},
    {"upsample_nearest", "diopiUpsampleNearest", size_130, 1,
     "f:" HALF_E " f:" E, VS_NONE},
    {"upsample_bilinear", "diopiUpsampleLinear", bilinear_130, 1,
     "f:" HALF_E " f:" E, VS_NONE},
    {"pad_constant", "diopiPad", pad_constant, 1, "f:" PADDED " f:" E, VS_NONE},
    {"pad_reflect", "diopiPad", pad_reflect, 1, "f:" PADDED " f:" E, VS_NONE},
    {"pad_replicate", "diopiPad", pad_replicate, 1, "f:" PADDED " f:" E,
     VS_NONE},
    /* shape and indexing */
    {"stack", "diopiStack", stack_2, 2, "f:" E " f:" E " f:2,2,32,130,130",
     VS_NONE},
    {"split", "diopiSplitWithSizes", split_halves, 1,
     "f:" R " f:2,128,1536 f:2,128,1536", VS_NONE},
    {"expand", "diopiExpand", unary, 1, "f:1,3072 f:" R, VS_NONE},
    {"repeat", "diopiRepeat", repeat_2x2, 1, "f:" HALF_E " f:" E, VS_NONE},
    {"flip", "diopiFlip", flip_last, 1, "f:" E " f:" E, VS_NONE},
    {"roll", "diopiRoll", roll_last, 1, "f:" E " f:" E, VS_NONE},
    {"tril", "diopiTril", diagonal_0, 1, "f:16,256,256 f:16,256,256", VS_NONE},
    {"triu", "diopiTriu", diagonal_0, 1, "f:16,256,256 f:16,256,256", VS_NONE},
    {"one_hot", "diopiOneHot", one_hot, 1, "i1000:4096 i1:4096,1000", VS_NONE},
    {"arange", "diopiArange", arange, 0, "f:1048576", VS_NONE},
    {"linspace", "diopiLinspace", linspace, 0, "f:1048576", VS_NONE},
    {"fill", "diopiFill", fill, 0, "f:" E, VS_NONE},
    {"eye", "diopiEye", eye, 0, "f:2048,2048", VS_NONE},
    {"gather", "diopiGather", gather_last, 2, "f:" R " i3072:" R " f:" R,
     VS_NONE},
    {"index_select", "diopiIndexSelect", index_select_0, 2,
     "f:4096,256 i4096:2048 f:2048,256", VS_NONE},
    {"embedding", "diopiEmbedding", embedding, 2,
     "f:30000,256 i30000:4096 f:4096,256", VS_NONE},
    {"scatter", "diopiScatter", scatter, 3, "f:" R " f:" R " i3072:" R " f:" R,
     VS_NONE},
    {"scatter_add", "diopiScatter", scatter_add, 3,
     "f:" R " f:" R " i3072:" R " f:" R, VS_NONE},
    {"index_put_acc", "diopiIndexPut", index_put_acc, 3,
     "f:4096,256 f:2048,256 i4096:2048 f:4096,256", VS_NONE},
    {"masked_select", "diopiMaskedSelect", masked_select, 2, "f:" R " b:" R,
     VS_NONE},
    {"nonzero", "diopiNonzero", nonzero, 1, "b:" R, VS_NONE},
    {"gather_backward", "diopiGatherBackward", gather_backward, 3,
     "f:" R " f:" R " i3072:" R " f:" R, VS_NONE},
    {"index_select_backward", "diopiIndexSelectBackward", index_select_backward,
     2, "f:2048,256 i4096:2048 f:4096,256", VS_NONE},
    /* nn */
    {"conv_transpose2d", "diopiConvTranspose2d", conv_transpose, 2,
     "f:8,64,28,28 f:64,32,3,3 f:8,32,56,56", VS_NONE},
    {"conv3d_k511", "diopiConvolution3d", conv3d_k511, 3,
     "f:1,16,32,56,56 f:16,8,5,1,1 f:16 f:1,16,13,56,58", VS_NONE},
    {"conv3d_k133", "diopiConvolution3d", conv3d_k133, 3,
     "f:1,128,4,56,56 f:64,64,1,3,3 f:64 f:1,64,2,18,18", VS_NONE},
    {"conv3d_k111", "diopiConvolution3d", conv3d_k111, 3,
     "f:1,256,4,56,56 f:64,256,1,1,1 f:64 f:1,64,6,56,58", VS_NONE},
    {"conv3d_backward_k133", "diopiConvolution3dBackward", conv3d_backward_k133,
     3,
     "f:1,128,4,56,56 f:64,64,1,3,3 f:1,64,2,18,18 f:1,128,4,56,56 "
     "f:64,64,1,3,3 f:64",
     VS_NONE},
    {"baddbmm", "diopiBaddbmm", baddbmm, 3,
     "f:16,128,128 f:16,128,64 f:16,64,128 f:16,128,128", VS_NONE},
    {"linear", "diopiLinear", ternary, 3,
     "f:512,1024 f:1024,1024 f:1024 f:512,1024", VS_NONE},
    {"attention", "diopiFlashAttention", attention, 3,
     "f:" ATT " f:" ATT " f:" ATT " f:" ATT " f:2,8,512", VS_NONE},
    {"attention_dropout", "diopiFlashAttention", attention_dropout, 3,
     "f:" ATT " f:" ATT " f:" ATT " f:" ATT " f:2,8,512", VS_NONE},
    {"dropout", "diopiDropout", dropout, 1, "f:" E " f:" E " b:" E, VS_NONE},
    {"dropout2d", "diopiDropout", dropout2d, 1, "f:" E " f:" E " b:2,32,1,1",
     VS_NONE},
    {"clip_grad_norm", "diopiClipGradNorm", clip_grad_norm, 4,
     "f:" E " f:" E " f:" E " f:" E, VS_NONE},
    /* losses */
    {"mse_loss", "diopiMSELoss", loss_mean, 2, "f:" R " f:" R " f:", VS_NONE},
    {"smooth_l1_loss", "diopiSmoothL1Loss", smooth_l1, 2,
     "f:" R " f:" R " f:", VS_NONE},
    {"bce", "diopiBCELoss", bce, 2, "h:" R " h:" R " f:", VS_NONE},
    {"bce_with_logits", "diopiBCEWithLogits", bce_logits, 2,
     "f:" R " h:" R " f:", VS_NONE},
    {"nll_loss", "diopiNLLLoss", nll_loss, 2,
     "f:4096,1000 i1000:4096 f:", VS_NONE},
    {"kl_div", "diopiKLDivLoss", kl_div, 2, "f:" R " h:" R " f:", VS_NONE},
    {"nll_loss2d", "diopiNLLLoss", nll_loss, 2,
     "f:8,21,128,128 i21:8,128,128 f:", VS_NONE},
    {"cross_entropy", "diopiCrossEntropyLoss", cross_entropy, 2,
     "f:4096,1000 i1000:4096 f:", VS_NONE},
    /* optimizers */
    {"adam", "diopiAdam", adam, 4, "f:" E " f:" E " f:" E " p:" E, VS_NONE},
    {"adamw", "diopiAdamW", adamw, 4, "f:" E " f:" E " f:" E " p:" E, VS_NONE},
    {"sgd_momentum", "diopiSgd", sgd_momentum, 3, "f:" E " f:" E " f:" E,
     VS_NONE},
    {"rmsprop", "diopiRmsprop", rmsprop, 3, "f:" E " f:" E " p:" E, VS_NONE},
    {"adagrad", "diopiAdagrad", adagrad, 3, "f:" E " f:" E " p:" E, VS_NONE},
    {"fused_adamw", "diopiFusedAdamW", fused_adamw, 10,
     "f:" E " f:" E " f:" E " f:" E " f:" E " f:" E " p:" E " p:" E " p: p:",
     VS_NONE},
    /* random */
    {"normal", "diopiNormal", normal, 0, "f:" E, VS_NONE},
    {"uniform", "diopiUniformInp", normal, 0, "f:" E, VS_NONE},
    {"bernoulli", "diopiBernoulliScalar", bernoulli, 0, "f:" E, VS_NONE},
    {"randperm", "diopiRandperm", randperm, 0, "i1:1048576", VS_NONE},
    {"multinomial", "diopiMultinomial", multinomial, 1, "h:64,1000 i1:64,16",
     VS_NONE},
};

int64_t ops_numel(const op_case_t *c, int k) {
  int64_t n = 1;
  for (int d = 0; d < c->t[k].ndim; d++)
    n *= c->t[k].shape[d];
  return n;
}

diopiDtype_t ops_spec_dtype(const ops_tensor_spec_t *spec) {
  switch (spec->kind) {
  case 'b':
    return diopi_dtype_bool;
  case 'i':
    return diopi_dtype_int64;
  case 'n':
    return diopi_dtype_int32;
  default:
    return diopi_dtype_float32;
  }
}

double ops_tensor_bytes(const op_case_t *c, int k) {
  static const double sizes[] = {[diopi_dtype_bool] = 1,
                                 [diopi_dtype_int64] = 8,
                                 [diopi_dtype_int32] = 4,
                                 [diopi_dtype_float32] = 4};
  return (double)ops_numel(c, k) * sizes[ops_spec_dtype(&c->t[k])];
}

/* One spec, "KIND:DIM,DIM" (above); false if it does not parse. */
static bool parse_spec(const char *text, ops_tensor_spec_t *spec) {
  memset(spec, 0, sizeof *spec);
  spec->kind = text[0];
  char *end;
  if (!strchr("fphbin", spec->kind))
    return false;
  text++;
  if (spec->kind == 'i') {
    spec->range = strtoll(text, &end, 10);
    if (end == text || spec->range < 1)
      return false;
    text = end;
  }
  if (*text++ != ':')
    return false;
  while (*text && *text != ' ') {
    if (spec->ndim == OPS_MAX_DIMS)
      return false;
    spec->shape[spec->ndim++] = strtoll(text, &end, 10);
    if (end == text)
      return false;
    text = *end == ',' ? end + 1 : end;
  }
  return true;
}

static bool wanted(const char *name) {
  const char *only = getenv("BACKPLANE_BENCH_OPS");
  if (!only || !*only)
    return true;
  char words[256];
  snprintf(words, sizeof words, "%s", only);
  char *save = NULL;
  for (char *w = strtok_r(words, ",", &save); w; w = strtok_r(NULL, ",", &save))
    if (strstr(name, w))
      return true;
  return false;
}

/* Adds a case named OP/SHAPE-OF-INPUT-0 (or of its first tensor); false if
 * its specs do not parse. */
static bool add_case(op_case_t *cases, int *n, const case_row_t *row,
                     double flops, double at_least) {
  op_case_t *c = &cases[*n];
  memset(c, 0, sizeof *c);
  c->op = row->op;
  c->diopi = row->diopi;
  c->call = row->call;
  c->ninputs = row->ninputs;
  c->vs = row->vs;
  c->flops = flops;
  c->at_least = at_least;
  snprintf(c->specs, sizeof c->specs, "%s", row->specs);
  for (const char *s = row->specs; *s; s += *s == ' ') {
    if (c->ntensors == OPS_MAX_TENSORS ||
        !parse_spec(s, &c->t[c->ntensors++])) {
      fprintf(stderr, "bench ops: %s: bad tensor spec in \"%s\"\n", row->op,
              row->specs);
      return false;
    }
    s += strcspn(s, " ");
  }
  int len = snprintf(c->name, sizeof c->name, "%s/", row->op);
  const ops_tensor_spec_t *first = &c->t[0];
  for (int d = 0; d < first->ndim && len < (int)sizeof c->name; d++)
    len += snprintf(c->name + len, sizeof c->name - (size_t)len, "%s%lld",
                    d ? "x" : "", (long long)first->shape[d]);
  if (!strcmp(row->op, "conv2d"))
    snprintf(c->name + len, sizeof c->name - (size_t)len, "_k3");
  for (int k = 0; k < c->ntensors; k++)
    c->bytes += ops_tensor_bytes(c, k);
  if (wanted(c->name))
    (*n)++;
  return true;
}

/* The original rows (issue 5 holds them to >= 1.0x PyTorch), tiny for
 * --quick. */
static bool make_original(const bench_ctx_t *ctx, op_case_t *cases, int *n) {
  int q = ctx->quick;
  char specs[3][128];
  bool ok = true;
  const int64_t mm_sizes[3] = {256, 512, 1024};
  for (int i = 0; i < (q ? 1 : 3); i++) {
    long long s = q ? 32 : mm_sizes[i];
    snprintf(specs[0], sizeof specs[0], "f:%lld,%lld f:%lld,%lld f:%lld,%lld",
             s, s, s, s, s, s);
    ok = ok &&
         add_case(cases, n,
                  &(case_row_t){"mm", "diopiMm", binary, 2, specs[0], VS_SGEMM},
                  2.0 * (double)s * (double)s * (double)s, 1.0);
  }
  long long flat = q ? 4096 : 8 << 20;
  snprintf(specs[0], sizeof specs[0], "f:%lld f:%lld f:%lld", flat, flat, flat);
  snprintf(specs[1], sizeof specs[1], "f:%lld f:%lld", flat, flat);
  const case_row_t flat_rows[] = {
      {"add", "diopiAdd", alpha_1, 2, specs[0], VS_MEMCPY},
      {"mul", "diopiMul", binary, 2, specs[0], VS_MEMCPY},
      {"relu", "diopiRelu", unary, 1, specs[1], VS_MEMCPY},
      {"copy", "diopiCopyInp", copy, 1, specs[1], VS_MEMCPY}};
  for (int i = 0; i < 4; i++)
    ok = ok && add_case(cases, n, &flat_rows[i], 0, 1.0);
  long long rows = q ? 16 : 2048, cols = q ? 64 : 1024;
  snprintf(specs[0], sizeof specs[0], "f:%lld,%lld f:%lld,%lld", rows, cols,
           rows, cols);
  snprintf(specs[1], sizeof specs[1], "f:%lld,%lld f:%lld", rows, cols, cols);
  const case_row_t row_rows[] = {
      {"softmax", "diopiSoftmax", last_dim, 1, specs[0], VS_NONE},
      {"sum", "diopiSum", sum_first, 1, specs[1], VS_NONE},
      {"layer_norm", "diopiLayerNorm", layer_norm, 1, specs[0], VS_NONE}};
  for (int i = 0; i < 3 && !q; i++)
    ok = ok && add_case(cases, n, &row_rows[i], 0, 1.0);
  /* conv2d 3x3, padding 1: (N, C, H, W) images, C -> C channels. */
  static const long long convs[2][4] = {{8, 64, 28, 28}, {32, 32, 56, 56}};
  for (int i = 0; i < (q ? 1 : 2); i++) {
    long long img[4] = {q ? 1 : convs[i][0], q ? 4 : convs[i][1],
                        q ? 8 : convs[i][2], q ? 8 : convs[i][3]};
    snprintf(specs[2], sizeof specs[2],
             "f:%lld,%lld,%lld,%lld f:%lld,%lld,3,3 f:%lld,%lld,%lld,%lld",
             img[0], img[1], img[2], img[3], img[1], img[1], img[0], img[1],
             img[2], img[3]);
    ok = ok && add_case(cases, n,
                        &(case_row_t){"conv2d", "diopiConvolution2d", conv2d, 2,
                                      specs[2], VS_NONE},
                        2.0 * (double)(img[0] * img[1] * img[2] * img[3]) *
                            (double)(img[1] * 9),
                        1.0);
  }
  return ok;
}

int ops_make_cases(const bench_ctx_t *ctx, op_case_t *cases) {
  int n = 0;
  if (!make_original(ctx, cases, &n))
    return -1;
  for (size_t i = 0; !ctx->quick && i < sizeof ROWS / sizeof ROWS[0]; i++) {
    if (n == OPS_MAX_CASES)
      return -1;
    if (!add_case(cases, &n, &ROWS[i], 0, 0.8))
      return -1;
  }
  return n;
}
