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

static void max_over_float32_rows_takes_first_nan_and_first_tie(void **state) {
  ops_env_t *e = *state;
  /* 40 columns: the vectorized lanes and the tail both see the rows */
  enum { COLS = 40 };
  int64_t shape[2] = {3, COLS}, reduced[1] = {3};
  float *x, *max;
  int64_t *index;
  T in = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T out = ops_env_tensor(e, diopi_dtype_float32, 1, reduced, (void **)&max);
  T at = ops_env_tensor(e, diopi_dtype_int64, 1, reduced, (void **)&index);
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
  T in = ops_env_tensor(e, diopi_dtype_float32, 4, shape, (void **)&x);
  T out = ops_env_tensor(e, diopi_dtype_float32, 4, pooled, (void **)&max);
  T at = ops_env_tensor(e, diopi_dtype_int64, 4, pooled, (void **)&index);
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
  T ta = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&a);
  T tb = ops_env_tensor(e, diopi_dtype_float32, 1, row, (void **)&b);
  T to = ops_env_tensor(e, diopi_dtype_bool, 2, shape, (void **)&out);
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
  T tx = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&x);
  T ty = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&y);
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
  T tx = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&x);
  T ty = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&y);
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
  T ta = ops_env_tensor(e, diopi_dtype_int64, 1, shape, (void **)&a);
  T tb = ops_env_tensor(e, diopi_dtype_int64, 1, shape, (void **)&b);
  T tr = ops_env_tensor(e, diopi_dtype_int64, 1, shape, (void **)&r);
  T tp = ops_env_tensor(e, diopi_dtype_bool, 1, shape, (void **)&p);
  T tq = ops_env_tensor(e, diopi_dtype_bool, 1, shape, (void **)&q);
  T ts = ops_env_tensor(e, diopi_dtype_bool, 1, shape, (void **)&s);
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
  T input = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&in);
  T result = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&out);
  T source =
      ops_env_tensor(e, diopi_dtype_float32, 2, index_shape, (void **)&src);
  T at = ops_env_tensor(e, diopi_dtype_int64, 2, index_shape, (void **)&index);
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
  T in = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T out = ops_env_tensor(e, diopi_dtype_float32, 2, top, (void **)&values);
  T at = ops_env_tensor(e, diopi_dtype_int64, 2, top, (void **)&index);
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

/* ---- The fast paths of ops-fast3: each against a plain loop written here,
 * on odd sizes (vector tails, pool chunks cut mid-row) and on strided or
 * broadcast inputs (the generic paths, which must agree). */

/* x[k] in [-1, 1) from a fixed sequence; a few exact zeros. */
static void fill_values(float *x, int64_t n, uint32_t seed) {
  for (int64_t k = 0; k < n; k++) {
    seed = seed * 1664525u + 1013904223u;
    x[k] = k % 17 == 5 ? 0.0f : (float)(seed >> 8) * 0x1.0p-23f - 1.0f;
  }
}

static void sync_ok(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

static void assert_close(double got, double want, double rel) {
  if (!(fabs(got - want) <= rel * fabs(want) + 1e-30)) {
    print_error("got %.17g, want %.17g\n", got, want);
    fail();
  }
}

/* clip_grad_norm over a contiguous gradient long enough for the pool, an
 * odd one and a strided one, for p = 2, 1 and inf: the norm of all of
 * them, and every element scaled by max_norm / (norm + 1e-6). */
static void clip_grad_norm_matches_a_plain_norm(void **state) {
  ops_env_t *e = *state;
  enum { BIG = 70001, ODD = 37, ROWS = 5, COLS = 6 };
  int64_t big[1] = {BIG}, odd[1] = {ODD}, mat[2] = {ROWS, COLS};
  float *g[3], keep[3][BIG];
  T t[3];
  diopiError_t (*fn)(CTX, double *, T *, int64_t, double, double, bool) =
      (diopiError_t(*)(CTX, double *, T *, int64_t, double, double,
                       bool))ops_env_find(e, "diopiClipGradNorm");
  const double orders[3] = {2.0, 1.0, INFINITY};
  for (int o = 0; o < 3; o++) {
    t[0] = ops_env_tensor(e, diopi_dtype_float32, 1, big, (void **)&g[0]);
    t[1] = ops_env_tensor(e, diopi_dtype_float32, 1, odd, (void **)&g[1]);
    T whole = ops_env_tensor(e, diopi_dtype_float32, 2, mat, (void **)&g[2]);
    int64_t view[2] = {COLS, ROWS}, strides[2] = {1, COLS}; /* transposed */
    assert_int_equal(bp_ops_tensor_wrap(e->device, g[2], diopi_dtype_float32, 2,
                                        view, strides, &t[2]),
                     BP_OK);
    int64_t sizes[3] = {BIG, ODD, ROWS * COLS};
    double acc = 0;
    for (int i = 0; i < 3; i++) {
      fill_values(g[i], sizes[i], 7u + (uint32_t)i);
      g[i][sizes[i] / 2] = i == 1 ? -3.5f : g[i][sizes[i] / 2];
      memcpy(keep[i], g[i], sizeof(float) * (size_t)sizes[i]);
      for (int64_t k = 0; k < sizes[i]; k++) {
        double a = fabs(g[i][k]);
        acc = isinf(orders[o]) ? (a > acc ? a : acc)
              : orders[o] == 1 ? acc + a
                               : acc + a * a;
      }
    }
    double want = orders[o] == 2 ? sqrt(acc) : acc, norm = 0;
    assert_int_equal(fn(e->ctx, &norm, t, 3, 1.0, orders[o], false),
                     diopiSuccess);
    sync_ok(e);
    assert_close(norm, want, 1e-6);
    double scale = 1.0 / (norm + 1e-6);
    for (int i = 0; i < 3; i++)
      for (int64_t k = 0; k < sizes[i]; k++)
        assert_true(g[i][k] == (float)((double)keep[i][k] * scale));
    for (int i = 0; i < 3; i++)
      bp_ops_tensor_destroy(t[i]);
    bp_ops_tensor_destroy(whole);
  }
}

/* mse_loss's mean and sum over contiguous float32 (the SIMD block sums) and
 * with a broadcast target (the generic path) against a double loop. */
static void mse_loss_sums_match_a_plain_sum(void **state) {
  ops_env_t *e = *state;
  enum { ROWS = 3, COLS = 30011 };
  int64_t shape[2] = {ROWS, COLS}, row[1] = {COLS};
  float *x, *y, *b, *out;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T ty = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&y);
  T tb = ops_env_tensor(e, diopi_dtype_float32, 1, row, (void **)&b);
  T to = ops_env_tensor(e, diopi_dtype_float32, 0, NULL, (void **)&out);
  fill_values(x, ROWS * COLS, 1);
  fill_values(y, ROWS * COLS, 2);
  fill_values(b, COLS, 3);
  double same = 0, broadcast = 0;
  for (int64_t k = 0; k < ROWS * COLS; k++) {
    double d = (double)x[k] - y[k], c = (double)x[k] - b[k % COLS];
    same += d * d;
    broadcast += c * c;
  }
  diopiError_t (*fn)(CTX, T, CT, CT, diopiReduction_t) = (diopiError_t(*)(
      CTX, T, CT, CT, diopiReduction_t))ops_env_find(e, "diopiMSELoss");
  assert_int_equal(fn(e->ctx, to, tx, ty, ReductionMean), diopiSuccess);
  sync_ok(e);
  assert_close(*out, same / (ROWS * COLS), 1e-6);
  assert_int_equal(fn(e->ctx, to, tx, ty, ReductionSum), diopiSuccess);
  sync_ok(e);
  assert_close(*out, same, 1e-6);
  assert_int_equal(fn(e->ctx, to, tx, tb, ReductionMean), diopiSuccess);
  sync_ok(e);
  assert_close(*out, broadcast / (ROWS * COLS), 1e-6);
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ty);
  bp_ops_tensor_destroy(tb);
  bp_ops_tensor_destroy(to);
}

/* masked_select of float32 and int64 inputs under a contiguous bool mask
 * long enough for the pool's chunks, and under a broadcast mask (the
 * generic path): the selected elements in order. */
static void masked_select_keeps_order_across_chunks(void **state) {
  ops_env_t *e = *state;
  enum { ROWS = 3, COLS = 30001, N = ROWS * COLS };
  int64_t shape[2] = {ROWS, COLS}, row[1] = {COLS};
  float *x;
  int64_t *w;
  bool *m, *mrow;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T tw = ops_env_tensor(e, diopi_dtype_int64, 2, shape, (void **)&w);
  T tm = ops_env_tensor(e, diopi_dtype_bool, 2, shape, (void **)&m);
  T tr = ops_env_tensor(e, diopi_dtype_bool, 1, row, (void **)&mrow);
  fill_values(x, N, 11);
  uint32_t seed = 5;
  for (int64_t k = 0; k < N; k++) {
    seed = seed * 1664525u + 1013904223u;
    m[k] = (seed >> 29) < 3; /* 3 in 8 */
    w[k] = k * 3 - 7;
  }
  for (int64_t k = 0; k < COLS; k++)
    mrow[k] = k % 3 == 1;
  diopiError_t (*fn)(CTX, T *, CT, CT) =
      (diopiError_t(*)(CTX, T *, CT, CT))ops_env_find(e, "diopiMaskedSelect");
  T out = NULL;
  assert_int_equal(fn(e->ctx, &out, tx, tm), diopiSuccess);
  sync_ok(e);
  const float *got;
  assert_int_equal(diopiGetTensorDataConst(out, (const void **)&got),
                   diopiSuccess);
  int64_t count = 0;
  for (int64_t k = 0; k < N; k++)
    if (m[k])
      assert_true(got[count++] == x[k]);
  diopiSize_t size;
  assert_int_equal(diopiGetTensorShape(out, &size), diopiSuccess);
  assert_int_equal(size.data[0], count);
  assert_int_equal(fn(e->ctx, &out, tw, tm), diopiSuccess);
  sync_ok(e);
  const int64_t *wide;
  assert_int_equal(diopiGetTensorDataConst(out, (const void **)&wide),
                   diopiSuccess);
  for (int64_t k = 0, c = 0; k < N; k++)
    if (m[k])
      assert_true(wide[c++] == w[k]);
  assert_int_equal(fn(e->ctx, &out, tx, tr), diopiSuccess);
  sync_ok(e);
  assert_int_equal(diopiGetTensorDataConst(out, (const void **)&got),
                   diopiSuccess);
  for (int64_t k = 0, c = 0; k < N; k++)
    if (mrow[k % COLS])
      assert_true(got[c++] == x[k]);
  bp_ops_context_clear(e->ctx);
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(tw);
  bp_ops_tensor_destroy(tm);
  bp_ops_tensor_destroy(tr);
}

/* nonzero of a bool tensor long enough for the pool's chunks (cut inside
 * rows) and of float32 with -0 (zero) and NaN (nonzero), contiguous and
 * transposed: the coordinates in row-major order. */
static void nonzero_lists_coordinates_in_order(void **state) {
  ops_env_t *e = *state;
  enum { A = 3, B = 7, C = 3331, N = A * B * C };
  int64_t shape[3] = {A, B, C}, small[2] = {3, 5};
  bool *m;
  float *f;
  T tm = ops_env_tensor(e, diopi_dtype_bool, 3, shape, (void **)&m);
  T tf = ops_env_tensor(e, diopi_dtype_float32, 2, small, (void **)&f);
  uint32_t seed = 9;
  for (int64_t k = 0; k < N; k++) {
    seed = seed * 1664525u + 1013904223u;
    m[k] = (seed >> 30) == 0;
  }
  diopiError_t (*fn)(CTX, T *, CT) =
      (diopiError_t(*)(CTX, T *, CT))ops_env_find(e, "diopiNonzero");
  T out = NULL;
  assert_int_equal(fn(e->ctx, &out, tm), diopiSuccess);
  sync_ok(e);
  const int64_t *got;
  assert_int_equal(diopiGetTensorDataConst(out, (const void **)&got),
                   diopiSuccess);
  int64_t count = 0;
  for (int64_t k = 0; k < N; k++)
    if (m[k]) {
      assert_int_equal(got[3 * count], k / (B * C));
      assert_int_equal(got[3 * count + 1], k / C % B);
      assert_int_equal(got[3 * count + 2], k % C);
      count++;
    }
  diopiSize_t size;
  assert_int_equal(diopiGetTensorShape(out, &size), diopiSuccess);
  assert_int_equal(size.data[0], count);
  const float values[15] = {0,     -0.0f, 1, 0, NAN, 0, 0, 2,
                            -0.0f, 0,     0, 3, 0,   0, -4};
  memcpy(f, values, sizeof values);
  assert_int_equal(fn(e->ctx, &out, tf), diopiSuccess);
  sync_ok(e);
  assert_int_equal(diopiGetTensorDataConst(out, (const void **)&got),
                   diopiSuccess);
  const int64_t want[10] = {0, 2, 0, 4, 1, 2, 2, 1, 2, 4};
  assert_int_equal(diopiGetTensorShape(out, &size), diopiSuccess);
  assert_int_equal(size.data[0], 5);
  assert_memory_equal(got, want, sizeof want);
  int64_t view[2] = {5, 3}, strides[2] = {1, 5}; /* transposed: generic */
  T tt;
  assert_int_equal(bp_ops_tensor_wrap(e->device, f, diopi_dtype_float32, 2,
                                      view, strides, &tt),
                   BP_OK);
  assert_int_equal(fn(e->ctx, &out, tt), diopiSuccess);
  sync_ok(e);
  assert_int_equal(diopiGetTensorDataConst(out, (const void **)&got),
                   diopiSuccess);
  const int64_t want_t[10] = {1, 2, 2, 0, 2, 1, 4, 0, 4, 2};
  assert_memory_equal(got, want_t, sizeof want_t);
  bp_ops_context_clear(e->ctx);
  bp_ops_tensor_destroy(tt);
  bp_ops_tensor_destroy(tm);
  bp_ops_tensor_destroy(tf);
}

/* nll_loss over (N, C) and (N, C, H, W) float32 with class weights and
 * ignored targets, mean and sum, enough samples for the pool: the weighted
 * sums of a plain loop. */
static void nll_loss_matches_a_plain_loop(void **state) {
  ops_env_t *e = *state;
  enum { N = 2, C = 5, H = 131, W = 133, S = H * W };
  int64_t shape[4] = {N, C, H, W}, samples[3] = {N, H, W}, classes[1] = {C};
  float *x, *w, *out;
  int64_t *y;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 4, shape, (void **)&x);
  T ty = ops_env_tensor(e, diopi_dtype_int64, 3, samples, (void **)&y);
  T tw = ops_env_tensor(e, diopi_dtype_float32, 1, classes, (void **)&w);
  T to = ops_env_tensor(e, diopi_dtype_float32, 0, NULL, (void **)&out);
  fill_values(x, N * C * S, 21);
  for (int c = 0; c < C; c++)
    w[c] = 0.5f + (float)c;
  for (int64_t i = 0; i < N * S; i++)
    y[i] = i % 11 == 3 ? -100 : (i * 7) % C;
  double sum = 0, norm = 0;
  for (int64_t i = 0; i < N * S; i++)
    if (y[i] != -100) {
      int64_t at = (i / S * C + y[i]) * S + i % S;
      sum += -(double)w[y[i]] * x[at];
      norm += w[y[i]];
    }
  diopiError_t (*fn)(CTX, T, CT, CT, CT, diopiReduction_t, int64_t) =
      (diopiError_t(*)(CTX, T, CT, CT, CT, diopiReduction_t,
                       int64_t))ops_env_find(e, "diopiNLLLoss");
  assert_int_equal(fn(e->ctx, to, tx, ty, tw, ReductionMean, -100),
                   diopiSuccess);
  sync_ok(e);
  assert_close(*out, sum / norm, 1e-6);
  assert_int_equal(fn(e->ctx, to, tx, ty, NULL, ReductionSum, -100),
                   diopiSuccess);
  sync_ok(e);
  double plain = 0;
  for (int64_t i = 0; i < N * S; i++)
    if (y[i] != -100)
      plain += -(double)x[(i / S * C + y[i]) * S + i % S];
  assert_close(*out, plain, 1e-6);
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ty);
  bp_ops_tensor_destroy(tw);
  bp_ops_tensor_destroy(to);
}

/* Random fills of one generator state into float32 (the block path) and
 * float64 (the element loop): uniform and bernoulli identical after
 * rounding, normal within float rounding; randperm into int64 (prefetched
 * swaps) and into float32 (the element loop) the same permutation. */
static void random_fast_paths_draw_what_the_loops_draw(void **state) {
  ops_env_t *e = *state;
  enum { N = 1001 };
  int64_t shape[1] = {N};
  float *f;
  double *d;
  T tf = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&f);
  T td = ops_env_tensor(e, diopi_dtype_float64, 1, shape, (void **)&d);
  typedef diopiError_t (*normal_t)(CTX, T, double, double,
                                   diopiGeneratorHandle_t);
  typedef diopiError_t (*uniform_t)(CTX, T, double, double,
                                    diopiGeneratorHandle_t);
  typedef diopiError_t (*bernoulli_t)(CTX, T, double, diopiGeneratorHandle_t);
  normal_t normal = (normal_t)ops_env_find(e, "diopiNormal");
  uniform_t uniform = (uniform_t)ops_env_find(e, "diopiUniformInp");
  bernoulli_t bernoulli = (bernoulli_t)ops_env_find(e, "diopiBernoulliScalar");
  for (int kind = 0; kind < 3; kind++) {
    for (int dtype = 0; dtype < 2; dtype++) {
      diopiGeneratorHandle_t g;
      assert_int_equal(bp_ops_generator_create(42, &g), BP_OK);
      T t = dtype ? td : tf;
      diopiError_t err = kind == 0   ? normal(e->ctx, t, 0.5, 2.0, g)
                         : kind == 1 ? uniform(e->ctx, t, -3.0, 5.0, g)
                                     : bernoulli(e->ctx, t, 0.3, g);
      assert_int_equal(err, diopiSuccess);
      sync_ok(e);
      bp_ops_generator_destroy(g);
    }
    for (int k = 0; k < N; k++)
      if (kind == 0)
        assert_true(fabs((double)f[k] - d[k]) <= 1e-5 * (1 + fabs(d[k])));
      else
        assert_true(f[k] == (float)d[k]);
  }
  int64_t *p;
  T tp = ops_env_tensor(e, diopi_dtype_int64, 1, shape, (void **)&p);
  diopiError_t (*randperm)(CTX, T, int64_t, diopiGeneratorHandle_t) =
      (diopiError_t(*)(CTX, T, int64_t, diopiGeneratorHandle_t))ops_env_find(
          e, "diopiRandperm");
  for (int dtype = 0; dtype < 2; dtype++) {
    diopiGeneratorHandle_t g;
    assert_int_equal(bp_ops_generator_create(43, &g), BP_OK);
    assert_int_equal(randperm(e->ctx, dtype ? tf : tp, N, g), diopiSuccess);
    sync_ok(e);
    bp_ops_generator_destroy(g);
  }
  bool seen[N] = {false};
  int moved = 0;
  for (int k = 0; k < N; k++) {
    assert_true(p[k] >= 0 && p[k] < N && !seen[p[k]]);
    seen[p[k]] = true;
    assert_true((float)p[k] == f[k]);
    moved += p[k] != k;
  }
  assert_true(moved > N / 2);
  bp_ops_tensor_destroy(tf);
  bp_ops_tensor_destroy(td);
  bp_ops_tensor_destroy(tp);
}

/* prod over float32 rows of odd length (the pairs and the tail)
 * and over a strided dim (the generic steps) against a double product. */
static void prod_of_float32_rows_matches_a_plain_product(void **state) {
  ops_env_t *e = *state;
  enum { ROWS = 4, COLS = 53 };
  int64_t shape[2] = {ROWS, COLS}, rows[1] = {ROWS}, cols[1] = {COLS};
  float *x, *out, *out_cols;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T to = ops_env_tensor(e, diopi_dtype_float32, 1, rows, (void **)&out);
  T tc = ops_env_tensor(e, diopi_dtype_float32, 1, cols, (void **)&out_cols);
  fill_values(x, ROWS * COLS, 31);
  for (int64_t k = 0; k < ROWS * COLS; k++)
    x[k] = 0.75f + 0.5f * fabsf(x[k]);
  x[2 * COLS + 50] = -2.0f;
  diopiError_t (*fn)(CTX, T, CT, const int64_t *) =
      (diopiError_t(*)(CTX, T, CT, const int64_t *))ops_env_find(e,
                                                                 "diopiProd");
  const int64_t last = 1, first = 0;
  assert_int_equal(fn(e->ctx, to, tx, &last), diopiSuccess);
  assert_int_equal(fn(e->ctx, tc, tx, &first), diopiSuccess);
  sync_ok(e);
  for (int r = 0; r < ROWS; r++) {
    double want = 1;
    for (int c = 0; c < COLS; c++)
      want *= x[r * COLS + c];
    assert_close(out[r], want, 1e-6);
  }
  for (int c = 0; c < COLS; c++) {
    double want = 1;
    for (int r = 0; r < ROWS; r++)
      want *= x[r * COLS + c];
    assert_close(out_cols[c], want, 1e-6);
  }
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(to);
  bp_ops_tensor_destroy(tc);
}

/* gather along the last dim (vector gathers) and scatter (replace and add,
 * repeated indices in order, each block starting from input) against plain
 * loops, over rows of odd length; the same through a strided out (the
 * generic path) agrees. */
static void
gather_and_scatter_along_the_last_dim_match_plain_loops(void **state) {
  ops_env_t *e = *state;
  enum { ROWS = 37, LEN = 29, K = 23 };
  int64_t in_shape[2] = {ROWS, LEN}, k_shape[2] = {ROWS, K};
  float *x, *src, *out, *big;
  int64_t *index;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 2, in_shape, (void **)&x);
  T ts = ops_env_tensor(e, diopi_dtype_float32, 2, k_shape, (void **)&src);
  T ti = ops_env_tensor(e, diopi_dtype_int64, 2, k_shape, (void **)&index);
  T tg = ops_env_tensor(e, diopi_dtype_float32, 2, k_shape, (void **)&out);
  int64_t wide[2] = {ROWS, 2 * LEN};
  T tb = ops_env_tensor(e, diopi_dtype_float32, 2, wide, (void **)&big);
  T strided; /* out as every other column of big */
  int64_t strides[2] = {2 * LEN, 2};
  assert_int_equal(bp_ops_tensor_wrap(e->device, big, diopi_dtype_float32, 2,
                                      in_shape, strides, &strided),
                   BP_OK);
  fill_values(x, ROWS * LEN, 41);
  fill_values(src, ROWS * K, 42);
  for (int64_t k = 0; k < ROWS * K; k++)
    index[k] = (k * 5 + k / K) % LEN; /* repeats within a row */
  diopiError_t (*gather)(CTX, T, CT, int64_t, CT) =
      (diopiError_t(*)(CTX, T, CT, int64_t, CT))ops_env_find(e, "diopiGather");
  assert_int_equal(gather(e->ctx, tg, tx, 1, ti), diopiSuccess);
  sync_ok(e);
  for (int64_t k = 0; k < ROWS * K; k++)
    assert_true(out[k] == x[k / K * LEN + index[k]]);
  diopiError_t (*scatter)(CTX, T, CT, int64_t, CT, CT, const char *) =
      (diopiError_t(*)(CTX, T, CT, int64_t, CT, CT, const char *))ops_env_find(
          e, "diopiScatter");
  const char *reduces[2] = {"", "add"};
  float want[ROWS * LEN];
  for (int r = 0; r < 2; r++) {
    memcpy(want, x, sizeof want);
    for (int64_t k = 0; k < ROWS * K; k++) {
      float *dst = &want[k / K * LEN + index[k]];
      *dst = r ? *dst + src[k] : src[k];
    }
    T tout = ops_env_tensor(e, diopi_dtype_float32, 2, in_shape, (void **)&out);
    assert_int_equal(scatter(e->ctx, tout, tx, 1, ts, ti, reduces[r]),
                     diopiSuccess);
    assert_int_equal(scatter(e->ctx, strided, tx, 1, ts, ti, reduces[r]),
                     diopiSuccess);
    sync_ok(e);
    for (int64_t k = 0; k < ROWS * LEN; k++) {
      assert_true(out[k] == want[k]);
      assert_true(big[k / LEN * 2 * LEN + 2 * (k % LEN)] == want[k]);
    }
    bp_ops_tensor_destroy(tout);
  }
  bp_ops_tensor_destroy(strided);
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ts);
  bp_ops_tensor_destroy(ti);
  bp_ops_tensor_destroy(tg);
  bp_ops_tensor_destroy(tb);
}

/* The remapping copies through their planned runs: pad (constant, reflect),
 * roll, repeat and flip of a float32 tensor whose pool chunks end inside a
 * row, and roll of a transposed input (no runs), against index formulas. */
static void remaps_match_index_formulas_across_chunks(void **state) {
  ops_env_t *e = *state;
  enum { A = 5, B = 13, C = 1003, N = A * B * C };
  int64_t shape[3] = {A, B, C}, padded[3] = {A, B + 2, C + 2};
  int64_t doubled[3] = {A, B, 2 * C};
  float *x, *y;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 3, shape, (void **)&x);
  fill_values(x, N, 51);
  typedef diopiError_t (*pad_t)(CTX, T, CT, diopiSize_t, const char *,
                                const double *);
  typedef diopiError_t (*shifts_t)(CTX, T, CT, diopiSize_t, diopiSize_t);
  typedef diopiError_t (*dims_t)(CTX, T, CT, diopiSize_t);
  pad_t pad = (pad_t)ops_env_find(e, "diopiPad");
  shifts_t roll = (shifts_t)ops_env_find(e, "diopiRoll");
  dims_t repeat = (dims_t)ops_env_find(e, "diopiRepeat");
  dims_t flip = (dims_t)ops_env_find(e, "diopiFlip");
  const int64_t pads[4] = {1, 1, 1, 1}, shift[1] = {3}, last[1] = {-1};
  const int64_t reps[3] = {1, 1, 2};
  const double value = 2.5;
  for (int mode = 0; mode < 2; mode++) { /* constant, reflect */
    T ty = ops_env_tensor(e, diopi_dtype_float32, 3, padded, (void **)&y);
    assert_int_equal(pad(e->ctx, ty, tx, (diopiSize_t){pads, 4},
                         mode ? "reflect" : "constant", &value),
                     diopiSuccess);
    sync_ok(e);
    for (int64_t a = 0; a < A; a++)
      for (int64_t b = 0; b < B + 2; b++)
        for (int64_t c = 0; c < C + 2; c++) {
          int64_t sb = b - 1, sc = c - 1;
          float want;
          if (mode) {
            sb = sb < 0 ? -sb : sb >= B ? 2 * (B - 1) - sb : sb;
            sc = sc < 0 ? -sc : sc >= C ? 2 * (C - 1) - sc : sc;
            want = x[(a * B + sb) * C + sc];
          } else {
            bool inside = sb >= 0 && sb < B && sc >= 0 && sc < C;
            want = inside ? x[(a * B + sb) * C + sc] : 2.5f;
          }
          assert_true(y[(a * (B + 2) + b) * (C + 2) + c] == want);
        }
    bp_ops_tensor_destroy(ty);
  }
  T ty = ops_env_tensor(e, diopi_dtype_float32, 3, shape, (void **)&y);
  assert_int_equal(
      roll(e->ctx, ty, tx, (diopiSize_t){shift, 1}, (diopiSize_t){last, 1}),
      diopiSuccess);
  sync_ok(e);
  for (int64_t k = 0; k < N; k++)
    assert_true(y[k] == x[k - k % C + (k % C + C - 3) % C]);
  assert_int_equal(flip(e->ctx, ty, tx, (diopiSize_t){last, 1}), diopiSuccess);
  sync_ok(e);
  for (int64_t k = 0; k < N; k++)
    assert_true(y[k] == x[k - k % C + (C - 1 - k % C)]);
  int64_t view[3] = {A, C, B}, strides[3] = {B * C, 1, C}; /* transposed */
  T tt;
  assert_int_equal(bp_ops_tensor_wrap(e->device, x, diopi_dtype_float32, 3,
                                      view, strides, &tt),
                   BP_OK);
  T tz = ops_env_tensor(e, diopi_dtype_float32, 3, view, (void **)&y);
  assert_int_equal(
      roll(e->ctx, tz, tt, (diopiSize_t){shift, 1}, (diopiSize_t){last, 1}),
      diopiSuccess);
  sync_ok(e);
  for (int64_t a = 0; a < A; a++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t b = 0; b < B; b++)
        assert_true(y[(a * C + c) * B + b] ==
                    x[(a * B + (b + B - 3) % B) * C + c]);
  bp_ops_tensor_destroy(tz);
  bp_ops_tensor_destroy(tt);
  T tr = ops_env_tensor(e, diopi_dtype_float32, 3, doubled, (void **)&y);
  assert_int_equal(repeat(e->ctx, tr, tx, (diopiSize_t){reps, 3}),
                   diopiSuccess);
  sync_ok(e);
  for (int64_t k = 0; k < 2 * N; k++)
    assert_true(y[k] == x[k / (2 * C) * C + k % C]);
  bp_ops_tensor_destroy(tr);
  bp_ops_tensor_destroy(ty);
  bp_ops_tensor_destroy(tx);
}

/* linspace into float32 (two branch-free halves, chunks across the pool):
 * start + step * i for the first half, end - step * (n - 1 - i) for the
 * second, in double, rounded once. */
static void linspace_halves_match_the_double_formula(void **state) {
  ops_env_t *e = *state;
  enum { N = 100003 };
  int64_t shape[1] = {N};
  float *y;
  T ty = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&y);
  diopiScalar_t start = {.stype = diopi_dtype_float64, .fval = -1.25};
  diopiScalar_t end = {.stype = diopi_dtype_float64, .fval = 3.5};
  diopiError_t (*fn)(CTX, T, const diopiScalar_t *, const diopiScalar_t *,
                     int64_t) =
      (diopiError_t(*)(CTX, T, const diopiScalar_t *, const diopiScalar_t *,
                       int64_t))ops_env_find(e, "diopiLinspace");
  assert_int_equal(fn(e->ctx, ty, &start, &end, N), diopiSuccess);
  sync_ok(e);
  double step = (3.5 - -1.25) / (N - 1);
  for (int64_t i = 0; i < N; i++)
    assert_true(y[i] == (float)(i < N / 2 ? -1.25 + step * (double)i
                                          : 3.5 - step * (double)(N - 1 - i)));
  assert_true(y[0] == -1.25f && y[N - 1] == 3.5f);
  bp_ops_tensor_destroy(ty);
}

/* Reductions of one long float32 run split across the pool: sum of all
 * elements against a double sum, max and min of all with a NaN (wins) and
 * without, against plain loops. */
static void whole_tensor_reductions_split_across_the_pool(void **state) {
  ops_env_t *e = *state;
  enum { N = 3 * 65537 };
  int64_t shape[1] = {N};
  float *x, *out;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&x);
  T to = ops_env_tensor(e, diopi_dtype_float32, 0, NULL, (void **)&out);
  fill_values(x, N, 61);
  x[N - 3] = 1.5f;   /* the max, in the last part */
  x[N / 2] = -1.75f; /* the min */
  double sum = 0;
  for (int64_t k = 0; k < N; k++)
    sum += x[k];
  diopiError_t (*sum_fn)(CTX, T, CT, diopiSize_t) =
      (diopiError_t(*)(CTX, T, CT, diopiSize_t))ops_env_find(e, "diopiSum");
  diopiError_t (*max_fn)(CTX, T, CT) =
      (diopiError_t(*)(CTX, T, CT))ops_env_find(e, "diopiMaxAll");
  diopiError_t (*min_fn)(CTX, T, CT) =
      (diopiError_t(*)(CTX, T, CT))ops_env_find(e, "diopiMinAll");
  assert_int_equal(sum_fn(e->ctx, to, tx, (diopiSize_t){NULL, 0}),
                   diopiSuccess);
  sync_ok(e);
  assert_close(*out, sum, 1e-6);
  assert_int_equal(max_fn(e->ctx, to, tx), diopiSuccess);
  sync_ok(e);
  assert_true(*out == 1.5f);
  assert_int_equal(min_fn(e->ctx, to, tx), diopiSuccess);
  sync_ok(e);
  assert_true(*out == -1.75f);
  x[7] = NAN; /* in the first part */
  assert_int_equal(max_fn(e->ctx, to, tx), diopiSuccess);
  sync_ok(e);
  assert_true(isnan(*out));
  assert_int_equal(min_fn(e->ctx, to, tx), diopiSuccess);
  sync_ok(e);
  assert_true(isnan(*out));
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(to);
}

/* index_select's backward over dim 0 of one block (its columns split
 * across the pool): repeated indices add in order into zeros. */
static void index_select_backward_adds_rows_in_order(void **state) {
  ops_env_t *e = *state;
  enum { ROWS = 41, K = 57, COLS = 257 };
  int64_t grad_shape[2] = {K, COLS}, in_shape[2] = {ROWS, COLS}, idx[1] = {K};
  float *g, *out;
  int64_t *index;
  T tg = ops_env_tensor(e, diopi_dtype_float32, 2, grad_shape, (void **)&g);
  T to = ops_env_tensor(e, diopi_dtype_float32, 2, in_shape, (void **)&out);
  T ti = ops_env_tensor(e, diopi_dtype_int64, 1, idx, (void **)&index);
  fill_values(g, K * COLS, 71);
  for (int64_t k = 0; k < K; k++)
    index[k] = (k * 7) % ROWS;
  float want[ROWS * COLS] = {0};
  for (int64_t k = 0; k < K; k++)
    for (int64_t c = 0; c < COLS; c++)
      want[index[k] * COLS + c] += g[k * COLS + c];
  memset(out, 0xff, sizeof want); /* NaNs: the op must start from zeros */
  diopiError_t (*fn)(CTX, T, CT, diopiSize_t, int64_t, CT) =
      (diopiError_t(*)(CTX, T, CT, diopiSize_t, int64_t, CT))ops_env_find(
          e, "diopiIndexSelectBackward");
  assert_int_equal(fn(e->ctx, to, tg, (diopiSize_t){in_shape, 2}, 0, ti),
                   diopiSuccess);
  sync_ok(e);
  assert_memory_equal(out, want, sizeof want);
  bp_ops_tensor_destroy(tg);
  bp_ops_tensor_destroy(to);
  bp_ops_tensor_destroy(ti);
}

/* Whether a sorts before b (value, then position) as PyTorch's stable sort:
 * NaN above every number, -0 equal to 0. */
static bool sorts_before(float a, int64_t ia, float b, int64_t ib,
                         bool descending) {
  bool an = isnan(a), bn = isnan(b);
  if (an != bn)
    return descending ? an : bn;
  if (!an && a != b)
    return descending ? a > b : a < b;
  return ia < ib;
}

/* sort of float32 lines (the radix path) with ties, -0 and 0, NaNs and
 * infinities, along the last dim and along a strided one, ascending and
 * descending: values and positions of a stable insertion sort. */
static void sort_of_float32_lines_is_stable_with_nans_and_zeros(void **state) {
  ops_env_t *e = *state;
  enum { ROWS = 3, N = 301 };
  int64_t shape[2] = {ROWS, N};
  float *x, *values;
  int64_t *indices;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T tv = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&values);
  T ti = ops_env_tensor(e, diopi_dtype_int64, 2, shape, (void **)&indices);
  fill_values(x, ROWS * N, 81);
  for (int64_t k = 0; k < ROWS * N; k += 7)
    x[k] = (float)(k % 5) - 2.0f; /* ties */
  x[3] = 0.0f; /* before the -0 after it: equal, in position order */
  x[4] = -0.0f;
  x[10] = NAN;
  x[N + 20] = -NAN;
  x[N + 21] = INFINITY;
  x[2 * N + 5] = -INFINITY;
  diopiError_t (*fn)(CTX, T, T, CT, int64_t, bool, const bool *) =
      (diopiError_t(*)(CTX, T, T, CT, int64_t, bool, const bool *))ops_env_find(
          e, "diopiSort");
  for (int dim = 0; dim < 2; dim++)
    for (int descending = 0; descending < 2; descending++) {
      assert_int_equal(fn(e->ctx, tv, ti, tx, dim, descending, NULL),
                       diopiSuccess);
      sync_ok(e);
      int64_t lines = dim ? ROWS : N, len = dim ? N : ROWS;
      int64_t step = dim ? 1 : N, line_step = dim ? N : 1;
      for (int64_t l = 0; l < lines; l++) {
        int64_t want[N];
        for (int64_t i = 0; i < len; i++) { /* insertion sort */
          int64_t j = i;
          for (; j > 0 && sorts_before(x[l * line_step + i * step], i,
                                       x[l * line_step + want[j - 1] * step],
                                       want[j - 1], descending);
               j--)
            want[j] = want[j - 1];
          want[j] = i;
        }
        for (int64_t i = 0; i < len; i++) {
          int64_t at = l * line_step + i * step;
          assert_int_equal(indices[at], want[i]);
          assert_memory_equal(&values[at], &x[l * line_step + want[i] * step],
                              sizeof(float));
        }
      }
    }
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(tv);
  bp_ops_tensor_destroy(ti);
}

/* erf of float32 (the vectorized series and tail) within 3e-7 of libm's
 * over [-6, 6], exact at 0 and +-inf, NaN for NaN; through a strided view
 * (the engine's buffered path) the same values; and gelu's exact mode
 * x / 2 (1 + erf(x / sqrt(2))) within that error carried through, in
 * place the same values. */
static void erf_and_gelu_of_float32_match_libm(void **state) {
  ops_env_t *e = *state;
  enum { N = 1201 };
  int64_t shape[1] = {N + 4}, half[1] = {(N + 4) / 2}, two[1] = {2};
  float *x, *y;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&x);
  T ty = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&y);
  for (int k = 0; k < N; k++)
    x[k] = -6.0f + 12.0f * (float)k / (N - 1);
  const float special[4] = {0.0f, INFINITY, -INFINITY, NAN};
  memcpy(x + N, special, sizeof special);
  diopiError_t (*erf_fn)(CTX, T, CT) =
      (diopiError_t(*)(CTX, T, CT))ops_env_find(e, "diopiErf");
  assert_int_equal(erf_fn(e->ctx, ty, tx), diopiSuccess);
  sync_ok(e);
  for (int k = 0; k < N; k++)
    assert_true(fabs((double)y[k] - erf((double)x[k])) <= 3e-7);
  assert_true(y[N] == 0.0f && y[N + 1] == 1.0f && y[N + 2] == -1.0f);
  assert_true(isnan(y[N + 3]));
  T strided, out_half; /* every other element */
  float *z;
  assert_int_equal(bp_ops_tensor_wrap(e->device, x, diopi_dtype_float32, 1,
                                      half, two, &strided),
                   BP_OK);
  out_half = ops_env_tensor(e, diopi_dtype_float32, 1, half, (void **)&z);
  assert_int_equal(erf_fn(e->ctx, out_half, strided), diopiSuccess);
  sync_ok(e);
  for (int k = 0; k < (N + 4) / 2; k++)
    assert_memory_equal(&z[k], &y[2 * k], sizeof(float));
  diopiError_t (*gelu)(CTX, T, CT, const char *) =
      (diopiError_t(*)(CTX, T, CT, const char *))ops_env_find(e, "diopiGelu");
  assert_int_equal(gelu(e->ctx, ty, tx, "none"), diopiSuccess);
  sync_ok(e);
  for (int k = 0; k < N; k++) {
    double want = 0.5 * x[k] * (1.0 + erf(x[k] * M_SQRT1_2));
    assert_true(fabs(y[k] - want) <=
                1.5e-7 * fabs(x[k]) + 1.2e-7 * fabs(want) + 1e-7);
  }
  float *w; /* in place (the fused loop reads each x before its out) */
  T tw = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&w);
  memcpy(w, x, sizeof(float) * (N + 4));
  assert_int_equal(gelu(e->ctx, tw, tw, "none"), diopiSuccess);
  sync_ok(e);
  assert_memory_equal(w, y, sizeof(float) * (N + 4));
  bp_ops_tensor_destroy(tw);
  bp_ops_tensor_destroy(strided);
  bp_ops_tensor_destroy(out_half);
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ty);
}

/* rms_norm over float32 rows of odd length (the per-ISA row loop and its
 * tail), with a weight: x / sqrt(mean(x^2) + eps) * w and inv_rms against a
 * double loop. */
static void rms_norm_rows_match_a_plain_loop(void **state) {
  ops_env_t *e = *state;
  enum { ROWS = 7, COLS = 37 };
  int64_t shape[2] = {ROWS, COLS}, cols[1] = {COLS}, stats[2] = {ROWS, 1};
  float *x, *w, *y, *inv;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T tw = ops_env_tensor(e, diopi_dtype_float32, 1, cols, (void **)&w);
  T ty = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&y);
  T ti = ops_env_tensor(e, diopi_dtype_float32, 2, stats, (void **)&inv);
  fill_values(x, ROWS * COLS, 91);
  fill_values(w, COLS, 92);
  diopiError_t (*fn)(CTX, T, T, CT, diopiSize_t, CT, CT, double) =
      (diopiError_t(*)(CTX, T, T, CT, diopiSize_t, CT, CT, double))ops_env_find(
          e, "diopiRMSNorm");
  const int64_t normalized[1] = {COLS};
  assert_int_equal(
      fn(e->ctx, ty, ti, tx, (diopiSize_t){normalized, 1}, tw, NULL, 1e-6),
      diopiSuccess);
  sync_ok(e);
  for (int r = 0; r < ROWS; r++) {
    double sq = 0;
    for (int c = 0; c < COLS; c++)
      sq += (double)x[r * COLS + c] * x[r * COLS + c];
    double rstd = 1.0 / sqrt(sq / COLS + 1e-6);
    assert_close(inv[r], rstd, 1e-6);
    for (int c = 0; c < COLS; c++)
      assert_true(fabs(y[r * COLS + c] - x[r * COLS + c] * rstd * w[c]) <=
                  1e-6 * (1 + fabs(x[r * COLS + c] * rstd)));
  }
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(tw);
  bp_ops_tensor_destroy(ty);
  bp_ops_tensor_destroy(ti);
}

/* add (alpha 2.5), sub, mul and floor-div of float32 rows by a value per row
 * ([R, C] by [R, 1]: the splat loops), on a small shape (vector tails) and on
 * one the pool cuts mid-row, and with the per-row value first (the buffered
 * loops): every element as one float operation of a plain loop gives it (a
 * floor-div as the floor of the quotient, taken in double). */
static void arith_by_a_value_per_row_matches_a_plain_loop(void **state) {
  ops_env_t *e = *state;
  typedef diopiError_t (*alpha_fn)(CTX, T, CT, CT, const diopiScalar_t *);
  typedef diopiError_t (*div_fn)(CTX, T, CT, CT, diopiRoundMode_t);
  alpha_fn add = (alpha_fn)ops_env_find(e, "diopiAdd");
  alpha_fn sub = (alpha_fn)ops_env_find(e, "diopiSub");
  diopiError_t (*mul)(CTX, T, CT, CT) =
      (diopiError_t(*)(CTX, T, CT, CT))ops_env_find(e, "diopiMul");
  div_fn div = (div_fn)ops_env_find(e, "diopiDiv");
  const int64_t sizes[2][2] = {{5, 37}, {3, 20011}};
  for (int s = 0; s < 2; s++) {
    int64_t rows = sizes[s][0], cols = sizes[s][1];
    int64_t shape[2] = {rows, cols}, per_row[2] = {rows, 1};
    float *x, *v, *y;
    T tx = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&x);
    T tv = ops_env_tensor(e, diopi_dtype_float32, 2, per_row, (void **)&v);
    T ty = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&y);
    fill_values(x, rows * cols, 101);
    for (int64_t r = 0; r < rows; r++)
      v[r] = 0.75f + 0.5f * (float)r; /* no zero divisor */
    diopiScalar_t alpha = {.stype = diopi_dtype_float64, .fval = 2.5};
    for (int op = 0; op < 5; op++) {
      diopiError_t err =
          op == 0   ? add(e->ctx, ty, tx, tv, &alpha)
          : op == 1 ? sub(e->ctx, ty, tx, tv, NULL)
          : op == 2 ? mul(e->ctx, ty, tx, tv)
          : op == 3 ? div(e->ctx, ty, tx, tv, RoundModeFloor)
                    : add(e->ctx, ty, tv, tx, &alpha); /* value first */
      assert_int_equal(err, diopiSuccess);
      sync_ok(e);
      for (int64_t k = 0; k < rows * cols; k++) {
        float a = x[k], b = v[k / cols];
        float want = op == 0   ? a + 2.5f * b
                     : op == 1 ? a - b
                     : op == 2 ? a * b
                     : op == 3 ? (float)floor((double)a / (double)b)
                               : b + 2.5f * a;
        if (y[k] != want) {
          print_error("op %d, %lld x %lld, element %lld: got %.9g, want %.9g\n",
                      op, (long long)rows, (long long)cols, (long long)k,
                      (double)y[k], (double)want);
          fail();
        }
      }
    }
    bp_ops_tensor_destroy(tx);
    bp_ops_tensor_destroy(tv);
    bp_ops_tensor_destroy(ty);
  }
}

/* Floor division as Python and PyTorch define it for floats, the floor of
 * the exact quotient, in float32 (tensor and per-row value forms) and
 * float64: 1 // 0.1 is 9 (1 / 0.1f rounds to 10), 0.3 // 0.1 is 2 in float64
 * (0.29999... / 0.10000...) and 3 in float32 (0.3f / 0.1f is 3.00000007), +-inf
 * // 3 is NaN, -5 // inf is -1, 0 // -3 is -0, 7 // 0 is inf, -7 // -2 is 3.
 * Worked by hand. */
static void floor_division_takes_the_exact_quotient(void **state) {
  ops_env_t *e = *state;
  typedef diopiError_t (*div_fn)(CTX, T, CT, CT, diopiRoundMode_t);
  div_fn div = (div_fn)ops_env_find(e, "diopiDiv");
  enum { N = 7 };
  static const double as[N] = {1.0, 0.3, INFINITY, -INFINITY, -5.0, 0.0, 7.0};
  static const double bs[N] = {0.1, 0.1, 3.0, 3.0, INFINITY, -3.0, 0.0};
  double want[N] = {9.0, 2.0, NAN, NAN, -1.0, -0.0, INFINITY};
  for (int dtype = 0; dtype < 2; dtype++) {
    bool f32 = dtype == 0;
    diopiDtype_t dt = f32 ? diopi_dtype_float32 : diopi_dtype_float64;
    want[1] = f32 ? 3.0 : 2.0;
    int64_t n = N;
    void *x, *y, *o;
    T tx = ops_env_tensor(e, dt, 1, &n, &x),
      ty = ops_env_tensor(e, dt, 1, &n, &y),
      to = ops_env_tensor(e, dt, 1, &n, &o);
    for (int i = 0; i < N; i++) {
      if (f32) {
        ((float *)x)[i] = (float)as[i];
        ((float *)y)[i] = (float)bs[i];
      } else {
        ((double *)x)[i] = as[i];
        ((double *)y)[i] = bs[i];
      }
    }
    assert_int_equal(div(e->ctx, to, tx, ty, RoundModeFloor), diopiSuccess);
    sync_ok(e);
    for (int i = 0; i < N; i++) {
      double got = f32 ? ((float *)o)[i] : ((double *)o)[i];
      bool ok = isnan(want[i])
                    ? isnan(got)
                    : got == want[i] && signbit(got) == signbit(want[i]);
      if (!ok)
        fail_msg("%s %g // %g = %g, expected %g", f32 ? "float32" : "float64",
                 as[i], bs[i], got, want[i]);
    }
    bp_ops_tensor_destroy(tx);
    bp_ops_tensor_destroy(ty);
    bp_ops_tensor_destroy(to);
  }
  /* 1 // 0.1 through the per-row loop: [1, 1] by [[0.1]] */
  int64_t row[2] = {1, 3}, col[2] = {1, 1};
  float *x, *v, *y;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 2, row, (void **)&x);
  T tv = ops_env_tensor(e, diopi_dtype_float32, 2, col, (void **)&v);
  T ty = ops_env_tensor(e, diopi_dtype_float32, 2, row, (void **)&y);
  x[0] = 1.0f, x[1] = 0.3f, x[2] = -1.0f;
  v[0] = 0.1f;
  assert_int_equal(div(e->ctx, ty, tx, tv, RoundModeFloor), diopiSuccess);
  sync_ok(e);
  assert_true(y[0] == 9.0f);
  assert_true(y[1] == 3.0f);
  assert_true(y[2] == -10.0f); /* -1 / 0.1f is -9.99999985 */
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(tv);
  bp_ops_tensor_destroy(ty);
}

/* logsumexp over rows as PyTorch gives it: NaN wherever a row holds a NaN,
 * even beside +inf; +-inf where the largest element is infinite and no NaN
 * is there; log(e + e^2) for [1, 2]. float32 rows (the fast loop) and
 * float64 (the generic fold). */
static void logsumexp_of_rows_with_nan_and_infinities(void **state) {
  ops_env_t *e = *state;
  diopiError_t (*lse)(CTX, T, CT, diopiSize_t) =
      (diopiError_t(*)(CTX, T, CT, diopiSize_t))ops_env_find(e,
                                                             "diopiLogsumexp");
  enum { ROWS = 5, COLS = 3 };
  static const double rows[ROWS][COLS] = {{NAN, INFINITY, 1.0},
                                          {INFINITY, 1.0, 2.0},
                                          {-INFINITY, NAN, -INFINITY},
                                          {-INFINITY, -INFINITY, -INFINITY},
                                          {1.0, 2.0, -INFINITY}};
  const double want[ROWS] = {NAN, INFINITY, NAN, -INFINITY,
                             log(exp(1.0) + exp(2.0))};
  for (int dtype = 0; dtype < 2; dtype++) {
    bool f32 = dtype == 0;
    diopiDtype_t dt = f32 ? diopi_dtype_float32 : diopi_dtype_float64;
    int64_t shape[2] = {ROWS, COLS}, out_shape[1] = {ROWS}, dim = 1;
    void *x, *y;
    T tx = ops_env_tensor(e, dt, 2, shape, &x);
    T ty = ops_env_tensor(e, dt, 1, out_shape, &y);
    for (int r = 0; r < ROWS; r++)
      for (int c = 0; c < COLS; c++) {
        if (f32)
          ((float *)x)[r * COLS + c] = (float)rows[r][c];
        else
          ((double *)x)[r * COLS + c] = rows[r][c];
      }
    assert_int_equal(lse(e->ctx, ty, tx, (diopiSize_t){&dim, 1}), diopiSuccess);
    sync_ok(e);
    for (int r = 0; r < ROWS; r++) {
      double got = f32 ? ((float *)y)[r] : ((double *)y)[r];
      bool ok = isnan(want[r])   ? isnan(got)
                : isinf(want[r]) ? got == want[r]
                                 : fabs(got - want[r]) < 1e-6;
      if (!ok)
        fail_msg("%s row %d: logsumexp %g, expected %g",
                 f32 ? "float32" : "float64", r, got, want[r]);
    }
    bp_ops_tensor_destroy(tx);
    bp_ops_tensor_destroy(ty);
  }
}

/* The draw of dropout's element i (ref_dropout.c's contract): splitmix64 of
 * seed and offset + i, its top 53 bits as a double in [0, 1). */
static double dropout_draw(uint64_t seed, uint64_t counter) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ull + counter + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* dropout of a contiguous float32 tensor the pool cuts into chunks, with a
 * bool mask (the float32 loop) and with a uint8 one (the generic loop), for
 * p = 0.3, 0 and 1 and not training: element i is kept, scaled by 1 / (1 - p)
 * and rounded once, exactly when its draw is at least p. */
static void
dropout_of_float32_keeps_exactly_the_draws_at_least_p(void **state) {
  ops_env_t *e = *state;
  enum { N = 3 * 20011 };
  int64_t shape[1] = {N};
  float *x, *y, *y8;
  bool *mask;
  uint8_t *mask8;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&x);
  T ty = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&y);
  T ty8 = ops_env_tensor(e, diopi_dtype_float32, 1, shape, (void **)&y8);
  T tm = ops_env_tensor(e, diopi_dtype_bool, 1, shape, (void **)&mask);
  T tm8 = ops_env_tensor(e, diopi_dtype_uint8, 1, shape, (void **)&mask8);
  fill_values(x, N, 111);
  typedef diopiError_t (*dropout_fn)(CTX, T, T, CT, double, bool,
                                     diopiGeneratorHandle_t);
  dropout_fn dropout = (dropout_fn)ops_env_find(e, "diopiDropout");
  const double ps[4] = {0.3, 0.0, 1.0, 0.3};
  for (int c = 0; c < 4; c++) {
    bool train = c < 3;
    diopiGeneratorHandle_t g;
    assert_int_equal(bp_ops_generator_create(42, &g), BP_OK);
    assert_int_equal(diopiGeneratorSetSeedAndOffset(g, 42, 1000), diopiSuccess);
    assert_int_equal(dropout(e->ctx, ty, tm, tx, ps[c], train, g),
                     diopiSuccess);
    assert_int_equal(diopiGeneratorSetSeedAndOffset(g, 42, 1000), diopiSuccess);
    assert_int_equal(dropout(e->ctx, ty8, tm8, tx, ps[c], train, g),
                     diopiSuccess);
    sync_ok(e);
    double scale = !train ? 1.0 : ps[c] < 1 ? 1.0 / (1.0 - ps[c]) : 0.0;
    int64_t kept = 0;
    for (int64_t i = 0; i < N; i++) {
      bool keep = !train || dropout_draw(42, 1000 + (uint64_t)i) >= ps[c];
      float want = keep ? (float)((double)x[i] * scale) : 0.0f;
      if (y[i] != want || mask[i] != keep || y8[i] != want ||
          mask8[i] != keep) {
        print_error("case %d, element %lld: got %.9g (mask %d) and %.9g "
                    "(mask %d), want %.9g (mask %d)\n",
                    c, (long long)i, (double)y[i], (int)mask[i], (double)y8[i],
                    (int)mask8[i], (double)want, (int)keep);
        fail();
      }
      kept += keep;
    }
    if (c == 0) /* about 70 % kept */
      assert_true(kept > N * 6 / 10 && kept < N * 8 / 10);
    bp_ops_generator_destroy(g);
  }
  T made[5] = {tx, ty, ty8, tm, tm8};
  for (int k = 0; k < 5; k++)
    bp_ops_tensor_destroy(made[k]);
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
      cmocka_unit_test_setup_teardown(clip_grad_norm_matches_a_plain_norm,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(mse_loss_sums_match_a_plain_sum,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(masked_select_keeps_order_across_chunks,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(nonzero_lists_coordinates_in_order,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(nll_loss_matches_a_plain_loop,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          random_fast_paths_draw_what_the_loops_draw, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          prod_of_float32_rows_matches_a_plain_product, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          gather_and_scatter_along_the_last_dim_match_plain_loops,
          ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(remaps_match_index_formulas_across_chunks,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(linspace_halves_match_the_double_formula,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          whole_tensor_reductions_split_across_the_pool, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(index_select_backward_adds_rows_in_order,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          sort_of_float32_lines_is_stable_with_nans_and_zeros, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(erf_and_gelu_of_float32_match_libm,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(rms_norm_rows_match_a_plain_loop,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          arith_by_a_value_per_row_matches_a_plain_loop, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(floor_division_takes_the_exact_quotient,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(logsumexp_of_rows_with_nan_and_infinities,
                                      ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          dropout_of_float32_keeps_exactly_the_draws_at_least_p, ops_env_setup,
          ops_env_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
