/* Reductions over float32 rows long enough for every part of their vector
 * bodies (rows of 2125: four quarters side by side, a tail after them, and
 * runs of 64 searched for an index), against values written here or plain
 * loops: sum and prod against double loops, max and min with their indices
 * (a NaN wins at its first position, ties keep the first position, a zero's
 * sign is the chosen element's), amax, amin and argmax; vector_norm of
 * order +-inf; strided views whose rows are still unit-stride runs (kept
 * dims of one stride or not, strided outs). CTest runs this
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

/* The largest (or smallest) |x| of a row by a plain loop; NaN if any. */
static float plain_abs_extreme(const float *x, int64_t n, int sign) {
  float best = sign > 0 ? 0.0f : INFINITY;
  for (int64_t k = 0; k < n; k++) {
    if (isnan(x[k]))
      return NAN;
    float v = fabsf(x[k]);
    best = sign > 0 ? fmaxf(best, v) : fminf(best, v);
  }
  return best;
}

/* vector_norm of order +-inf over long rows: the extreme |x| in each lane
 * of the vector body (rows 0-2: at 1616, 2100 and 1055, the third, third
 * and fourth of four 8-element vectors of a 32-element step), a NaN there
 * (row 1) or in the tail (row 2) winning, infinities (row 3), signed zeros
 * (row 4); amax of the same rows. */
static void inf_norms_of_long_rows_take_magnitudes_and_nans(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  const int64_t shape[2] = {ROWS, COLS}, rows[1] = {ROWS}, last = -1;
  float *x, *hi, *lo, *amax;
  T tx =
      ops_made_tensor(&m, diopi_dtype_float32, 2, shape, NULL, 0, (void **)&x);
  T thi =
      ops_made_tensor(&m, diopi_dtype_float32, 1, rows, NULL, 0, (void **)&hi);
  T tlo =
      ops_made_tensor(&m, diopi_dtype_float32, 1, rows, NULL, 0, (void **)&lo);
  T tamax = ops_made_tensor(&m, diopi_dtype_float32, 1, rows, NULL, 0,
                            (void **)&amax);
  fill_between(x, ROWS * COLS, 0.5f, 1.0f);
  for (int64_t k = 0; k < ROWS * COLS; k += 3)
    x[k] = -x[k];
  x[1616] = -3.0f;             /* row 0: the largest magnitude, negative */
  x[2100] = 1e-3f;             /* ... the smallest */
  x[COLS + 1055] = NAN;        /* row 1: a NaN in a fourth vector */
  x[2 * COLS + 2120] = NAN;    /* row 2: a NaN in the tail */
  x[3 * COLS + 7] = -INFINITY; /* row 3: infinities */
  x[3 * COLS + 2000] = INFINITY;
  x[4 * COLS + 40] = -0.0f; /* row 4: a zero of each sign */
  x[4 * COLS + 2118] = 0.0f;
  __typeof__(&diopiLinalgVecNorm) norm = ops_env_find(e, "diopiLinalgVecNorm");
  __typeof__(&diopiAmax) amax_fn = ops_env_find(e, "diopiAmax");
  diopiScalar_t up = {.stype = diopi_dtype_float64, .fval = INFINITY};
  diopiScalar_t down = {.stype = diopi_dtype_float64, .fval = -INFINITY};
  assert_int_equal(norm(e->ctx, thi, tx, &up, (diopiSize_t){&last, 1}, false),
                   diopiSuccess);
  assert_int_equal(norm(e->ctx, tlo, tx, &down, (diopiSize_t){&last, 1}, false),
                   diopiSuccess);
  assert_int_equal(amax_fn(e->ctx, tamax, tx, (diopiSize_t){&last, 1}, false),
                   diopiSuccess);
  synchronize(e);
  assert_true(hi[0] == 3.0f && lo[0] == 1e-3f);
  assert_true(isnan(hi[1]) && isnan(lo[1]) && isnan(amax[1]));
  assert_true(isnan(hi[2]) && isnan(lo[2]) && isnan(amax[2]));
  assert_true(hi[3] == INFINITY && amax[3] == INFINITY);
  assert_true(lo[4] == 0.0f && !signbit(lo[4]));
  for (int r = 0; r < ROWS; r++) {
    const float *row = x + r * COLS;
    float want_hi = plain_abs_extreme(row, COLS, 1);
    float want_lo = plain_abs_extreme(row, COLS, -1);
    assert_true(hi[r] == want_hi || (isnan(hi[r]) && isnan(want_hi)));
    assert_true(lo[r] == want_lo || (isnan(lo[r]) && isnan(want_lo)));
  }
  float want = -INFINITY;
  for (int64_t k = 0; k < COLS; k++)
    want = fmaxf(want, x[k]);
  assert_true(amax[0] == want);
  ops_made_destroy(&m);
}

/* A view of `data` (float32) with `shape` and `strides`, destroyed by the
 * caller. */
static T strided(ops_env_t *e, float *data, size_t ndim, const int64_t *shape,
                 const int64_t *strides) {
  T t;
  assert_int_equal(bp_ops_tensor_wrap(e->device, data, diopi_dtype_float32,
                                      ndim, shape, strides, &t),
                   BP_OK);
  return t;
}

/* amax, prod and vector_norm(inf) of long unit-stride rows whose kept dims
 * do not collapse to one stride (3 x 4 rows of a 3 x 5 block), and of rows
 * two apart into a strided out, against plain loops. */
static void row_folds_of_strided_views_match_plain_loops(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  enum { A = 3, B = 5, KEPT = 4 };
  const int64_t all[3] = {A, B, COLS}, outs[1] = {2 * A * KEPT}, last = -1;
  float *x, *out;
  T tall =
      ops_made_tensor(&m, diopi_dtype_float32, 3, all, NULL, 0, (void **)&x);
  (void)tall;
  ops_made_tensor(&m, diopi_dtype_float32, 1, outs, NULL, 0, (void **)&out);
  fill_between(x, A * B * COLS, 0.99f, 1.01f);
  for (int64_t k = 0; k < A * B * COLS; k += 7)
    x[k] = -x[k];
  x[(1 * B + 2) * COLS + 333] = 4.0f;
  x[(2 * B + 3) * COLS + 1999] = -5.0f;
  const int64_t block[3] = {A, KEPT, COLS},
                block_strides[3] = {B * COLS, COLS, 1};
  const int64_t out2[2] = {A, KEPT}, out2_strides[2] = {2 * KEPT, 2};
  const int64_t pairs[2] = {A * B / 2, COLS}, pair_strides[2] = {2 * COLS, 1};
  const int64_t out1[1] = {A * B / 2}, out1_strides[1] = {2};
  T in_block = strided(e, x, 3, block, block_strides);
  T out_block = strided(e, out, 2, out2, out2_strides);
  T in_pairs = strided(e, x, 2, pairs, pair_strides);
  T out_pairs = strided(e, out + 1, 1, out1, out1_strides);
  __typeof__(&diopiAmax) amax = ops_env_find(e, "diopiAmax");
  __typeof__(&diopiProd) prod = ops_env_find(e, "diopiProd");
  __typeof__(&diopiLinalgVecNorm) norm = ops_env_find(e, "diopiLinalgVecNorm");
  diopiScalar_t inf = {.stype = diopi_dtype_float64, .fval = INFINITY};
  for (int op = 0; op < 3; op++) {
    for (int views = 0; views < 2; views++) {
      T in = views ? in_pairs : in_block, o = views ? out_pairs : out_block;
      memset(out, 0, sizeof(float) * 2 * A * KEPT);
      diopiError_t err =
          op == 0   ? amax(e->ctx, o, in, (diopiSize_t){&last, 1}, false)
          : op == 1 ? prod(e->ctx, o, in, &last)
                    : norm(e->ctx, o, in, &inf, (diopiSize_t){&last, 1}, false);
      assert_int_equal(err, diopiSuccess);
      synchronize(e);
      int64_t n = views ? A * B / 2 : A * KEPT;
      for (int64_t r = 0; r < n; r++) {
        const float *row =
            x + (views ? 2 * r : (r / KEPT) * B + r % KEPT) * COLS;
        double want = op == 1 ? 1 : op == 0 ? -INFINITY : 0;
        for (int64_t k = 0; k < COLS; k++)
          want = op == 0   ? fmax(want, row[k])
                 : op == 1 ? want * row[k]
                           : fmax(want, fabs(row[k]));
        float got = out[views ? 1 + 2 * r : 2 * r];
        if (op == 1)
          assert_close(got, want, 2e-5);
        else
          assert_true(got == (float)want);
      }
    }
  }
  bp_ops_tensor_destroy(in_block);
  bp_ops_tensor_destroy(out_block);
  bp_ops_tensor_destroy(in_pairs);
  bp_ops_tensor_destroy(out_pairs);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sum_of_long_rows_matches_a_double_sum),
      cmocka_unit_test(max_and_min_of_long_rows_take_first_nan_and_first_tie),
      cmocka_unit_test(prod_of_long_rows_matches_a_double_product),
      cmocka_unit_test(inf_norms_of_long_rows_take_magnitudes_and_nans),
      cmocka_unit_test(row_folds_of_strided_views_match_plain_loops),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
