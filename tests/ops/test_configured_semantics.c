/* PyTorch's semantics that DIOPI's configured cases
 * (tests/data/ops_diopi) found the reference library off, each pinned by
 * a small case worked out by hand: index_fill counts a negative index from
 * the end; random_ into int64 without `to` draws from all of [from,
 * 2^63 - 1], not from a float's exact range; cdist broadcasts its inputs'
 * batch dims. */
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

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* index_fill(x (2, 4), 1, [-1, 1], 9): columns 3 and 1 become 9. */
static void index_fill_counts_a_negative_index_from_the_end(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*fill)(CTX, T, CT, int64_t, CT, const diopiScalar_t *) =
      (diopiError_t(*)(CTX, T, CT, int64_t, CT, const diopiScalar_t *))
          ops_env_find(e, "diopiIndexFillScalar");
  int64_t s_x[2] = {2, 4}, s_idx[1] = {2};
  const float x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  const int64_t idx[2] = {-1, 1};
  float *out;
  T tx = ops_made_tensor(&m, diopi_dtype_float32, 2, s_x, x, sizeof x, NULL),
    tidx =
        ops_made_tensor(&m, diopi_dtype_int64, 1, s_idx, idx, sizeof idx, NULL),
    tout = ops_made_tensor(&m, diopi_dtype_float32, 2, s_x, NULL, 0,
                           (void **)&out);
  diopiScalar_t nine = {.stype = diopi_dtype_float64, .fval = 9};
  assert_int_equal(fill(e->ctx, tout, tx, 1, tidx, &nine), diopiSuccess);
  synchronize(e);
  const float want[8] = {0, 9, 2, 9, 4, 9, 6, 9};
  for (int i = 0; i < 8; i++)
    assert_true(out[i] == want[i]);
  ops_made_destroy(&m);
}

/* 4096 draws of random_(0) into int64 all below 2^62 has probability
 * 2^-4096; the library once drew below 2^53 + 1. */
static void random_into_int64_without_to_spans_int64(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*random)(CTX, T, int64_t, const int64_t *,
                         diopiGeneratorHandle_t) =
      (diopiError_t(*)(CTX, T, int64_t, const int64_t *,
                       diopiGeneratorHandle_t))ops_env_find(e,
                                                            "diopiRandomInp");
  int64_t shape[1] = {4096};
  int64_t *v;
  T t = ops_made_tensor(&m, diopi_dtype_int64, 1, shape, NULL, 0, (void **)&v);
  diopiGeneratorHandle_t g;
  assert_int_equal(bp_ops_generator_create(7, &g), BP_OK);
  assert_int_equal(random(e->ctx, t, 0, NULL, g), diopiSuccess);
  synchronize(e);
  int64_t high = 0;
  for (int i = 0; i < 4096; i++) {
    assert_true(v[i] >= 0);
    high = v[i] > high ? v[i] : high;
  }
  assert_true(high >= INT64_C(1) << 62);
  bp_ops_generator_destroy(g);
  ops_made_destroy(&m);
}

/* random_(-3, 2) into int8: each of -3..1, nothing else (1000 draws miss
 * one value with probability below 1e-90). */
static void random_into_int8_draws_each_value_of_the_range(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*random)(CTX, T, int64_t, const int64_t *,
                         diopiGeneratorHandle_t) =
      (diopiError_t(*)(CTX, T, int64_t, const int64_t *,
                       diopiGeneratorHandle_t))ops_env_find(e,
                                                            "diopiRandomInp");
  int64_t shape[1] = {1000};
  int8_t *v;
  T t = ops_made_tensor(&m, diopi_dtype_int8, 1, shape, NULL, 0, (void **)&v);
  diopiGeneratorHandle_t g;
  assert_int_equal(bp_ops_generator_create(7, &g), BP_OK);
  const int64_t to = 2;
  assert_int_equal(random(e->ctx, t, -3, &to, g), diopiSuccess);
  synchronize(e);
  int seen[5] = {0};
  for (int i = 0; i < 1000; i++) {
    assert_true(v[i] >= -3 && v[i] < 2);
    seen[v[i] + 3]++;
  }
  for (int k = 0; k < 5; k++)
    assert_true(seen[k] > 0);
  bp_ops_generator_destroy(g);
  ops_made_destroy(&m);
}

/* cdist(x1 (2, 1, 2), x2 (3, 1, 2)): the batch dims broadcast to 2 x 3
 * (PyTorch's), each out[i][j] the distance of row x1[i] to row x2[j]; the
 * backward's gradient for x1[i] sums over the 3 batches that read it. */
static void cdist_broadcasts_batch_dims(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*cdist)(CTX, T, CT, CT, double, const int64_t *) =
      (diopiError_t(*)(CTX, T, CT, CT, double, const int64_t *))ops_env_find(
          e, "diopiCdist");
  diopiError_t (*backward)(CTX, T, CT, CT, CT, double, CT) = (diopiError_t(*)(
      CTX, T, CT, CT, CT, double, CT))ops_env_find(e, "diopiCdistBackward");
  int64_t s1[3] = {2, 1, 2}, s2[4] = {3, 1, 1, 2}, so[4] = {3, 2, 1, 1};
  const float x1[4] = {0, 0, 3, 4}, x2[6] = {0, 0, 3, 0, 0, 4};
  float *out, *grad;
  T t1 = ops_made_tensor(&m, diopi_dtype_float32, 3, s1, x1, sizeof x1, NULL),
    t2 = ops_made_tensor(&m, diopi_dtype_float32, 4, s2, x2, sizeof x2, NULL),
    tout =
        ops_made_tensor(&m, diopi_dtype_float32, 4, so, NULL, 0, (void **)&out);
  assert_int_equal(cdist(e->ctx, tout, t1, t2, 2.0, NULL), diopiSuccess);
  synchronize(e);
  /* out[k][i]: |x1[i] - x2[k]| for x2 rows (0,0), (3,0), (0,4). */
  const float want[6] = {0, 5, 3, 4, 4, 3};
  for (int i = 0; i < 6; i++)
    assert_true(out[i] == want[i]);
  const float ones[6] = {1, 1, 1, 1, 1, 1};
  T go = ops_made_tensor(&m, diopi_dtype_float32, 4, so, ones, sizeof ones,
                         NULL),
    tg = ops_made_tensor(&m, diopi_dtype_float32, 3, s1, NULL, 0,
                         (void **)&grad);
  assert_int_equal(backward(e->ctx, tg, go, t1, t2, 2.0, tout), diopiSuccess);
  synchronize(e);
  /* x1[0] = (0,0): (x1 - x2) / dist over the rows at distance 3 and 4
   * (the one at 0 adds 0): (-3/3, 0) + (0, -4/4). x1[1] = (3,4): (3/5,
   * 4/5) + (0, 4/4) + (3/3, 0). */
  const float want_grad[4] = {-1, -1, 1.6f, 1.8f};
  for (int i = 0; i < 4; i++)
    assert_float_equal(grad[i], want_grad[i], 1e-6);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(index_fill_counts_a_negative_index_from_the_end),
      cmocka_unit_test(random_into_int64_without_to_spans_int64),
      cmocka_unit_test(random_into_int8_draws_each_value_of_the_range),
      cmocka_unit_test(cdist_broadcasts_batch_dims),
  };
  return cmocka_run_group_tests_name("configured_semantics", tests,
                                     ops_env_setup, ops_env_teardown);
}
