/* The extension ops median, nanmedian, kthvalue (ref_order_statistics.c) and
 * cummax, cummin (ref_cummax.c) as a caller meets them: values and indices
 * worked out by hand, the indices among ties being the ones PyTorch 1.13's CPU
 * returns for the same lines (median: the lower middle in the order by
 * value then position; kthvalue: where its quickselect leaves the k-th;
 * cummax/cummin: a later equal element takes over), NaNs as PyTorch's,
 * keepdim and dropped output shapes, a strided input, and bad arguments
 * named with op, argument, expected and actual. */
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
typedef diopiError_t (*by_dim_t)(CTX, T, T, CT, int64_t);
typedef diopiError_t (*kthvalue_t)(CTX, T, T, CT, int64_t, int64_t);
typedef diopiError_t (*median_all_t)(CTX, T, CT);
typedef const char *(*last_error_t)(void);

#define F64 diopi_dtype_float64
#define I64 diopi_dtype_int64

/* A contiguous 8-byte-element tensor kept in `m`, holding `values` (NULL:
 * left unset). */
static T make(ops_made_t *m, diopiDtype_t dtype, size_t ndim,
              const int64_t *shape, const void *values, void *data) {
  int64_t numel = 1;
  for (size_t d = 0; d < ndim; d++)
    numel *= shape[d];
  return ops_made_tensor(m, dtype, ndim, shape, values, (size_t)numel * 8,
                         (void **)data);
}

static const char *last(ops_env_t *e) {
  return ((last_error_t)ops_env_find(e, "diopiGetLastErrorString"))();
}

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

static bool same(double a, double b) {
  return (isnan(a) && isnan(b)) || a == b;
}

/* Four rows of five (dim 1; keepdim: [4, 1] outputs): all equal; 2s
 * and 1s alternating; two 3s, two 1s and a 2; 0 5 5 5 0. Sorted by value
 * then position, the rank-2 element is at 2, 0, 4 and 1. A NaN row gives
 * its first NaN; the lower middle of an even row; then dim 0 of the same
 * values read through a transposed (strided) view, outputs [4]. */
static void median_takes_the_lower_middle_by_value_then_position(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  by_dim_t median = (by_dim_t)ops_env_find(e, "diopiMedian");
  median_all_t median_all = (median_all_t)ops_env_find(e, "diopiMedianAll");
  int64_t s45[2] = {4, 5}, s41[2] = {4, 1};
  const double x[20] = {1, 1, 1, 1, 1, 2, 1, 2, 1, 2,
                        3, 3, 1, 1, 2, 0, 5, 5, 5, 0};
  double *v, *all;
  int64_t *i;
  T tx = make(&m, F64, 2, s45, x, NULL), tv = make(&m, F64, 2, s41, NULL, &v),
    ti = make(&m, I64, 2, s41, NULL, &i);
  assert_int_equal(median(e->ctx, tv, ti, tx, 1), diopiSuccess);
  synchronize(e);
  const double want_v[4] = {1, 2, 2, 5};
  const int64_t want_i[4] = {2, 0, 4, 1};
  for (int r = 0; r < 4; r++)
    assert_true(v[r] == want_v[r] && i[r] == want_i[r]);

  /* The same values as a [5, 4] transposed view: dim 0 is each row. */
  int64_t s54[2] = {5, 4}, s4[1] = {4}, st[2] = {1, 5};
  void *base = NULL;
  make(&m, F64, 2, s45, x, &base);
  T tt = ops_made_view(&m, base, F64, 2, s54, st);
  double *v5;
  int64_t *i5;
  T tv5 = make(&m, F64, 1, s4, NULL, &v5),
    ti5 = make(&m, I64, 1, s4, NULL, &i5);
  assert_int_equal(median(e->ctx, tv5, ti5, tt, 0), diopiSuccess);
  synchronize(e);
  for (int r = 0; r < 4; r++)
    assert_true(v5[r] == want_v[r] && i5[r] == want_i[r]);

  int64_t s0[1] = {0};
  const double nan_row[4] = {1, NAN, 2, NAN}, even[4] = {4, 1, 3, 2};
  T tn = make(&m, F64, 1, s4, nan_row, NULL),
    te = make(&m, F64, 1, s4, even, NULL),
    tall = make(&m, F64, 0, NULL, NULL, &all);
  double *v1;
  int64_t *i1;
  T tv1 = make(&m, F64, 0, NULL, NULL, &v1),
    ti1 = make(&m, I64, 0, NULL, NULL, &i1);
  assert_int_equal(median(e->ctx, tv1, ti1, tn, 0), diopiSuccess);
  synchronize(e);
  assert_true(isnan(*v1) && *i1 == 1);
  assert_int_equal(median(e->ctx, tv1, ti1, te, -1), diopiSuccess);
  assert_int_equal(median_all(e->ctx, tall, tx), diopiSuccess);
  synchronize(e);
  assert_true(*v1 == 2 && *i1 == 3);
  assert_true(*all == 1); /* 20 values: the 10th smallest */
  assert_int_equal(median_all(e->ctx, tall, tn), diopiSuccess);
  synchronize(e);
  assert_true(isnan(*all));
  assert_int_equal(median_all(e->ctx, tall, make(&m, F64, 1, s0, NULL, NULL)),
                   diopiSuccess);
  synchronize(e);
  assert_true(isnan(*all));
  ops_made_destroy(&m);
}

/* nanmedian: the median of a line's numbers (1 NaN 2 NaN: the 1 at 0); a
 * line of NaNs alone gives the NaN std::nth_element leaves first, worked by
 * hand: of 4, the middle (2) to the front and pair (1, 3) swapped: 2 3 0 1;
 * of 7, the middle (3) to the front and pairs (1, 6), (2, 5), (3, 4)
 * swapped: 3 6 5 4 0 2 1, cut at 4; of those, the middle (5) to the front
 * and pair (1, 3) swapped: 5 4 3 6. Over everything: the value alone. */
static void nanmedian_skips_nans_and_orders_all_nan_lines(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  by_dim_t nanmedian = (by_dim_t)ops_env_find(e, "diopiNanmedian");
  median_all_t nanmedian_all =
      (median_all_t)ops_env_find(e, "diopiNanmedianAll");
  int64_t s4[1] = {4}, s7[1] = {7};
  const double mixed[4] = {1, NAN, 2, NAN},
               nans[7] = {NAN, NAN, NAN, NAN, NAN, NAN, NAN};
  double *v, *all;
  int64_t *i;
  T tm = make(&m, F64, 1, s4, mixed, NULL),
    t4 = make(&m, F64, 1, s4, nans, NULL),
    t7 = make(&m, F64, 1, s7, nans, NULL),
    tv = make(&m, F64, 0, NULL, NULL, &v),
    ti = make(&m, I64, 0, NULL, NULL, &i),
    tall = make(&m, F64, 0, NULL, NULL, &all);
  assert_int_equal(nanmedian(e->ctx, tv, ti, tm, 0), diopiSuccess);
  synchronize(e);
  assert_true(*v == 1 && *i == 0);
  assert_int_equal(nanmedian(e->ctx, tv, ti, t4, 0), diopiSuccess);
  synchronize(e);
  assert_true(isnan(*v) && *i == 2);
  assert_int_equal(nanmedian(e->ctx, tv, ti, t7, 0), diopiSuccess);
  assert_int_equal(nanmedian_all(e->ctx, tall, tm), diopiSuccess);
  synchronize(e);
  assert_true(isnan(*v) && *i == 5 && *all == 1);
  assert_int_equal(nanmedian_all(e->ctx, tall, t7), diopiSuccess);
  synchronize(e);
  assert_true(isnan(*all));
  ops_made_destroy(&m);
}

/* kthvalue where ties decide the index, as PyTorch's quickselect leaves
 * them (values and indices from PyTorch 1.13's CPU on the same lines):
 * k = 2 of five 1s is at 2; of 2 1 2 1 2, k = 2 is the 1 at 3 and k = 4 the
 * 2 at 0; NaN ranks above every number. */
static void kthvalue_leaves_ties_where_pytorchs_quickselect_does(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  kthvalue_t kthvalue = (kthvalue_t)ops_env_find(e, "diopiKthvalue");
  int64_t s45[2] = {4, 5}, s4[1] = {4};
  const double x[20] = {1, 1, 1, 1, 1, 2, 1, 2, 1, 2,
                        3, 3, 1, 1, 2, 0, 5, 5, 5, 0};
  double *v;
  int64_t *i;
  T tx = make(&m, F64, 2, s45, x, NULL), tv = make(&m, F64, 1, s4, NULL, &v),
    ti = make(&m, I64, 1, s4, NULL, &i);
  struct {
    int64_t k;
    double v[4];
    int64_t i[4];
  } cases[2] = {{2, {1, 1, 1, 0}, {2, 3, 2, 0}},
                {4, {1, 2, 3, 5}, {1, 0, 1, 1}}};
  for (int c = 0; c < 2; c++) {
    assert_int_equal(kthvalue(e->ctx, tv, ti, tx, cases[c].k, 1), diopiSuccess);
    synchronize(e);
    for (int r = 0; r < 4; r++)
      assert_true(v[r] == cases[c].v[r] && i[r] == cases[c].i[r]);
  }

  /* 21 values of 1, 2, 3: k = 5, 12, 18 from PyTorch: 1 at 1, 2 at 6, 3 at
   * 9. */
  int64_t s21[1] = {21};
  const double z[21] = {3, 1, 2, 1, 3, 1, 2, 2, 1, 3, 3,
                        3, 1, 2, 2, 1, 1, 1, 2, 3, 3};
  const int64_t ks[3] = {5, 12, 18}, want_i[3] = {1, 6, 9};
  double *v1;
  int64_t *i1;
  T tz = make(&m, F64, 1, s21, z, NULL),
    tv1 = make(&m, F64, 0, NULL, NULL, &v1),
    ti1 = make(&m, I64, 0, NULL, NULL, &i1);
  for (int c = 0; c < 3; c++) {
    assert_int_equal(kthvalue(e->ctx, tv1, ti1, tz, ks[c], 0), diopiSuccess);
    synchronize(e);
    assert_true(*v1 == (double)(c + 1) && *i1 == want_i[c]);
  }
  const double nan_row[4] = {1, NAN, 2, NAN};
  T tn = make(&m, F64, 1, s4, nan_row, NULL);
  assert_int_equal(kthvalue(e->ctx, tv1, ti1, tn, 4, 0), diopiSuccess);
  synchronize(e);
  assert_true(isnan(*v1) && *i1 == 3);
  assert_int_equal(kthvalue(e->ctx, tv1, ti1, tn, 2, 0), diopiSuccess);
  synchronize(e);
  assert_true(*v1 == 2 && *i1 == 2);
  ops_made_destroy(&m);
}

/* cummax of 1 3 3 2 NaN 5 NaN: an equal later value and each NaN take
 * over; cummin of 1 0 0 2 NaN -5 likewise; along dim 0 of a [n, 1]. */
static void cummax_cummin_move_to_equal_values_and_nans(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  by_dim_t cummax = (by_dim_t)ops_env_find(e, "diopiCummax");
  by_dim_t cummin = (by_dim_t)ops_env_find(e, "diopiCummin");
  int64_t s71[2] = {7, 1};
  const double x[7] = {1, 3, 3, 2, NAN, 5, NAN},
               y[7] = {1, 0, 0, 2, NAN, -5, 7};
  double *v, *w;
  int64_t *i, *j;
  T tx = make(&m, F64, 2, s71, x, NULL), ty = make(&m, F64, 2, s71, y, NULL),
    tv = make(&m, F64, 2, s71, NULL, &v), ti = make(&m, I64, 2, s71, NULL, &i),
    tw = make(&m, F64, 2, s71, NULL, &w), tj = make(&m, I64, 2, s71, NULL, &j);
  assert_int_equal(cummax(e->ctx, tv, ti, tx, 0), diopiSuccess);
  assert_int_equal(cummin(e->ctx, tw, tj, ty, -2), diopiSuccess);
  synchronize(e);
  const double want_v[7] = {1, 3, 3, 3, NAN, NAN, NAN},
               want_w[7] = {1, 0, 0, 0, NAN, NAN, NAN};
  const int64_t want_i[7] = {0, 1, 2, 2, 4, 4, 6},
                want_j[7] = {0, 1, 2, 2, 4, 4, 4};
  for (int k = 0; k < 7; k++) {
    assert_true(same(v[k], want_v[k]) && i[k] == want_i[k]);
    assert_true(same(w[k], want_w[k]) && j[k] == want_j[k]);
  }
  ops_made_destroy(&m);
}

static void bad_arguments_name_op_argument_and_values(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  by_dim_t median = (by_dim_t)ops_env_find(e, "diopiMedian");
  by_dim_t cummax = (by_dim_t)ops_env_find(e, "diopiCummax");
  kthvalue_t kthvalue = (kthvalue_t)ops_env_find(e, "diopiKthvalue");
  int64_t s23[2] = {2, 3}, s2[1] = {2}, s3[1] = {3}, s20[2] = {2, 0};
  T x = make(&m, F64, 2, s23, NULL, NULL),
    v2 = make(&m, F64, 1, s2, NULL, NULL),
    i2 = make(&m, I64, 1, s2, NULL, NULL),
    v3 = make(&m, F64, 1, s3, NULL, NULL),
    f2 = make(&m, F64, 1, s2, NULL, NULL),
    empty = make(&m, F64, 2, s20, NULL, NULL);
  assert_int_equal(kthvalue(e->ctx, v2, i2, x, 4, 1), diopiErrorOccurred);
  assert_string_equal(last(e), "diopiKthvalue: k: expected 1 <= k <= 3, got 4");
  assert_int_equal(median(e->ctx, v3, i2, x, 1), diopiErrorOccurred);
  assert_string_equal(last(e),
                      "diopiMedian: values: expected shape [2], got [3]");
  assert_int_equal(median(e->ctx, v2, f2, x, 1), diopiErrorOccurred);
  assert_string_equal(
      last(e), "diopiMedian: indices: expected an integer dtype, got dtype 10");
  assert_int_equal(median(e->ctx, v2, i2, empty, 1), diopiErrorOccurred);
  assert_string_equal(
      last(e), "diopiMedian: input: expected a nonempty dim 1, got size 0");
  assert_int_equal(cummax(e->ctx, v2, i2, x, 1), diopiErrorOccurred);
  assert_string_equal(last(e),
                      "diopiCummax: values: expected shape [2, 3], got [2]");
  synchronize(e);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(median_takes_the_lower_middle_by_value_then_position),
      cmocka_unit_test(nanmedian_skips_nans_and_orders_all_nan_lines),
      cmocka_unit_test(kthvalue_leaves_ties_where_pytorchs_quickselect_does),
      cmocka_unit_test(cummax_cummin_move_to_equal_values_and_nans),
      cmocka_unit_test(bad_arguments_name_op_argument_and_values),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
