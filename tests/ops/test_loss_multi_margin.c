/* The extension loss multi_margin_loss and its backward
 * (ref_loss_multi_margin.c) on values worked out by hand: the hinge terms
 * of one sample for p 1 and p 2 with class weights, a sample whose terms
 * all clamp to 0, the three reductions, and bad arguments named with op,
 * argument, expected and actual. */
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
typedef diopiError_t (*loss_t)(CTX, T, CT, CT, CT, int64_t, double,
                               diopiReduction_t);
typedef diopiError_t (*loss_backward_t)(CTX, T, CT, CT, CT, CT, int64_t, double,
                                        diopiReduction_t);
typedef const char *(*last_error_t)(void);

#define F64 diopi_dtype_float64
#define I64 diopi_dtype_int64

static T make(ops_made_t *m, diopiDtype_t dtype, size_t ndim,
              const int64_t *shape, const void *values, void *data) {
  int64_t numel = 1;
  for (size_t d = 0; d < ndim; d++)
    numel *= shape[d];
  return ops_made_tensor(m, dtype, ndim, shape, values, (size_t)numel * 8,
                         (void **)data);
}

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* Sample 0: x = [0.1, 0.2, 0.4, 0.8], y = 3: with margin 1 the terms are
 * 0.3, 0.4, 0.6, so the loss is 1.3 / 4 = 0.325 and each term's slope 1/4;
 * with p 2, margin 0.5 and weight[3] = 4 only j = 2 stays (z = 0.1):
 * 0.01 * 4 / 4 = 0.01, slope 2 * 0.1 * 4 / 4 = 0.2. Sample 1: [1, 0, 0, 0],
 * y = 0: every z is 0, no loss. */
static void hinge_terms_weights_and_reductions(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  loss_t loss = (loss_t)ops_env_find(e, "diopiMultiMarginLoss");
  loss_backward_t backward =
      (loss_backward_t)ops_env_find(e, "diopiMultiMarginLossBackward");
  int64_t s24[2] = {2, 4}, s2[1] = {2}, s4[1] = {4};
  const double x[8] = {0.1, 0.2, 0.4, 0.8, 1, 0, 0, 0}, w[4] = {1, 2, 3, 4},
               one = 1, ones[2] = {1, 1};
  const int64_t y[2] = {3, 0};
  double *mean, *sum, *none, *g;
  T tx = make(&m, F64, 2, s24, x, NULL), ty = make(&m, I64, 1, s2, y, NULL),
    tw = make(&m, F64, 1, s4, w, NULL),
    tmean = make(&m, F64, 0, NULL, NULL, &mean),
    tsum = make(&m, F64, 0, NULL, NULL, &sum),
    tnone = make(&m, F64, 1, s2, NULL, &none),
    tg = make(&m, F64, 2, s24, NULL, &g),
    tone = make(&m, F64, 0, NULL, &one, NULL),
    tones = make(&m, F64, 1, s2, ones, NULL);
  assert_int_equal(loss(e->ctx, tmean, tx, ty, NULL, 1, 1.0, ReductionMean),
                   diopiSuccess);
  assert_int_equal(loss(e->ctx, tsum, tx, ty, tw, 2, 0.5, ReductionSum),
                   diopiSuccess);
  assert_int_equal(loss(e->ctx, tnone, tx, ty, NULL, 1, 1.0, ReductionNone),
                   diopiSuccess);
  synchronize(e);
  assert_float_equal(*mean, 0.325 / 2, 1e-15);
  assert_float_equal(*sum, 0.01, 1e-15);
  assert_float_equal(none[0], 0.325, 1e-15);
  assert_true(none[1] == 0);

  assert_int_equal(
      backward(e->ctx, tg, tone, tx, ty, NULL, 1, 1.0, ReductionMean),
      diopiSuccess);
  synchronize(e);
  const double want_mean[8] = {0.125, 0.125, 0.125, -0.375, 0, 0, 0, 0};
  for (int i = 0; i < 8; i++)
    assert_float_equal(g[i], want_mean[i], 1e-15);
  assert_int_equal(
      backward(e->ctx, tg, tones, tx, ty, tw, 2, 0.5, ReductionNone),
      diopiSuccess);
  synchronize(e);
  const double want_none[8] = {0, 0, 0.2, -0.2, 0, 0, 0, 0};
  for (int i = 0; i < 8; i++)
    assert_float_equal(g[i], want_none[i], 1e-15);
  ops_made_destroy(&m);
}

static void bad_arguments_name_op_argument_and_values(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  loss_t loss = (loss_t)ops_env_find(e, "diopiMultiMarginLoss");
  const char *(*last)(void) =
      (last_error_t)ops_env_find(e, "diopiGetLastErrorString");
  int64_t s24[2] = {2, 4}, s3[1] = {3}, s2[1] = {2};
  T x = make(&m, F64, 2, s24, NULL, NULL),
    y3 = make(&m, I64, 1, s3, NULL, NULL),
    y2 = make(&m, I64, 1, s2, NULL, NULL),
    f2 = make(&m, F64, 1, s2, NULL, NULL),
    out = make(&m, F64, 0, NULL, NULL, NULL);
  assert_int_equal(loss(e->ctx, out, x, y2, NULL, 3, 1.0, ReductionMean),
                   diopiErrorOccurred);
  assert_string_equal(last(),
                      "diopiMultiMarginLoss: p: expected 1 or 2, got 3");
  assert_int_equal(loss(e->ctx, out, x, y3, NULL, 1, 1.0, ReductionMean),
                   diopiErrorOccurred);
  assert_string_equal(last(), "diopiMultiMarginLoss: target: expected 2 class "
                              "indices in at most 1 dim, got 3 in 1");
  assert_int_equal(loss(e->ctx, out, x, f2, NULL, 1, 1.0, ReductionMean),
                   diopiErrorOccurred);
  assert_string_equal(last(), "diopiMultiMarginLoss: target: expected class "
                              "indices (an integer dtype), got dtype 10");
  assert_int_equal(loss(e->ctx, out, x, y2, NULL, 1, 1.0, ReductionNone),
                   diopiErrorOccurred);
  assert_string_equal(last(),
                      "diopiMultiMarginLoss: out: expected shape [2], got []");
  synchronize(e);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hinge_terms_weights_and_reductions),
      cmocka_unit_test(bad_arguments_name_op_argument_and_values),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
