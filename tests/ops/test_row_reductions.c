/* Reductions over float32 rows long enough for every part of their vector
 * bodies (rows of 2125: four quarters side by side, a tail after them, and
 * runs of 64 searched for an index), against values written here or plain
 * loops: sum and prod against double loops, max and min with their indices
 * (a NaN wins at its first position, ties keep the first position, a zero's
 * sign is the chosen element's), amax, amin and argmax. CTest runs this
 * program under each BACKPLANE_OPS_ISA cap (ops.row_reductions_avx2,
 * ops.row_reductions_sse2), so every build of the bodies answers alike. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/diopi/functions.h"
#include "backplane/diopi/functions_backplane.h"
#include "backplane/ops.h"
#include "ops_env.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;

enum { ROWS = 5, COLS = 2125 }; /* quarters of 531 from 0, 531, 1062, 1593 */

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* x[k] = lo + (hi - lo) u, u in [0, 1) from a fixed sequence. */
static void fill_between(float *x, int64_t n, float lo, float hi) {
  uint32_t seed = 2125u;
  for (int64_t k = 0; k < n; k++) {
    seed = seed * 1664525u + 1013904223u;
    x[k] = lo + (hi - lo) * ((float)(seed >> 8) * 0x1.0p-24f);
  }
}

static void assert_close(double got, double want, double rel) {
  if (!(fabs(got - want) <= rel * fabs(want))) {
    print_error("got %.17g, want %.17g\n", got, want);
    fail();
  }
}

static void sum_of_long_rows_matches_a_double_sum(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int64_t shape[2] = {ROWS, COLS}, rows[1] = {ROWS}, last = -1;
  float *x, *out, *all;
  T tx =
      ops_made_tensor(&m, diopi_dtype_float32, 2, shape, NULL, 0, (void **)&x);
  T to =
      ops_made_tensor(&m, diopi_dtype_float32, 1, rows, NULL, 0, (void **)&out);
  T tall =
      ops_made_tensor(&m, diopi_dtype_float32, 0, NULL, NULL, 0, (void **)&all);
  fill_between(x, ROWS * COLS, -1.0f, 1.0f);
  for (int64_t k = 0; k < COLS; k++) /* row 1: large values, long sums */
    x[COLS + k] += 1000.0f;
  x[2 * COLS + COLS - 1] = 5e4f; /* row 2: its tail element dominates */
  __typeof__(&diopiSum) sum = ops_env_find(e, "diopiSum");
  assert_int_equal(sum(e->ctx, to, tx, (diopiSize_t){&last, 1}), diopiSuccess);
  assert_int_equal(sum(e->ctx, tall, tx, (diopiSize_t){NULL, 0}), diopiSuccess);
  synchronize(e);
  double total = 0;
  for (int r = 0; r < ROWS; r++) {
    double want = 0;
    for (int64_t k = 0; k < COLS; k++)
      want += x[r * COLS + k];
    total += want;
    assert_close(out[r], want, 1e-6);
  }
  assert_close(*all, total, 1e-6);
  ops_made_destroy(&m);
}

/* Rows of values in [-1, 1) with, per row, what max and min must find. */
static void fill_extremes(float *x) {
  fill_between(x, ROWS * COLS, -1.0f, 1.0f);
  float *row = x;
  row[1600] = 2.0f; /* row 0: the max twice, the first in quarter 1 */
  row[700] = 2.0f;
  row[COLS - 1] = -2.0f; /* its min: the tail alone */
  row = x + COLS;        /* row 1: two NaNs; the first wins */
  row[1700] = NAN;
  row[1100] = NAN;
  row = x + 2 * COLS; /* row 2: a NaN in the tail alone */
  row[COLS - 1] = NAN;
  row = x + 3 * COLS; /* row 3: all -inf */
  for (int64_t k = 0; k < COLS; k++)
    row[k] = -INFINITY;
  row = x + 4 * COLS; /* row 4: -0 before +0, the max of negative values */
  for (int64_t k = 0; k < COLS; k++)
    row[k] = -1.0f - (float)(k % 5);
  row[900] = -0.0f;
  row[1500] = 0.0f;
}

static void
max_and_min_of_long_rows_take_first_nan_and_first_tie(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int64_t shape[2] = {ROWS, COLS}, rows[1] = {ROWS}, last = -1;
  float *x, *value, *amax, *amin;
  int64_t *index, *argmax;
  T tx =
      ops_made_tensor(&m, diopi_dtype_float32, 2, shape, NULL, 0, (void **)&x);
  T tv = ops_made_tensor(&m, diopi_dtype_float32, 1, rows, NULL, 0,
                         (void **)&value);
  T ti =
      ops_made_tensor(&m, diopi_dtype_int64, 1, rows, NULL, 0, (void **)&index);
  T tamax = ops_made_tensor(&m, diopi_dtype_float32, 1, rows, NULL, 0,
                            (void **)&amax);
  T tamin = ops_made_tensor(&m, diopi_dtype_float32, 1, rows, NULL, 0,
                            (void **)&amin);
  T targ = ops_made_tensor(&m, diopi_dtype_int64, 1, rows, NULL, 0,
                           (void **)&argmax);
  fill_extremes(x);
  __typeof__(&diopiMax) max = ops_env_find(e, "diopiMax");
  __typeof__(&diopiMin) min = ops_env_find(e, "diopiMin");
  __typeof__(&diopiAmax) amax_fn = ops_env_find(e, "diopiAmax");
  __typeof__(&diopiAmin) amin_fn = ops_env_find(e, "diopiAmin");
  __typeof__(&diopiArgmax) argmax_fn = ops_env_find(e, "diopiArgmax");
  assert_int_equal(amax_fn(e->ctx, tamax, tx, (diopiSize_t){&last, 1}, false),
                   diopiSuccess);
  assert_int_equal(amin_fn(e->ctx, tamin, tx, (diopiSize_t){&last, 1}, false),
                   diopiSuccess);
  assert_int_equal(argmax_fn(e->ctx, targ, tx, &last, false), diopiSuccess);
  assert_int_equal(max(e->ctx, tv, ti, tx, -1), diopiSuccess);
  synchronize(e);
  const int64_t max_at[ROWS] = {700, 1100, COLS - 1, 0, 900};
  for (int r = 0; r < ROWS; r++) {
    assert_int_equal(index[r], max_at[r]);
    assert_int_equal(argmax[r], max_at[r]);
    assert_memory_equal(&value[r], &x[r * COLS + max_at[r]], sizeof(float));
  }
  assert_true(amax[0] == 2.0f && isnan(amax[1]) && isnan(amax[2]));
  assert_true(amax[3] == -INFINITY && amax[4] == 0.0f);
  assert_int_equal(min(e->ctx, tv, ti, tx, -1), diopiSuccess);
  synchronize(e);
  const int64_t min_at[ROWS] = {COLS - 1, 1100, COLS - 1, 0, 4};
  for (int r = 0; r < ROWS; r++) {
    assert_int_equal(index[r], min_at[r]);
    assert_memory_equal(&value[r], &x[r * COLS + min_at[r]], sizeof(float));
  }
  assert_true(amin[0] == -2.0f && isnan(amin[1]) && isnan(amin[2]));
  assert_true(amin[3] == -INFINITY && amin[4] == -5.0f);
  ops_made_destroy(&m);
}

static void prod_of_long_rows_matches_a_double_product(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int64_t shape[2] = {ROWS, COLS}, rows[1] = {ROWS}, last = -1;
  float *x, *out;
  T tx =
      ops_made_tensor(&m, diopi_dtype_float32, 2, shape, NULL, 0, (void **)&x);
  T to =
      ops_made_tensor(&m, diopi_dtype_float32, 1, rows, NULL, 0, (void **)&out);
  fill_between(x, ROWS * COLS, 0.99f, 1.01f);
  x[1 * COLS + 3] = -1.5f;      /* row 1: negative */
  x[2 * COLS + 1700] = 0.0f;    /* row 2: a zero */
  x[3 * COLS + COLS - 1] = NAN; /* row 3: a NaN in the tail */
  x[4 * COLS + 600] = INFINITY; /* row 4: inf */
  x[4 * COLS + 1200] = -1e-30f; /* ... times a tiny negative */
  __typeof__(&diopiProd) prod = ops_env_find(e, "diopiProd");
  assert_int_equal(prod(e->ctx, to, tx, &last), diopiSuccess);
  synchronize(e);
  for (int r = 0; r < 2; r++) {
    double want = 1;
    for (int64_t k = 0; k < COLS; k++)
      want *= x[r * COLS + k];
    assert_close(out[r], want, 2e-5);
  }
  assert_true(out[2] == 0.0f && isnan(out[3]) && out[4] == -INFINITY);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sum_of_long_rows_matches_a_double_sum),
      cmocka_unit_test(max_and_min_of_long_rows_take_first_nan_and_first_tie),
      cmocka_unit_test(prod_of_long_rows_matches_a_double_product),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
