/* The cuda op library's ops without a GPU: its op code, its kernels and
 * its GEMM layouts run on the host (ops_host_device.cc stands in for the
 * device and cuBLAS) and must agree with the reference library on vcpu,
 * for the forms the conformance baselines cannot all reach: groups,
 * dilation, 3-d linear, every matmul form, transposed operands, weighted
 * and smoothed spatial cross entropy, ceil-mode pooling. */
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
#include "support/runtime_fixture.h"

#define F32 diopi_dtype_float32
#define I64 diopi_dtype_int64
enum { MAX_TENSORS = 256 };

typedef struct env {
  bp_runtime_t *runtime;
  bp_stream_t *stream;
  diopiContextHandle_t ctx; /* the reference library's (vcpu) */
  bp_ops_library_t *reference;
  diopiTensorHandle_t tensors[MAX_TENSORS];
  void *buffers[MAX_TENSORS];
  size_t tensor_count, buffer_count;
} env_t;

static env_t g;

static int setup(void **state) {
  (void)state;
  g.runtime = fixture_runtime(BP_VCPU_PLUGIN);
  bp_device_t *device;
  assert_int_equal(bp_device_get(g.runtime, "vcpu", 0, &device), BP_OK);
  assert_int_equal(bp_stream_create(device, &g.stream), BP_OK);
  assert_int_equal(bp_ops_context_create(device, g.stream, &g.ctx), BP_OK);
  assert_int_equal(bp_ops_library_open(BP_OPS_REF, &g.reference), BP_OK);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  for (size_t i = 0; i < g.tensor_count; i++)
    bp_ops_tensor_destroy(g.tensors[i]);
  for (size_t i = 0; i < g.buffer_count; i++)
    free(g.buffers[i]);
  bp_ops_context_destroy(g.ctx);
  bp_stream_destroy(g.stream);
  bp_ops_library_close(g.reference);
  bp_runtime_destroy(g.runtime);
  return 0;
}

/* Host memory: random values in [-0.5, 0.5), or zeros. */
static float *values(size_t n, int random) {
  float *p = calloc(n + 1, sizeof(float));
  assert_non_null(p);
  assert_true(g.buffer_count < MAX_TENSORS);
  for (size_t i = 0; random && i < n; i++)
    p[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  g.buffers[g.buffer_count++] = p;
  return p;
}
#define RANDOM(n) values((n), 1)
#define ZEROS(n) values((n), 0)

/* A host tensor over `data` (strides NULL: contiguous). */
static diopiTensorHandle_t tensor(void *data, diopiDtype_t dtype, size_t ndim,
                                  const int64_t *shape,
                                  const int64_t *strides) {
  diopiTensorHandle_t t;
  assert_true(g.tensor_count < MAX_TENSORS);
  assert_int_equal(
      bp_ops_tensor_wrap(NULL, data, dtype, ndim, shape, strides, &t), BP_OK);
  g.tensors[g.tensor_count++] = t;
  return t;
}
#define T(data, ndim, shape) tensor((data), F32, (ndim), (shape), NULL)

static void *reference_op(const char *name) {
  void *fn = NULL;
  assert_int_equal(bp_ops_library_find(g.reference, name, &fn), BP_OK);
  return fn;
}

/* Calls the cuda library's op (here, on the host) and the reference's. */
#define BOTH(op, mine_args, ref_args)                                          \
  do {                                                                         \
    diopiError_t e_ = op mine_args;                                            \
    if (e_ != diopiSuccess)                                                    \
      fail_msg(#op ": %s", diopiGetLastErrorString());                         \
    e_ = ((__typeof__(&op))reference_op(#op))ref_args;                         \
    if (e_ != diopiSuccess)                                                    \
      fail_msg("reference " #op ": %s",                                        \
               bp_ops_library_last_error(g.reference));                        \
    assert_int_equal(bp_stream_synchronize(g.stream), BP_OK);                  \
  } while (0)

static void expect_close(const char *what, const float *mine,
                         const float *reference, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!(fabsf(mine[i] - reference[i]) <= 1e-4f))
      fail_msg("%s: element %zu is %g, the reference library's %g", what, i,
               mine[i], reference[i]);
}

static void conv2d(const int64_t *in_shape, const int64_t *weight_shape,
                   const int64_t *out_shape, const int64_t *stride,
                   const int64_t *padding, const int64_t *dilation,
                   int64_t groups, int bias) {
  size_t ni = 1, nw = 1, no = 1;
  for (int d = 0; d < 4; d++) {
    ni *= (size_t)in_shape[d];
    nw *= (size_t)weight_shape[d];
    no *= (size_t)out_shape[d];
  }
  int64_t channels = weight_shape[0];
  diopiSize_t s = {stride, 2}, p = {padding, 2}, d = {dilation, 2};
  float *in = RANDOM(ni), *w = RANDOM(nw), *b = RANDOM(channels);
  float *out[2] = {ZEROS(no), ZEROS(no)};
  diopiTensorHandle_t bias_t[2] = {bias ? T(b, 1, &channels) : NULL,
                                   bias ? T(b, 1, &channels) : NULL};
  BOTH(diopiConvolution2d,
       (NULL, T(out[0], 4, out_shape), T(in, 4, in_shape),
        T(w, 4, weight_shape), bias_t[0], s, p, d, groups),
       (g.ctx, T(out[1], 4, out_shape), T(in, 4, in_shape),
        T(w, 4, weight_shape), bias_t[1], s, p, d, groups));
  expect_close("conv2d", out[0], out[1], no);
  float *go = RANDOM(no), *gi[2] = {ZEROS(ni), ZEROS(ni)},
        *gw[2] = {ZEROS(nw), ZEROS(nw)},
        *gb[2] = {ZEROS(channels), ZEROS(channels)};
  BOTH(diopiConvolution2dBackward,
       (NULL, T(gi[0], 4, in_shape), T(gw[0], 4, weight_shape),
        bias ? T(gb[0], 1, &channels) : NULL, T(go, 4, out_shape),
        T(in, 4, in_shape), T(w, 4, weight_shape), NULL, s, p, d, groups),
       (g.ctx, T(gi[1], 4, in_shape), T(gw[1], 4, weight_shape),
        bias ? T(gb[1], 1, &channels) : NULL, T(go, 4, out_shape),
        T(in, 4, in_shape), T(w, 4, weight_shape), NULL, s, p, d, groups));
  expect_close("conv2d grad_input", gi[0], gi[1], ni);
  expect_close("conv2d grad_weight", gw[0], gw[1], nw);
  expect_close("conv2d grad_bias", gb[0], gb[1], (size_t)channels);
}

static void conv2d_with_groups_and_stride(void **state) {
  (void)state;
  const int64_t in[4] = {3, 4, 7, 6}, w[4] = {6, 2, 3, 3},
                out[4] = {3, 6, 4, 3}, two[2] = {2, 2}, one[2] = {1, 1};
  conv2d(in, w, out, two, one, one, 2, 1);
}

static void conv2d_dilated_without_bias(void **state) {
  (void)state;
  const int64_t in[4] = {2, 3, 9, 8}, w[4] = {5, 3, 3, 3},
                out[4] = {2, 5, 9, 8}, two[2] = {2, 2}, one[2] = {1, 1};
  conv2d(in, w, out, one, two, two, 1, 0);
}

static void linear_over_three_dims(void **state) {
  (void)state;
  const int64_t is[3] = {2, 3, 5}, ws[2] = {4, 5}, bs[1] = {4},
                os[3] = {2, 3, 4};
  float *in = RANDOM(30), *w = RANDOM(20), *b = RANDOM(4),
        *out[2] = {ZEROS(24), ZEROS(24)};
  BOTH(diopiLinear,
       (NULL, T(out[0], 3, os), T(in, 3, is), T(w, 2, ws), T(b, 1, bs)),
       (g.ctx, T(out[1], 3, os), T(in, 3, is), T(w, 2, ws), T(b, 1, bs)));
  expect_close("linear", out[0], out[1], 24);
  float *go = RANDOM(24), *gi[2] = {ZEROS(30), ZEROS(30)},
        *gw[2] = {ZEROS(20), ZEROS(20)}, *gb[2] = {ZEROS(4), ZEROS(4)};
  BOTH(diopiLinearBackward,
       (NULL, T(gi[0], 3, is), T(gw[0], 2, ws), T(gb[0], 1, bs), T(go, 3, os),
        T(in, 3, is), T(w, 2, ws)),
       (g.ctx, T(gi[1], 3, is), T(gw[1], 2, ws), T(gb[1], 1, bs), T(go, 3, os),
        T(in, 3, is), T(w, 2, ws)));
  expect_close("linear grad_input", gi[0], gi[1], 30);
  expect_close("linear grad_weight", gw[0], gw[1], 20);
  expect_close("linear grad_bias", gb[0], gb[1], 4);
}

static void matmul_forms_and_transposed_operands(void **state) {
  (void)state;
  const int64_t v[1] = {5}, b3[3] = {3, 5, 4}, o2[2] = {3, 4},
                a3[3] = {3, 4, 5}, m2[2] = {4, 5}, o3[3] = {3, 4, 4};
  float *vec = RANDOM(5), *bm = RANDOM(60), *am = RANDOM(60), *mm = RANDOM(20);
  float *o[2] = {ZEROS(12), ZEROS(12)};
  BOTH(diopiMatmul, (NULL, T(o[0], 2, o2), T(vec, 1, v), T(bm, 3, b3)),
       (g.ctx, T(o[1], 2, o2), T(vec, 1, v), T(bm, 3, b3)));
  expect_close("matmul vector x batch", o[0], o[1], 12);
  BOTH(diopiMatmul, (NULL, T(o[0], 2, o2), T(am, 3, a3), T(vec, 1, v)),
       (g.ctx, T(o[1], 2, o2), T(am, 3, a3), T(vec, 1, v)));
  expect_close("matmul batch x vector", o[0], o[1], 12);
  float *q[2] = {ZEROS(48), ZEROS(48)};
  BOTH(diopiMatmul, (NULL, T(q[0], 3, o3), T(mm, 2, m2), T(bm, 3, b3)),
       (g.ctx, T(q[1], 3, o3), T(mm, 2, m2), T(bm, 3, b3)));
  expect_close("matmul matrix x batch", q[0], q[1], 48);
  /* input [4, 5] as the transpose of a [5, 4] buffer */
  const int64_t s45[2] = {4, 5}, t45[2] = {1, 4}, s53[2] = {5, 3},
                s43[2] = {4, 3}, row[1] = {3};
  float *x = RANDOM(20), *y = RANDOM(15), *bias = RANDOM(3);
  float *r[2] = {ZEROS(12), ZEROS(12)};
  BOTH(diopiMm,
       (NULL, T(r[0], 2, s43), tensor(x, F32, 2, s45, t45), T(y, 2, s53)),
       (g.ctx, T(r[1], 2, s43), tensor(x, F32, 2, s45, t45), T(y, 2, s53)));
  expect_close("mm of a transposed view", r[0], r[1], 12);
  const diopiScalar_t beta = {.stype = diopi_dtype_float64, .fval = 0.5},
                      alpha = {.stype = diopi_dtype_float64, .fval = 2};
  BOTH(diopiAddmm,
       (NULL, T(r[0], 2, s43), T(bias, 1, row), tensor(x, F32, 2, s45, t45),
        T(y, 2, s53), &beta, &alpha),
       (g.ctx, T(r[1], 2, s43), T(bias, 1, row), tensor(x, F32, 2, s45, t45),
        T(y, 2, s53), &beta, &alpha));
  expect_close("addmm with a broadcast row", r[0], r[1], 12);
}

static void cross_entropy_spatial_weighted_smoothed(void **state) {
  (void)state;
  const int64_t is[3] = {3, 4, 2}, ts[2] = {3, 2}, ws[1] = {4};
  int64_t target[6] = {0, 3, -100, 2, 1, 1};
  float *in = RANDOM(24), *w = RANDOM(4);
  for (int i = 0; i < 4; i++)
    w[i] += 1;
  diopiReduction_t reductions[3] = {ReductionMean, ReductionSum, ReductionNone};
  for (int r = 0; r < 3; r++) {
    bool none = reductions[r] == ReductionNone;
    float *loss[2] = {ZEROS(6), ZEROS(6)}, *grad_out = RANDOM(6);
    BOTH(diopiCrossEntropyLoss,
         (NULL, T(loss[0], none ? 2 : 0, ts), T(in, 3, is),
          tensor(target, I64, 2, ts, NULL), T(w, 1, ws), reductions[r], -100,
          0.1),
         (g.ctx, T(loss[1], none ? 2 : 0, ts), T(in, 3, is),
          tensor(target, I64, 2, ts, NULL), T(w, 1, ws), reductions[r], -100,
          0.1));
    expect_close("cross entropy", loss[0], loss[1], none ? 6 : 1);
    float *gi[2] = {ZEROS(24), ZEROS(24)};
    BOTH(diopiCrossEntropyLossBackward,
         (NULL, T(gi[0], 3, is), T(grad_out, none ? 2 : 0, ts), T(in, 3, is),
          tensor(target, I64, 2, ts, NULL), T(w, 1, ws), reductions[r], -100,
          0.1),
         (g.ctx, T(gi[1], 3, is), T(grad_out, none ? 2 : 0, ts), T(in, 3, is),
          tensor(target, I64, 2, ts, NULL), T(w, 1, ws), reductions[r], -100,
          0.1));
    expect_close("cross entropy backward", gi[0], gi[1], 24);
  }
}

static void max_pool_ceil_mode_and_backward(void **state) {
  (void)state;
  const int64_t is[4] = {2, 3, 7, 7}, os[4] = {2, 3, 4, 4}, k[2] = {3, 3},
                s[2] = {2, 2}, p[2] = {1, 1}, d[2] = {1, 1};
  const size_t ni = 2 * 3 * 49, no = 2 * 3 * 16;
  diopiSize_t kernel = {k, 2}, stride = {s, 2}, padding = {p, 2},
              dilation = {d, 2};
  float *in = RANDOM(ni), *out[2] = {ZEROS(no), ZEROS(no)};
  int64_t *indices[2] = {(int64_t *)ZEROS(2 * no), (int64_t *)ZEROS(2 * no)};
  BOTH(diopiMaxPool2dWithIndices,
       (NULL, T(out[0], 4, os), tensor(indices[0], I64, 4, os, NULL),
        T(in, 4, is), kernel, stride, padding, dilation, true),
       (g.ctx, T(out[1], 4, os), tensor(indices[1], I64, 4, os, NULL),
        T(in, 4, is), kernel, stride, padding, dilation, true));
  expect_close("max pool", out[0], out[1], no);
  assert_memory_equal(indices[0], indices[1], no * sizeof(int64_t));
  float *go = RANDOM(no), *gi[2] = {ZEROS(ni), ZEROS(ni)};
  BOTH(diopiMaxPool2dBackward,
       (NULL, T(gi[0], 4, is), T(go, 4, os), T(in, 4, is), kernel, stride,
        padding, dilation, true, tensor(indices[0], I64, 4, os, NULL)),
       (g.ctx, T(gi[1], 4, is), T(go, 4, os), T(in, 4, is), kernel, stride,
        padding, dilation, true, tensor(indices[1], I64, 4, os, NULL)));
  expect_close("max pool backward", gi[0], gi[1], ni);
}

static void argmax_relu_and_adamw(void **state) {
  (void)state;
  const int64_t xs[2] = {5, 7}, as[1] = {5}, n[1] = {35}, dim = 1;
  float *x = RANDOM(35);
  int64_t *am[2] = {(int64_t *)ZEROS(10), (int64_t *)ZEROS(10)};
  BOTH(diopiArgmax,
       (NULL, tensor(am[0], I64, 1, as, NULL), T(x, 2, xs), &dim, false),
       (g.ctx, tensor(am[1], I64, 1, as, NULL), T(x, 2, xs), &dim, false));
  assert_memory_equal(am[0], am[1], 5 * sizeof(int64_t));
  float *p[2] = {RANDOM(35), ZEROS(35)}, *m[2] = {RANDOM(35), ZEROS(35)},
        *v[2] = {RANDOM(35), ZEROS(35)}, *grad = RANDOM(35);
  for (int i = 0; i < 35; i++)
    v[0][i] = fabsf(v[0][i]);
  memcpy(p[1], p[0], 35 * sizeof(float));
  memcpy(m[1], m[0], 35 * sizeof(float));
  memcpy(v[1], v[0], 35 * sizeof(float));
  BOTH(diopiAdamW,
       (NULL, T(p[0], 1, n), T(grad, 1, n), T(m[0], 1, n), T(v[0], 1, n), NULL,
        1e-2f, 0.9f, 0.999f, 1e-8f, 0.01f, 3, false),
       (g.ctx, T(p[1], 1, n), T(grad, 1, n), T(m[1], 1, n), T(v[1], 1, n), NULL,
        1e-2f, 0.9f, 0.999f, 1e-8f, 0.01f, 3, false));
  expect_close("adamw param", p[0], p[1], 35);
  expect_close("adamw exp_avg", m[0], m[1], 35);
  expect_close("adamw exp_avg_sq", v[0], v[1], 35);
  float *gi[2] = {ZEROS(35), ZEROS(35)};
  const diopiScalar_t zero = {.stype = diopi_dtype_float64, .fval = 0};
  BOTH(diopiThresholdBackward,
       (NULL, T(gi[0], 1, n), T(grad, 1, n), T(x, 1, n), &zero),
       (g.ctx, T(gi[1], 1, n), T(grad, 1, n), T(x, 1, n), &zero));
  expect_close("threshold_backward", gi[0], gi[1], 35);
}

int main(void) {
  srand(5);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(conv2d_with_groups_and_stride),
      cmocka_unit_test(conv2d_dilated_without_bias),
      cmocka_unit_test(linear_over_three_dims),
      cmocka_unit_test(matmul_forms_and_transposed_operands),
      cmocka_unit_test(cross_entropy_spatial_weighted_smoothed),
      cmocka_unit_test(max_pool_ceil_mode_and_backward),
      cmocka_unit_test(argmax_relu_and_adamw),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
