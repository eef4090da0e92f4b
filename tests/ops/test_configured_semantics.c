/* PyTorch's semantics that DIOPI's configured cases
 * (tests/data/ops_diopi) found the reference library off, each pinned by
 * a small case worked out by hand: index_fill counts a negative index from
 * the end; random_ into int64 without `to` draws from all of [from,
 * 2^63 - 1], not from a float's exact range. */
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(index_fill_counts_a_negative_index_from_the_end),
      cmocka_unit_test(random_into_int64_without_to_spans_int64),
      cmocka_unit_test(random_into_int8_draws_each_value_of_the_range),
  };
  return cmocka_run_group_tests_name("configured_semantics", tests,
                                     ops_env_setup, ops_env_teardown);
}
