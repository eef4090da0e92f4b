/* Norm orders below 0 in clip_grad_norm and embedding_renorm_, as
 * PyTorch's torch.norm defines them and DIOPI's configured cases use them:
 * p < 0 is (sum |x|^p)^(1/p) (a zero element makes it 0), -inf the least
 * |x|, and an empty tensor's norm is 0 for every order; the backward of
 * inf and -inf. Expected values are worked out by hand (and agree with
 * PyTorch 1.13 to float32 rounding). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
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
typedef diopiError_t (*clip_fn)(CTX, double *, T *, int64_t, double, double,
                                bool);
typedef diopiError_t (*renorm_fn)(CTX, T, CT, double, double);

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

static void assert_near(double got, double want) {
  assert_true(fabs(got - want) <= 1e-6 * (1 + fabs(want)));
}

/* Gradients [1, 2, 3] and [0.5, 4], order -inf: the total is the least
 * |x|, 0.5, and max_norm 0.1 scales every gradient by 0.1 / (0.5 + 1e-6). */
static void
clip_grad_norm_of_order_minus_inf_is_the_least_magnitude(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  clip_fn clip = (clip_fn)ops_env_find(e, "diopiClipGradNorm");
  int64_t s3[1] = {3}, s2[1] = {2};
  const float a[3] = {1, 2, 3}, b[2] = {0.5f, 4};
  float *ga, *gb;
  T grads[2] = {ops_made_tensor(&m, diopi_dtype_float32, 1, s3, a, sizeof a,
                                (void **)&ga),
                ops_made_tensor(&m, diopi_dtype_float32, 1, s2, b, sizeof b,
                                (void **)&gb)};
  double total = 0;
  assert_int_equal(clip(e->ctx, &total, grads, 2, 0.1, -INFINITY, true),
                   diopiSuccess);
  synchronize(e);
  assert_near(total, 0.5);
  double scale = 0.1 / (0.5 + 1e-6);
  for (int i = 0; i < 3; i++)
    assert_near(ga[i], a[i] * scale);
  for (int i = 0; i < 2; i++)
    assert_near(gb[i], b[i] * scale);
  ops_made_destroy(&m);
}

/* [3, 4] of order -2: (1/9 + 1/16)^(-1/2) = 12/5; max_norm 1.2 halves it
 * (1.2 / (2.4 + 1e-6)). [1, 0, 3] of order -0.2 has a zero: total 0, so
 * nothing is scaled. */
static void clip_grad_norm_of_a_negative_order(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  clip_fn clip = (clip_fn)ops_env_find(e, "diopiClipGradNorm");
  int64_t s2[1] = {2}, s3[1] = {3};
  const float a[2] = {3, 4}, b[3] = {1, 0, 3};
  float *ga, *gb;
  T ta = ops_made_tensor(&m, diopi_dtype_float32, 1, s2, a, sizeof a,
                         (void **)&ga),
    tb = ops_made_tensor(&m, diopi_dtype_float32, 1, s3, b, sizeof b,
                         (void **)&gb);
  double total = 0;
  assert_int_equal(clip(e->ctx, &total, &ta, 1, 1.2, -2, true), diopiSuccess);
  synchronize(e);
  assert_near(total, 2.4);
  assert_near(ga[0], 3 * 1.2 / (2.4 + 1e-6));
  assert_near(ga[1], 4 * 1.2 / (2.4 + 1e-6));

  assert_int_equal(clip(e->ctx, &total, &tb, 1, 0.1, -0.2, true), diopiSuccess);
  synchronize(e);
  assert_true(total == 0.0);
  for (int i = 0; i < 3; i++)
    assert_true(gb[i] == b[i]);
  ops_made_destroy(&m);
}

/* An empty gradient's norm is 0 in every order: beside [1, 2], order -inf
 * gives a total of 0 (and no scaling). */
static void clip_grad_norm_counts_an_empty_gradient_as_0(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  clip_fn clip = (clip_fn)ops_env_find(e, "diopiClipGradNorm");
  int64_t s0[1] = {0}, s2[1] = {2};
  const float b[2] = {1, 2};
  float *gb;
  T grads[2] = {ops_made_tensor(&m, diopi_dtype_float32, 1, s0, NULL, 0, NULL),
                ops_made_tensor(&m, diopi_dtype_float32, 1, s2, b, sizeof b,
                                (void **)&gb)};
  const double orders[2] = {-INFINITY, -0.5};
  for (int k = 0; k < 2; k++) {
    double total = -1;
    assert_int_equal(clip(e->ctx, &total, grads, 2, 0.1, orders[k], true),
                     diopiSuccess);
    synchronize(e);
    assert_true(total == 0.0);
    assert_true(gb[0] == 1.0f && gb[1] == 2.0f);
  }
  ops_made_destroy(&m);
}

/* Rows [3, 4] and [0.5, 0.5], order -2, max_norm 1.2: row 0's norm 2.4 is
 * scaled to 1.2 (by 1.2 / (2.4 + 1e-7)), row 1's 1 / sqrt(8) is within. */
static void embedding_renorm_of_a_negative_order(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  renorm_fn renorm = (renorm_fn)ops_env_find(e, "diopiEmbeddingRenorm_");
  int64_t s22[2] = {2, 2}, s3[1] = {3};
  const float w[4] = {3, 4, 0.5f, 0.5f};
  const int64_t rows[3] = {0, 1, 0};
  float *y;
  T tw = ops_made_tensor(&m, diopi_dtype_float32, 2, s22, w, sizeof w,
                         (void **)&y),
    ti = ops_made_tensor(&m, diopi_dtype_int64, 1, s3, rows, sizeof rows, NULL);
  assert_int_equal(renorm(e->ctx, tw, ti, 1.2, -2), diopiSuccess);
  synchronize(e);
  double scale = 1.2 / (2.4 + 1e-7);
  assert_near(y[0], 3 * scale);
  assert_near(y[1], 4 * scale);
  assert_true(y[2] == 0.5f && y[3] == 0.5f);
  ops_made_destroy(&m);
}

/* Rows [-0.5, 3] and [0, 9], order -inf (the least |x|), max_norm 0.25:
 * row 0's 0.5 is scaled by 0.25 / (0.5 + 1e-7); row 1's 0 is within. */
static void embedding_renorm_of_order_minus_inf(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  renorm_fn renorm = (renorm_fn)ops_env_find(e, "diopiEmbeddingRenorm_");
  int64_t s22[2] = {2, 2}, s2[1] = {2};
  const float w[4] = {-0.5f, 3, 0, 9};
  const int64_t rows[2] = {0, 1};
  float *y;
  T tw = ops_made_tensor(&m, diopi_dtype_float32, 2, s22, w, sizeof w,
                         (void **)&y),
    ti = ops_made_tensor(&m, diopi_dtype_int64, 1, s2, rows, sizeof rows, NULL);
  assert_int_equal(renorm(e->ctx, tw, ti, 0.25, -INFINITY), diopiSuccess);
  synchronize(e);
  double scale = 0.25 / (0.5 + 1e-7);
  assert_near(y[0], -0.5 * scale);
  assert_near(y[1], 3 * scale);
  assert_true(y[2] == 0.0f && y[3] == 9.0f);
  ops_made_destroy(&m);
}

/* diopiNormBackward of p = inf and -inf over dim 1 of
 * [[1, -3, 3, 2], [0.5, -1, 0.25, 1]]: the gradient splits evenly among the
 * elements whose |x| is the norm, sign(x) each (PyTorch 1.13's
 * torch.norm(x, p, dim=1).backward(ones)). */
static void
norm_backward_of_the_infinity_norms_splits_among_ties(void **state) {
  ops_env_t *e = *state;
  diopiError_t (*backward)(CTX, T, CT, CT, CT, diopiSize_t,
                           const diopiScalar_t *) =
      (diopiError_t(*)(CTX, T, CT, CT, CT, diopiSize_t, const diopiScalar_t *))
          ops_env_find(e, "diopiNormBackward");
  static const struct {
    double p, norm[2], expected[8];
  } cases[] = {
      {INFINITY, {3, 1}, {0, -0.5, 0.5, 0, 0, -0.5, 0, 0.5}},
      {-INFINITY, {1, 0.25}, {1, 0, 0, 0, 0, 0, 1, 0}},
  };
  const double x[8] = {1, -3, 3, 2, 0.5, -1, 0.25, 1}, ones[2] = {1, 1};
  int64_t s24[2] = {2, 4}, s2[1] = {2}, one[1] = {1};
  for (int c = 0; c < 2; c++) {
    ops_made_t m = {.e = e};
    double *gi;
    T tx = ops_made_tensor(&m, diopi_dtype_float64, 2, s24, x, sizeof x, NULL),
      tgo = ops_made_tensor(&m, diopi_dtype_float64, 1, s2, ones, sizeof ones,
                            NULL),
      tn = ops_made_tensor(&m, diopi_dtype_float64, 1, s2, cases[c].norm,
                           sizeof cases[c].norm, NULL),
      tgi = ops_made_tensor(&m, diopi_dtype_float64, 2, s24, NULL, 0,
                            (void **)&gi);
    diopiScalar_t p = {.stype = diopi_dtype_float64, .fval = cases[c].p};
    diopiSize_t dim = {one, 1};
    assert_int_equal(backward(e->ctx, tgi, tgo, tx, tn, dim, &p), diopiSuccess);
    synchronize(e);
    for (int i = 0; i < 8; i++)
      assert_true(gi[i] == cases[c].expected[i]);
    ops_made_destroy(&m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(
          clip_grad_norm_of_order_minus_inf_is_the_least_magnitude),
      cmocka_unit_test(clip_grad_norm_of_a_negative_order),
      cmocka_unit_test(clip_grad_norm_counts_an_empty_gradient_as_0),
      cmocka_unit_test(embedding_renorm_of_a_negative_order),
      cmocka_unit_test(embedding_renorm_of_order_minus_inf),
      cmocka_unit_test(norm_backward_of_the_infinity_norms_splits_among_ties),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
