/* The breadth ops' argument checks as a caller meets them: each bad call
 * fails with a message naming the op, the argument, what was expected and
 * what was given, and enqueues nothing; and random fills repeat exactly
 * for a generator seed. Expected messages are written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "ops_env.h"

typedef struct env {
  ops_env_t *ops; /* device, stream, context, library */
  const char *(*last)(void);
  diopiTensorHandle_t made[16]; /* tensor()'s, destroyed by release() */
  int made_count;
} env_t;

static void *find(env_t *e, const char *name) {
  return ops_env_find(e->ops, name);
}

static int setup(void **state) {
  env_t *e = calloc(1, sizeof *e);
  assert_non_null(e);
  void *ops;
  ops_env_setup(&ops);
  e->ops = ops;
  e->last = (const char *(*)(void))find(e, "diopiGetLastErrorString");
  *state = e;
  return 0;
}

static int teardown(void **state) {
  env_t *e = *state;
  void *ops = e->ops;
  ops_env_teardown(&ops);
  free(e);
  return 0;
}

/* A device tensor (contents unset) of shape (d0, d1)'s first ndim dims. */
static diopiTensorHandle_t tensor(env_t *e, diopiDtype_t dtype, size_t ndim,
                                  int64_t d0, int64_t d1) {
  int64_t shape[2] = {d0, d1};
  diopiTensorHandle_t t;
  assert_true(e->made_count < 16);
  assert_int_equal(bp_ops_tensor_create(e->ops->device, e->ops->stream, dtype,
                                        ndim, shape, &t),
                   BP_OK);
  return e->made[e->made_count++] = t;
}

/* Waits for the stream (nothing a failed call enqueued may still run) and
 * destroys the test's tensors. */
static void release(env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->ops->stream), BP_OK);
  bp_ops_context_clear(e->ops->ctx);
  while (e->made_count)
    bp_ops_tensor_destroy(e->made[--e->made_count]);
}

#define F32 diopi_dtype_float32

typedef diopiError_t (*binary_t)(diopiContextHandle_t, diopiTensorHandle_t,
                                 diopiConstTensorHandle_t,
                                 diopiConstTensorHandle_t);

static void elementwise_checks_name_the_argument(void **state) {
  env_t *e = *state;
  diopiTensorHandle_t a = tensor(e, F32, 2, 2, 3), b = tensor(e, F32, 2, 2, 4),
                      wide = tensor(e, F32, 2, 3, 3),
                      ints = tensor(e, diopi_dtype_int32, 2, 2, 3);
  binary_t eq = (binary_t)find(e, "diopiEq");
  assert_int_equal(eq(e->ops->ctx, a, a, b), diopiErrorOccurred);
  assert_string_equal(e->last(), "diopiEq: other: shape [2, 4] does not "
                                 "broadcast with the others");
  binary_t logical_and = (binary_t)find(e, "diopiLogicalAnd");
  assert_int_equal(logical_and(e->ops->ctx, wide, a, a), diopiErrorOccurred);
  assert_string_equal(e->last(),
                      "diopiLogicalAnd: out: expected shape [2, 3], got [3, "
                      "3]");
  diopiError_t (*exp_op)(diopiContextHandle_t, diopiTensorHandle_t,
                         diopiConstTensorHandle_t) =
      (diopiError_t(*)(diopiContextHandle_t, diopiTensorHandle_t,
                       diopiConstTensorHandle_t))find(e, "diopiExp");
  assert_int_equal(exp_op(e->ops->ctx, ints, a), diopiErrorOccurred);
  assert_string_equal(e->last(),
                      "diopiExp: out: expected a floating dtype, got dtype 4");
  diopiError_t (*clamp)(diopiContextHandle_t, diopiTensorHandle_t,
                        diopiConstTensorHandle_t, const diopiScalar_t *,
                        const diopiScalar_t *) =
      (diopiError_t(*)(diopiContextHandle_t, diopiTensorHandle_t,
                       diopiConstTensorHandle_t, const diopiScalar_t *,
                       const diopiScalar_t *))find(e, "diopiClampScalar");
  assert_int_equal(clamp(e->ops->ctx, a, a, NULL, NULL), diopiErrorOccurred);
  assert_string_equal(e->last(), "diopiClampScalar: min, max: at least one "
                                 "bound is required");
  release(e);
}

typedef diopiError_t (*scalars2_t)(diopiContextHandle_t, diopiTensorHandle_t,
                                   diopiConstTensorHandle_t,
                                   const diopiScalar_t *,
                                   const diopiScalar_t *);

static void smooth_activations_check_their_scalars(void **state) {
  env_t *e = *state;
  diopiTensorHandle_t a = tensor(e, F32, 2, 2, 3),
                      ints = tensor(e, diopi_dtype_int32, 2, 2, 3);
  diopiScalar_t zero = {.stype = diopi_dtype_float64, .fval = 0.0},
                minus = {.stype = diopi_dtype_float64, .fval = -1.0},
                one = {.stype = diopi_dtype_float64, .fval = 1.0};
  scalars2_t softplus = (scalars2_t)find(e, "diopiSoftplus");
  assert_int_equal(softplus(e->ops->ctx, a, a, &zero, &one),
                   diopiErrorOccurred);
  assert_string_equal(e->last(),
                      "diopiSoftplus: beta: expected nonzero, got 0");
  assert_int_equal(softplus(e->ops->ctx, a, a, &one, NULL), diopiErrorOccurred);
  assert_string_equal(e->last(), "diopiSoftplus: threshold: scalar is NULL");
  diopiError_t (*elu_backward)(
      diopiContextHandle_t, diopiTensorHandle_t, diopiConstTensorHandle_t,
      diopiConstTensorHandle_t, const diopiScalar_t *, const diopiScalar_t *,
      const diopiScalar_t *, bool) =
      (diopiError_t(*)(diopiContextHandle_t, diopiTensorHandle_t,
                       diopiConstTensorHandle_t, diopiConstTensorHandle_t,
                       const diopiScalar_t *, const diopiScalar_t *,
                       const diopiScalar_t *, bool))find(e, "diopiEluBackward");
  assert_int_equal(elu_backward(e->ops->ctx, a, a, a, &minus, &one, &one, true),
                   diopiErrorOccurred);
  assert_string_equal(e->last(), "diopiEluBackward: alpha: -1 must be >= 0 "
                                 "when the input is the result");
  diopiError_t (*lgamma_op)(diopiContextHandle_t, diopiTensorHandle_t,
                            diopiConstTensorHandle_t) =
      (diopiError_t(*)(diopiContextHandle_t, diopiTensorHandle_t,
                       diopiConstTensorHandle_t))find(e, "diopiLgamma");
  assert_int_equal(lgamma_op(e->ops->ctx, ints, a), diopiErrorOccurred);
  assert_string_equal(
      e->last(), "diopiLgamma: out: expected a floating dtype, got dtype 4");
  release(e);
}

static void reductions_check_dims_and_emptiness(void **state) {
  env_t *e = *state;
  diopiTensorHandle_t a = tensor(e, F32, 2, 2, 3),
                      row = tensor(e, F32, 1, 2, 0),
                      idx = tensor(e, diopi_dtype_int64, 1, 2, 0),
                      empty = tensor(e, F32, 2, 0, 3),
                      scalar = tensor(e, F32, 0, 0, 0);
  diopiError_t (*min)(diopiContextHandle_t, diopiTensorHandle_t,
                      diopiTensorHandle_t, diopiConstTensorHandle_t, int64_t) =
      (diopiError_t(*)(diopiContextHandle_t, diopiTensorHandle_t,
                       diopiTensorHandle_t, diopiConstTensorHandle_t,
                       int64_t))find(e, "diopiMin");
  assert_int_equal(min(e->ops->ctx, row, idx, a, 5), diopiErrorOccurred);
  assert_string_equal(e->last(), "diopiMin: dim: dim 5 out of range for 2 "
                                 "dims");
  diopiError_t (*max_all)(diopiContextHandle_t, diopiTensorHandle_t,
                          diopiConstTensorHandle_t) =
      (diopiError_t(*)(diopiContextHandle_t, diopiTensorHandle_t,
                       diopiConstTensorHandle_t))find(e, "diopiMaxAll");
  assert_int_equal(max_all(e->ops->ctx, scalar, empty), diopiErrorOccurred);
  assert_string_equal(e->last(),
                      "diopiMaxAll: input: cannot reduce an empty dim");
  release(e);
}

static void indexing_and_shape_ops_check_their_attributes(void **state) {
  env_t *e = *state;
  diopiTensorHandle_t a = tensor(e, F32, 2, 4, 6),
                      float_index = tensor(e, F32, 2, 4, 2),
                      part = tensor(e, F32, 2, 4, 3);
  diopiError_t (*scatter)(diopiContextHandle_t, diopiTensorHandle_t,
                          diopiConstTensorHandle_t, int64_t,
                          diopiConstTensorHandle_t, diopiConstTensorHandle_t,
                          const char *) =
      (diopiError_t(*)(diopiContextHandle_t, diopiTensorHandle_t,
                       diopiConstTensorHandle_t, int64_t,
                       diopiConstTensorHandle_t, diopiConstTensorHandle_t,
                       const char *))find(e, "diopiScatter");
  assert_int_equal(scatter(e->ops->ctx, a, a, 1, a, float_index, NULL),
                   diopiErrorOccurred);
  assert_string_equal(e->last(), "diopiScatter: index: expected dtype int32 "
                                 "or int64, got dtype 9");
  diopiError_t (*pad)(diopiContextHandle_t, diopiTensorHandle_t,
                      diopiConstTensorHandle_t, diopiSize_t, const char *,
                      const double *) =
      (diopiError_t(*)(diopiContextHandle_t, diopiTensorHandle_t,
                       diopiConstTensorHandle_t, diopiSize_t, const char *,
                       const double *))find(e, "diopiPad");
  int64_t pads[2] = {1, 1};
  assert_int_equal(
      pad(e->ops->ctx, a, part, (diopiSize_t){pads, 2}, "wrap", NULL),
      diopiErrorOccurred);
  assert_string_equal(e->last(), "diopiPad: mode: expected constant, reflect, "
                                 "replicate or circular, got 'wrap'");
  int64_t too_far[2] = {3, 0};
  assert_int_equal(
      pad(e->ops->ctx, a, part, (diopiSize_t){too_far, 2}, "reflect", NULL),
      diopiErrorOccurred);
  assert_string_equal(e->last(), "diopiPad: pad: (3, 0) does not fit mode "
                                 "'reflect' on dim 1 of size 3");
  diopiError_t (*split)(diopiContextHandle_t, diopiTensorHandle_t *, int64_t,
                        diopiConstTensorHandle_t, const diopiSize_t, int64_t) =
      (diopiError_t(*)(diopiContextHandle_t, diopiTensorHandle_t *, int64_t,
                       diopiConstTensorHandle_t, const diopiSize_t,
                       int64_t))find(e, "diopiSplitWithSizes");
  diopiTensorHandle_t outs[2] = {part, part};
  int64_t sizes[2] = {3, 2};
  assert_int_equal(split(e->ops->ctx, outs, 2, a, (diopiSize_t){sizes, 2}, 1),
                   diopiErrorOccurred);
  assert_string_equal(e->last(), "diopiSplitWithSizes: splitSizes: add up to "
                                 "5, input has 6 along dim 1");
  release(e);
}

static void optimizer_checks_step_and_betas(void **state) {
  env_t *e = *state;
  diopiTensorHandle_t p = tensor(e, F32, 1, 8, 0), g = tensor(e, F32, 1, 8, 0),
                      m = tensor(e, F32, 1, 8, 0), v = tensor(e, F32, 1, 8, 0),
                      short_v = tensor(e, F32, 1, 7, 0);
  typedef diopiError_t (*adam_t)(
      diopiContextHandle_t, diopiTensorHandle_t, diopiConstTensorHandle_t,
      diopiTensorHandle_t, diopiTensorHandle_t, diopiTensorHandle_t, float,
      float, float, float, float, int64_t, bool);
  adam_t adam = (adam_t)find(e, "diopiAdam");
  assert_int_equal(adam(e->ops->ctx, p, g, m, v, NULL, 1e-3f, 0.9f, 0.999f,
                        1e-8f, 0, 0, false),
                   diopiErrorOccurred);
  assert_string_equal(e->last(), "diopiAdam: step: expected >= 1, got 0");
  assert_int_equal(adam(e->ops->ctx, p, g, m, v, NULL, 1e-3f, 1.5f, 0.999f,
                        1e-8f, 0, 1, false),
                   diopiErrorOccurred);
  assert_string_equal(e->last(),
                      "diopiAdam: beta1: expected in [0, 1), got 1.5");
  assert_int_equal(adam(e->ops->ctx, p, g, m, short_v, NULL, 1e-3f, 0.9f,
                        0.999f, 1e-8f, 0, 1, false),
                   diopiErrorOccurred);
  assert_string_equal(e->last(),
                      "diopiAdam: exp_avg_sq: expected shape [8], got [7]");
  release(e);
}

/* Two fills from generators of one seed are identical, element for
 * element; another seed differs. */
static void random_fills_repeat_for_a_seed(void **state) {
  env_t *e = *state;
  enum { N = 257 };
  typedef diopiError_t (*uniform_t)(diopiContextHandle_t, diopiTensorHandle_t,
                                    double, double, diopiGeneratorHandle_t);
  uniform_t uniform = (uniform_t)find(e, "diopiUniformInp");
  float runs[3][N];
  uint64_t seeds[3] = {7, 7, 8};
  for (int r = 0; r < 3; r++) {
    diopiGeneratorHandle_t g;
    assert_int_equal(bp_ops_generator_create(seeds[r], &g), BP_OK);
    diopiTensorHandle_t t = tensor(e, F32, 1, N, 0);
    assert_int_equal(uniform(e->ops->ctx, t, -1.0, 1.0, g), diopiSuccess);
    const void *data;
    assert_int_equal(diopiGetTensorDataConst(t, &data), diopiSuccess);
    assert_int_equal(bp_stream_synchronize(e->ops->stream), BP_OK);
    assert_int_equal(
        bp_copy(NULL, runs[r], e->ops->device, data, sizeof runs[r], NULL),
        BP_OK);
    bp_ops_generator_destroy(g);
  }
  release(e);
  assert_memory_equal(runs[0], runs[1], sizeof runs[0]);
  assert_memory_not_equal(runs[0], runs[2], sizeof runs[0]);
  for (int i = 0; i < N; i++)
    assert_true(runs[0][i] >= -1.0f && runs[0][i] <= 1.0f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(elementwise_checks_name_the_argument),
      cmocka_unit_test(smooth_activations_check_their_scalars),
      cmocka_unit_test(reductions_check_dims_and_emptiness),
      cmocka_unit_test(indexing_and_shape_ops_check_their_attributes),
      cmocka_unit_test(optimizer_checks_step_and_betas),
      cmocka_unit_test(random_fills_repeat_for_a_seed),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
