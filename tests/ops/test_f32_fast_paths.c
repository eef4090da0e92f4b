/* The reference library's float32 fast paths keep PyTorch's results where
 * they differ from a plain loop: max over rows (first NaN wins, ties keep
 * the first index), comparisons of broadcast and strided float32 inputs into
 * bool, max_pool2d's 2x2 window, the vectorized log, sin and cos against
 * libm, bitwise and logical ops on integer and bool tensors (exact in every
 * bit), scatter-add's repeated indices added in index order across the
 * pool's blocks, and topk's selection of a few from a long line (NaNs, ties
 * by position). Expected values are written out by hand (log's come from the
 * C library). */
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

/* A contiguous device tensor and its (host-addressable) data. */
static T make(ops_env_t *e, diopiDtype_t dtype, size_t ndim,
              const int64_t *shape, void **data) {
  T t;
  assert_int_equal(
      bp_ops_tensor_create(e->device, e->stream, dtype, ndim, shape, &t),
      BP_OK);
  assert_int_equal(diopiGetTensorData(t, data), diopiSuccess);
  return t;
}

static void max_over_float32_rows_takes_first_nan_and_first_tie(void **state) {
  ops_env_t *e = *state;
  /* 40 columns: the vectorized lanes and the tail both see the rows */
  enum { COLS = 40 };
  int64_t shape[2] = {3, COLS}, reduced[1] = {3};
  float *x, *max;
  int64_t *index;
  T in = make(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T out = make(e, diopi_dtype_float32, 1, reduced, (void **)&max);
  T at = make(e, diopi_dtype_int64, 1, reduced, (void **)&index);
  for (int k = 0; k < 3 * COLS; k++)
    x[k] = (float)(k % 7) - 10.0f;
  x[5] = 4.0f; /* row 0: 4 at 5 and at 33 */
  x[33] = 4.0f;
  x[COLS + 38] = NAN; /* row 1: NaN at 38 (the tail) and at 39 */
  x[COLS + 39] = NAN;
  x[COLS + 2] = 100.0f;
  x[2 * COLS + 17] = -INFINITY; /* row 2: max -4 first at 3 (k = 83) */
  diopiError_t (*fn)(CTX, T, T, CT, int64_t) =
      (diopiError_t(*)(CTX, T, T, CT, int64_t))ops_env_find(e, "diopiMax");
  assert_int_equal(fn(e->ctx, out, at, in, 1), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  assert_true(max[0] == 4.0f);
  assert_int_equal(index[0], 5);
  assert_true(isnan(max[1]));
  assert_int_equal(index[1], 38);
  assert_true(max[2] == -4.0f);
  assert_int_equal(index[2], 3);
  /* min with indices goes through the reduction engine's float32 runs */
  fn = (diopiError_t(*)(CTX, T, T, CT, int64_t))ops_env_find(e, "diopiMin");
  assert_int_equal(fn(e->ctx, out, at, in, 1), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  assert_true(max[0] == -10.0f);
  assert_int_equal(index[0], 0);
  assert_true(isnan(max[1]));
  assert_int_equal(index[1], 38);
  assert_true(max[2] == -INFINITY);
  assert_int_equal(index[2], 17);
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(out);
  bp_ops_tensor_destroy(at);
}

/* The 2x2 stride-2 window (the CNN's pooling) over a 4x5 plane, whose last
 * column no window covers: ties keep the first candidate in row-major
 * order, the first NaN wins. */
static void max_pool_2x2_takes_first_tie_and_first_nan(void **state) {
  ops_env_t *e = *state;
  int64_t shape[4] = {1, 1, 4, 5}, pooled[4] = {1, 1, 2, 2};
  float *x, *max;
  int64_t *index;
  T in = make(e, diopi_dtype_float32, 4, shape, (void **)&x);
  T out = make(e, diopi_dtype_float32, 4, pooled, (void **)&max);
  T at = make(e, diopi_dtype_int64, 4, pooled, (void **)&index);
  const float plane[20] = {1,   3,   3,   0, 9, /* */
                           2,   3,   NAN, 0, 9, /* */
                           NAN, 5,   7,   7, 9, /* */
                           6,   NAN, 7,   8, 9};
  memcpy(x, plane, sizeof plane);
  const int64_t two[2] = {2, 2}, zero[2] = {0, 0}, one[2] = {1, 1};
  diopiSize_t k = {two, 2}, pad = {zero, 2}, dil = {one, 2};
  diopiError_t (*fn)(CTX, T, T, CT, diopiSize_t, diopiSize_t, diopiSize_t,
                     diopiSize_t, bool) =
      (diopiError_t(*)(CTX, T, T, CT, diopiSize_t, diopiSize_t, diopiSize_t,
                       diopiSize_t,
                       bool))ops_env_find(e, "diopiMaxPool2dWithIndices");
  assert_int_equal(fn(e->ctx, out, at, in, k, k, pad, dil, false),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  assert_true(max[0] == 3.0f);
  assert_int_equal(index[0], 1);
  assert_true(isnan(max[1]));
  assert_int_equal(index[1], 7);
  assert_true(isnan(max[2]));
  assert_int_equal(index[2], 10);
  assert_true(max[3] == 8.0f);
  assert_int_equal(index[3], 18);
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(out);
  bp_ops_tensor_destroy(at);
}

static void lt_of_broadcast_and_strided_float32_is_bool(void **state) {
  ops_env_t *e = *state;
  int64_t shape[2] = {2, 3}, row[1] = {3};
  float *a, *b;
  bool *out;
  T ta = make(e, diopi_dtype_float32, 2, shape, (void **)&a);
  T tb = make(e, diopi_dtype_float32, 1, row, (void **)&b);
  T to = make(e, diopi_dtype_bool, 2, shape, (void **)&out);
  const float av[6] = {1, 5, 3, 7, 2, 0}; /* a as stored: (3, 2) */
  const float bv[3] = {2, 2, 2};
  memcpy(a, av, sizeof av);
  memcpy(b, bv, sizeof bv);
  /* a viewed transposed: (2, 3) with strides (1, 2) = {{1, 3, 2}, {5, 7, 0}} */
  int64_t strides[2] = {1, 2};
  T at;
  assert_int_equal(bp_ops_tensor_wrap(e->device, a, diopi_dtype_float32, 2,
                                      shape, strides, &at),
                   BP_OK);
  diopiError_t (*lt)(CTX, T, CT, CT) =
      (diopiError_t(*)(CTX, T, CT, CT))ops_env_find(e, "diopiLt");
  assert_int_equal(lt(e->ctx, to, at, tb), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  const bool expected[6] = {true, false, false, false, false, true};
  for (int k = 0; k < 6; k++)
    assert_int_equal(out[k], expected[k]);
  bp_ops_tensor_destroy(at);
  bp_ops_tensor_destroy(ta);
  bp_ops_tensor_destroy(tb);
  bp_ops_tensor_destroy(to);
}

static void log_of_float32_is_within_two_ulp_of_libm(void **state) {
  ops_env_t *e = *state;
  enum { N = 1000 };
  int64_t shape[1] = {N + 6};
  float *x, *y;
  T tx = make(e, diopi_dtype_float32, 1, shape, (void **)&x);
  T ty = make(e, diopi_dtype_float32, 1, shape, (void **)&y);
  for (int k = 0; k < N; k++) /* 1e-30 .. 1e30, and subnormals */
    x[k] = powf(10.0f, -30.0f + 60.0f * (float)k / N);
  x[0] = 1e-40f;
  const float special[6] = {0.0f, -1.0f, INFINITY, NAN, 1.0f, 0.70710677f};
  memcpy(x + N, special, sizeof special);
  diopiError_t (*fn)(CTX, T, CT) =
      (diopiError_t(*)(CTX, T, CT))ops_env_find(e, "diopiLog");
  assert_int_equal(fn(e->ctx, ty, tx), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int k = 0; k < N; k++) {
    float want = logf(x[k]);
    assert_true(fabsf(y[k] - want) <=
                2.0f * (nextafterf(fabsf(want), INFINITY) - fabsf(want)));
  }
  assert_true(y[N] == -INFINITY);
  assert_true(isnan(y[N + 1]));
  assert_true(y[N + 2] == INFINITY);
  assert_true(isnan(y[N + 3]));
  assert_true(y[N + 4] == 0.0f);
  assert_true(fabsf(y[N + 5] - logf(0.70710677f)) < 1e-7f);
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ty);
}

static void sin_and_cos_of_float32_match_libm(void **state) {
  ops_env_t *e = *state;
  enum { N = 2000 };
  int64_t shape[1] = {N + 4};
  float *x, *y;
  T tx = make(e, diopi_dtype_float32, 1, shape, (void **)&x);
  T ty = make(e, diopi_dtype_float32, 1, shape, (void **)&y);
  for (int k = 0; k < N; k++) /* -100 .. 100 */
    x[k] = -100.0f + 200.0f * (float)k / N;
  const float beyond[4] = {1e5f, -3e7f, INFINITY, NAN}; /* libm's range */
  memcpy(x + N, beyond, sizeof beyond);
  const char *names[2] = {"diopiSin", "diopiCos"};
  for (int f = 0; f < 2; f++) {
    diopiError_t (*fn)(CTX, T, CT) =
        (diopiError_t(*)(CTX, T, CT))ops_env_find(e, names[f]);
    assert_int_equal(fn(e->ctx, ty, tx), diopiSuccess);
    assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
    for (int k = 0; k < N + 2; k++) {
      float want = f ? cosf(x[k]) : sinf(x[k]);
      assert_true(fabsf(y[k] - want) <= 2e-7f);
    }
    assert_true(isnan(y[N + 2]));
    assert_true(isnan(y[N + 3]));
  }
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ty);
}

/* and, or, not of int64 values beyond 2^53 (no double in between), and
 * logical and, not of bool tensors, long enough to split across threads. */
static void bitwise_of_int64_and_logical_of_bool_are_exact(void **state) {
  ops_env_t *e = *state;
  enum { N = 100000 };
  int64_t shape[1] = {N};
  int64_t *a, *b, *r;
  bool *p, *q, *s;
  T ta = make(e, diopi_dtype_int64, 1, shape, (void **)&a);
  T tb = make(e, diopi_dtype_int64, 1, shape, (void **)&b);
  T tr = make(e, diopi_dtype_int64, 1, shape, (void **)&r);
  T tp = make(e, diopi_dtype_bool, 1, shape, (void **)&p);
  T tq = make(e, diopi_dtype_bool, 1, shape, (void **)&q);
  T ts = make(e, diopi_dtype_bool, 1, shape, (void **)&s);
  for (int64_t k = 0; k < N; k++) {
    a[k] = (INT64_C(1) << 62) + 2 * k + 1; /* odd: low bit set */
    b[k] = INT64_C(3) + ((k & 1) << 61);
    p[k] = (k % 3) != 0;
    q[k] = (k % 2) != 0;
  }
  diopiError_t (*binary)(CTX, T, CT, CT) =
      (diopiError_t(*)(CTX, T, CT, CT))ops_env_find(e, "diopiBitwiseAnd");
  assert_int_equal(binary(e->ctx, tr, ta, tb), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int64_t k = 0; k < N; k++)
    assert_true(r[k] == ((2 * k + 1) & 3));
  binary = (diopiError_t(*)(CTX, T, CT, CT))ops_env_find(e, "diopiBitwiseOr");
  assert_int_equal(binary(e->ctx, tr, ta, tb), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int64_t k = 0; k < N; k++)
    assert_true(r[k] == (a[k] | 3 | ((k & 1) << 61)));
  diopiError_t (*unary)(CTX, T, CT) =
      (diopiError_t(*)(CTX, T, CT))ops_env_find(e, "diopiBitwiseNot");
  assert_int_equal(unary(e->ctx, tr, ta), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int64_t k = 0; k < N; k++)
    assert_true(r[k] == -a[k] - 1);
  binary = (diopiError_t(*)(CTX, T, CT, CT))ops_env_find(e, "diopiLogicalAnd");
  assert_int_equal(binary(e->ctx, ts, tp, tq), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int64_t k = 0; k < N; k++)
    assert_true(s[k] == ((k % 3) != 0 && (k % 2) != 0));
  unary = (diopiError_t(*)(CTX, T, CT))ops_env_find(e, "diopiLogicalNot");
  assert_int_equal(unary(e->ctx, ts, tp), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int64_t k = 0; k < N; k++)
    assert_true(s[k] == ((k % 3) == 0));
  T all[6] = {ta, tb, tr, tp, tq, ts};
  for (int k = 0; k < 6; k++)
    bp_ops_tensor_destroy(all[k]);
}

static void
scatter_add_of_float32_adds_repeated_indices_in_order(void **state) {
  ops_env_t *e = *state;
  /* enough rows for the pool to split them into blocks */
  enum { ROWS = 12000 };
  int64_t shape[2] = {ROWS, 4}, index_shape[2] = {ROWS, 3};
  float *in, *out, *src;
  int64_t *index;
  T input = make(e, diopi_dtype_float32, 2, shape, (void **)&in);
  T result = make(e, diopi_dtype_float32, 2, shape, (void **)&out);
  T source = make(e, diopi_dtype_float32, 2, index_shape, (void **)&src);
  T at = make(e, diopi_dtype_int64, 2, index_shape, (void **)&index);
  for (int r = 0; r < ROWS; r++) {
    for (int c = 0; c < 4; c++)
      in[r * 4 + c] = 1.0f;
    /* 1 + 2^24 rounds to 2^24 in float, so column 2 ends 0 only when
     * 2^24 is added before -2^24 (the other order gives 1) */
    const int64_t cols[3] = {2, 2, 0};
    const float values[3] = {16777216.0f, -16777216.0f, (float)r};
    for (int k = 0; k < 3; k++) {
      index[r * 3 + k] = cols[k];
      src[r * 3 + k] = values[k];
    }
  }
  diopiError_t (*fn)(CTX, T, CT, int64_t, CT, CT, const char *) =
      (diopiError_t(*)(CTX, T, CT, int64_t, CT, CT, const char *))ops_env_find(
          e, "diopiScatter");
  assert_int_equal(fn(e->ctx, result, input, 1, source, at, "add"),
                   diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  for (int r = 0; r < ROWS; r++) {
    assert_true(out[r * 4 + 0] == 1.0f + (float)r);
    assert_true(out[r * 4 + 1] == 1.0f);
    assert_true(out[r * 4 + 2] == 0.0f);
    assert_true(out[r * 4 + 3] == 1.0f);
  }
  bp_ops_tensor_destroy(input);
  bp_ops_tensor_destroy(result);
  bp_ops_tensor_destroy(source);
  bp_ops_tensor_destroy(at);
}

static void topk_of_a_long_line_keeps_sort_order_ties_and_nans(void **state) {
  ops_env_t *e = *state;
  enum { COLS = 64 }; /* k = 3 of 64: the selection path, not a full sort */
  int64_t shape[2] = {2, COLS}, top[2] = {2, 3};
  float *x, *values;
  int64_t *index;
  T in = make(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T out = make(e, diopi_dtype_float32, 2, top, (void **)&values);
  T at = make(e, diopi_dtype_int64, 2, top, (void **)&index);
  for (int k = 0; k < 2 * COLS; k++)
    x[k] = (float)(k % 5);
  x[40] = NAN; /* row 0: NaNs at 40 and 50 come first when largest */
  x[50] = NAN;
  x[COLS + 9] = -2.0f; /* row 1: -2 at 9 and 30, then 0 first at 1 */
  x[COLS + 30] = -2.0f;
  diopiError_t (*fn)(CTX, T, T, CT, int64_t, int64_t, bool, bool) =
      (diopiError_t(*)(CTX, T, T, CT, int64_t, int64_t, bool,
                       bool))ops_env_find(e, "diopiTopk");
  assert_int_equal(fn(e->ctx, out, at, in, 3, 1, true, true), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  assert_true(isnan(values[0]) && isnan(values[1]) && values[2] == 4.0f);
  assert_int_equal(index[0], 40);
  assert_int_equal(index[1], 50);
  assert_int_equal(index[2], 4);
  assert_true(values[3] == 4.0f && values[4] == 4.0f && values[5] == 4.0f);
  assert_int_equal(index[3], 0); /* row 1 starts at 64: 64 % 5 = 4 */
  assert_int_equal(index[4], 5);
  assert_int_equal(index[5], 10);
  assert_int_equal(fn(e->ctx, out, at, in, 3, 1, false, true), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  assert_true(values[3] == -2.0f && values[4] == -2.0f && values[5] == 0.0f);
  assert_int_equal(index[3], 9);
  assert_int_equal(index[4], 30);
  assert_int_equal(index[5], 1);
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(out);
  bp_ops_tensor_destroy(at);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(
          max_over_float32_rows_takes_first_nan_and_first_tie, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          max_pool_2x2_takes_first_tie_and_first_nan, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          lt_of_broadcast_and_strided_float32_is_bool, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(log_of_float32_is_within_two_ulp_of_libm,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          scatter_add_of_float32_adds_repeated_indices_in_order, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          topk_of_a_long_line_keeps_sort_order_ties_and_nans, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(sin_and_cos_of_float32_match_libm,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          bitwise_of_int64_and_logical_of_bool_are_exact, ops_env_setup,
          ops_env_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
