/* The indexing ops' fast paths give what plain loops written here give:
 * float32 topk of a few from long lines (screened blocks of sort keys) on
 * strided lines, with ties, signed zeros and NaNs, and on lines of a length
 * that leaves a partial block; roll of contiguous rows as one shifted copy
 * (the last dim rolled, the others by whole turns, and the flattened
 * roll); scatter along the last dim (loads ahead of stores) with repeated
 * indices and indices outside the row, which write nothing; and the range
 * check of long index tensors, split across the pool, still naming the
 * first bad value wherever it lies. */
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
#include "ops_env.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;
typedef diopiContextHandle_t CTX;

static void sync_ok(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* x[k] in [-1, 1) from a fixed sequence. */
static void fill_values(float *x, int64_t n, uint32_t seed) {
  for (int64_t k = 0; k < n; k++) {
    seed = seed * 1664525u + 1013904223u;
    x[k] = (float)(seed >> 8) * 0x1.0p-23f - 1.0f;
  }
}

/* Whether value a at position i comes before b at position j in topk's
 * order: NaN first when largest (last otherwise), -0 equal to +0, ties by
 * position. */
static bool before(float a, int64_t i, float b, int64_t j, bool largest) {
  if (isnan(a) != isnan(b))
    return largest ? isnan(a) : isnan(b);
  if (!isnan(a) && a != b)
    return largest ? a > b : a < b;
  return i < j;
}

/* Input (N, 3) with topk along dim 0: each of the 3 lines strided by 3. */
static void
topk_of_strided_float32_lines_matches_a_plain_selection(void **state) {
  ops_env_t *e = *state;
  enum { N = 1003, LINES = 3, K = 7 }; /* 1003: a partial last block */
  int64_t shape[2] = {N, LINES}, top[2] = {K, LINES};
  float *x, *values;
  int64_t *index;
  T in = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T out = ops_env_tensor(e, diopi_dtype_float32, 2, top, (void **)&values);
  T at = ops_env_tensor(e, diopi_dtype_int64, 2, top, (void **)&index);
  fill_values(x, N * LINES, 7);
  for (int64_t k = 0; k < N * LINES; k++) /* many ties: 41 values a line */
    x[k] = floorf(x[k] * 20.0f) / 20.0f;
  x[5 * LINES] = -0.0f; /* line 0: -0 and +0 tie */
  x[6 * LINES] = 0.0f;
  x[900 * LINES + 1] = NAN; /* line 1: NaNs in the last block */
  x[1002 * LINES + 1] = NAN;
  x[2 * LINES + 2] = INFINITY; /* line 2: both infinities */
  x[700 * LINES + 2] = -INFINITY;
  diopiError_t (*fn)(CTX, T, T, CT, int64_t, int64_t, bool, bool) =
      (diopiError_t(*)(CTX, T, T, CT, int64_t, int64_t, bool,
                       bool))ops_env_find(e, "diopiTopk");
  for (int largest = 0; largest < 2; largest++) {
    assert_int_equal(fn(e->ctx, out, at, in, K, 0, largest, true),
                     diopiSuccess);
    sync_ok(e);
    for (int line = 0; line < LINES; line++) {
      bool taken[N] = {false};
      for (int r = 0; r < K; r++) { /* a plain selection: the next best */
        int64_t best = -1;
        for (int64_t i = 0; i < N; i++)
          if (!taken[i] &&
              (best < 0 || before(x[i * LINES + line], i,
                                  x[best * LINES + line], best, largest)))
            best = i;
        taken[best] = true;
        assert_int_equal(index[r * LINES + line], best);
        float want = x[best * LINES + line], got = values[r * LINES + line];
        assert_true(isnan(want) ? isnan(got) : got == want);
      }
    }
  }
  bp_ops_tensor_destroy(in);
  bp_ops_tensor_destroy(out);
  bp_ops_tensor_destroy(at);
}

/* (A, B, C) rolled along C by -40 and along B by a whole turn, then the
 * flattened roll: enough rows for the pool to split them. */
static void roll_of_contiguous_rows_matches_the_index_formula(void **state) {
  ops_env_t *e = *state;
  enum { A = 4, B = 500, C = 37, N = A * B * C };
  int64_t shape[3] = {A, B, C};
  float *x, *y;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 3, shape, (void **)&x);
  T ty = ops_env_tensor(e, diopi_dtype_float32, 3, shape, (void **)&y);
  fill_values(x, N, 11);
  diopiError_t (*roll)(CTX, T, CT, diopiSize_t, diopiSize_t) = (diopiError_t(*)(
      CTX, T, CT, diopiSize_t, diopiSize_t))ops_env_find(e, "diopiRoll");
  const int64_t shifts[2] = {-40, B}, dims[2] = {2, 1};
  assert_int_equal(
      roll(e->ctx, ty, tx, (diopiSize_t){shifts, 2}, (diopiSize_t){dims, 2}),
      diopiSuccess);
  sync_ok(e);
  for (int64_t row = 0; row < A * B; row++)
    for (int64_t c = 0; c < C; c++) /* out[c] = in[(c + 40) mod C] */
      assert_true(y[row * C + c] == x[row * C + (c + 40) % C]);
  const int64_t flat_shift[1] = {N + 5};
  assert_int_equal(roll(e->ctx, ty, tx, (diopiSize_t){flat_shift, 1},
                        (diopiSize_t){NULL, 0}),
                   diopiSuccess);
  sync_ok(e);
  for (int64_t i = 0; i < N; i++)
    assert_true(y[i] == x[(i + N - 5) % N]);
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ty);
}

/* scatter (replace, add, multiply) along the last dim of 2 rows of 10 from
 * 2 x 7 sources (a tail after the groups of four): repeated indices apply
 * in order, -1 and 10 write nothing. */
static void
scatter_along_the_last_dim_skips_indices_outside_the_row(void **state) {
  ops_env_t *e = *state;
  int64_t in_shape[2] = {2, 10}, k_shape[2] = {2, 7};
  float *x, *src, *out;
  int64_t *index;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 2, in_shape, (void **)&x);
  T ts = ops_env_tensor(e, diopi_dtype_float32, 2, k_shape, (void **)&src);
  T ti = ops_env_tensor(e, diopi_dtype_int64, 2, k_shape, (void **)&index);
  T to = ops_env_tensor(e, diopi_dtype_float32, 2, in_shape, (void **)&out);
  for (int k = 0; k < 20; k++)
    x[k] = 2.0f;
  const int64_t idx[14] = {3,  -1, 3,  9,  10, 0,  3, /* row 0 */
                           10, 10, 10, 10, -1, -1, 4};
  const float values[14] = {5,   100, 7,   1,   100, 4,   3, /* */
                            100, 100, 100, 100, 100, 100, 6};
  memcpy(index, idx, sizeof idx);
  memcpy(src, values, sizeof values);
  /* row 0: column 3 gets 5, 7, 3 in turn, 9 gets 1, 0 gets 4; row 1:
   * only column 4 (6) */
  const float want[3][20] = {
      {4, 2, 2, 3, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 6, 2, 2, 2, 2, 2},
      {6, 2, 2, 17, 2, 2, 2, 2, 2, 3, 2, 2, 2, 2, 8, 2, 2, 2, 2, 2},
      {8, 2, 2, 210, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 12, 2, 2, 2, 2, 2}};
  const char *reduces[3] = {"", "add", "multiply"};
  diopiError_t (*scatter)(CTX, T, CT, int64_t, CT, CT, const char *) =
      (diopiError_t(*)(CTX, T, CT, int64_t, CT, CT, const char *))ops_env_find(
          e, "diopiScatter");
  for (int r = 0; r < 3; r++) {
    assert_int_equal(scatter(e->ctx, to, tx, -1, ts, ti, reduces[r]),
                     diopiSuccess);
    sync_ok(e);
    for (int k = 0; k < 20; k++)
      assert_true(out[k] == want[r][k]);
  }
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ts);
  bp_ops_tensor_destroy(ti);
  bp_ops_tensor_destroy(to);
}

/* gather by an index of 3 x 100000 (the pool scans it in pieces) with one
 * value out of range: the stream reports that value and its element, and
 * the work is skipped (out keeps what it held). */
static void gather_names_a_bad_value_deep_in_a_long_index(void **state) {
  ops_env_t *e = *state;
  enum { ROWS = 3, LEN = 100000 };
  int64_t shape[2] = {ROWS, LEN};
  float *x, *out;
  int64_t *index;
  T tx = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&x);
  T ti = ops_env_tensor(e, diopi_dtype_int64, 2, shape, (void **)&index);
  T to = ops_env_tensor(e, diopi_dtype_float32, 2, shape, (void **)&out);
  for (int64_t k = 0; k < ROWS * LEN; k++) {
    x[k] = 1.0f;
    index[k] = (k * 7) % LEN;
    out[k] = -3.0f;
  }
  diopiError_t (*gather)(CTX, T, CT, int64_t, CT) =
      (diopiError_t(*)(CTX, T, CT, int64_t, CT))ops_env_find(e, "diopiGather");
  const int64_t bad[2] = {LEN, -2};
  const char *messages[2] = {
      "diopiGather: index: value 100000 at element 250001 is out of range",
      "diopiGather: index: value -2 at element 250001 is out of range"};
  for (int b = 0; b < 2; b++) {
    index[250001] = bad[b];
    assert_int_equal(gather(e->ctx, to, tx, 1, ti), diopiSuccess);
    assert_int_equal(bp_stream_synchronize(e->stream), BP_ERR_INVALID_ARGUMENT);
    if (!strstr(bp_last_error(), messages[b]))
      fail_msg("message \"%s\" lacks \"%s\"", bp_last_error(), messages[b]);
    assert_int_equal(bp_stream_reset(e->stream), BP_OK);
    for (int64_t k = 0; k < ROWS * LEN; k += 997)
      assert_true(out[k] == -3.0f);
  }
  index[250001] = 3;
  assert_int_equal(gather(e->ctx, to, tx, 1, ti), diopiSuccess);
  sync_ok(e);
  for (int64_t k = 0; k < ROWS * LEN; k += 997)
    assert_true(out[k] == 1.0f);
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ti);
  bp_ops_tensor_destroy(to);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(
          topk_of_strided_float32_lines_matches_a_plain_selection,
          ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          roll_of_contiguous_rows_matches_the_index_formula, ops_env_setup,
          ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          scatter_along_the_last_dim_skips_indices_outside_the_row,
          ops_env_setup, ops_env_teardown),
      cmocka_unit_test_setup_teardown(
          gather_names_a_bad_value_deep_in_a_long_index, ops_env_setup,
          ops_env_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
