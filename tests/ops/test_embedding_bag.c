/* The extension op embedding_bag and its backward (ref_embedding_bag.c) on
 * values worked out by hand: weight rows [1 2] [3 4] [5 6] [7 8], indices
 * 0 2 | (empty) | 1 3 3 in three bags; sum (with per-sample weights), mean,
 * max (the first of equal rows; 0 and row 0 for the empty bag), padding_idx,
 * include_last_offset, the gradients each mode gives back (scale_grad_by_freq
 * too) and per_sample_weights' gradient, and bad arguments named with op,
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
typedef diopiError_t (*bag_t)(CTX, T, T, T, T, CT, CT, CT, int64_t, CT, bool,
                              int64_t);
typedef diopiError_t (*bag_backward_t)(CTX, T, CT, CT, CT, CT, CT, int64_t, CT,
                                       bool, int64_t);
typedef diopiError_t (*psw_backward_t)(CTX, T, CT, CT, CT, CT, int64_t);
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

static void expect(const double *got, const double *want, int n) {
  for (int i = 0; i < n; i++)
    assert_float_equal(got[i], want[i], 1e-15);
}

static void bags_reduce_and_give_gradients_back(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  bag_t bag = (bag_t)ops_env_find(e, "diopiEmbeddingBag");
  bag_backward_t backward =
      (bag_backward_t)ops_env_find(e, "diopiEmbeddingBagBackward");
  int64_t s42[2] = {4, 2}, s5[1] = {5}, s3[1] = {3}, s4[1] = {4},
          s32[2] = {3, 2};
  const double w[8] = {1, 2, 3, 4, 5, 6, 7, 8}, psw[5] = {1, 0.5, 2, 1, -1},
               g[6] = {1, 2, 3, 4, 5, 6};
  const int64_t idx[5] = {0, 2, 1, 3, 3}, off[3] = {0, 2, 2},
                last[4] = {0, 2, 2, 5};
  double *out, *gw;
  int64_t *o2b, *size, *rows;
  T tw = make(&m, F64, 2, s42, w, NULL), ti = make(&m, I64, 1, s5, idx, NULL),
    to = make(&m, I64, 1, s3, off, NULL),
    tlast = make(&m, I64, 1, s4, last, NULL),
    tp = make(&m, F64, 1, s5, psw, NULL),
    tout = make(&m, F64, 2, s32, NULL, &out),
    to2b = make(&m, I64, 1, s5, NULL, &o2b),
    tsize = make(&m, I64, 1, s3, NULL, &size),
    trows = make(&m, I64, 2, s32, NULL, &rows),
    tg = make(&m, F64, 2, s32, g, NULL), tgw = make(&m, F64, 2, s42, NULL, &gw);

  assert_int_equal(
      bag(e->ctx, tout, to2b, tsize, NULL, tw, ti, to, 0, NULL, false, -1),
      diopiSuccess);
  synchronize(e);
  expect(out, (const double[]){6, 8, 0, 0, 17, 20}, 6);
  for (int i = 0; i < 5; i++)
    assert_true(o2b[i] == (i < 2 ? 0 : 2));
  assert_true(size[0] == 2 && size[1] == 0 && size[2] == 3);
  /* grad ones: row 3 twice. */
  const double ones[6] = {1, 1, 1, 1, 1, 1};
  T tones = make(&m, F64, 2, s32, ones, NULL);
  assert_int_equal(
      backward(e->ctx, tgw, tones, ti, to2b, tsize, NULL, 0, NULL, false, -1),
      diopiSuccess);
  synchronize(e);
  expect(gw, (const double[]){1, 1, 1, 1, 1, 1, 2, 2}, 8);
  assert_int_equal(
      backward(e->ctx, tgw, tones, ti, to2b, tsize, NULL, 0, NULL, true, -1),
      diopiSuccess);
  synchronize(e);
  expect(gw, (const double[]){1, 1, 1, 1, 1, 1, 1, 1}, 8);

  /* Per-sample weights, the last offset given. */
  assert_int_equal(
      bag(e->ctx, tout, to2b, tsize, NULL, tw, ti, tlast, 0, tp, true, -1),
      diopiSuccess);
  synchronize(e);
  expect(out, (const double[]){3.5, 5, 0, 0, 6, 8}, 6);

  /* Mean, then mean without row 3 (padding_idx). */
  assert_int_equal(
      bag(e->ctx, tout, to2b, tsize, NULL, tw, ti, to, 1, NULL, false, -1),
      diopiSuccess);
  synchronize(e);
  expect(out, (const double[]){3, 4, 0, 0, 17.0 / 3, 20.0 / 3}, 6);
  assert_int_equal(
      backward(e->ctx, tgw, tones, ti, to2b, tsize, NULL, 1, NULL, false, -1),
      diopiSuccess);
  synchronize(e);
  const double third = 1.0 / 3;
  expect(
      gw,
      (const double[]){0.5, 0.5, third, third, 0.5, 0.5, 2 * third, 2 * third},
      8);
  assert_int_equal(
      bag(e->ctx, tout, to2b, tsize, NULL, tw, ti, to, 1, NULL, false, 3),
      diopiSuccess);
  synchronize(e);
  expect(out, (const double[]){3, 4, 0, 0, 3, 4}, 6);
  assert_true(size[0] == 2 && size[1] == 0 && size[2] == 1);

  /* Max: rows 2 | none (0) | 3 (the first of the equal 3s). */
  assert_int_equal(
      bag(e->ctx, tout, to2b, tsize, trows, tw, ti, to, 2, NULL, false, -1),
      diopiSuccess);
  synchronize(e);
  expect(out, (const double[]){5, 6, 0, 0, 7, 8}, 6);
  const int64_t want_rows[6] = {2, 2, 0, 0, 3, 3};
  for (int i = 0; i < 6; i++)
    assert_true(rows[i] == want_rows[i]);
  assert_int_equal(
      backward(e->ctx, tgw, tg, ti, to2b, tsize, trows, 2, NULL, false, -1),
      diopiSuccess);
  synchronize(e);
  expect(gw, (const double[]){0, 0, 0, 0, 1, 2, 5, 6}, 8);

  /* per_sample_weights' gradient: each index's bag row of grad dotted with
   * its weight row ([1 2].[1 2], [1 2].[5 6], [5 6].[3 4], [5 6].[7 8]
   * twice); 0 for padding_idx 3. */
  psw_backward_t psw_backward = (psw_backward_t)ops_env_find(
      e, "diopiEmbeddingBagPerSampleWeightsBackward");
  double *gp;
  T tgp = make(&m, F64, 1, s5, NULL, &gp);
  assert_int_equal(psw_backward(e->ctx, tgp, tg, tw, ti, to2b, -1),
                   diopiSuccess);
  synchronize(e);
  expect(gp, (const double[]){5, 17, 39, 83, 83}, 5);
  assert_int_equal(psw_backward(e->ctx, tgp, tg, tw, ti, to2b, 3),
                   diopiSuccess);
  synchronize(e);
  expect(gp, (const double[]){5, 17, 39, 0, 0}, 5);
  ops_made_destroy(&m);
}

static void bad_arguments_name_op_argument_and_values(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  bag_t bag = (bag_t)ops_env_find(e, "diopiEmbeddingBag");
  const char *(*last)(void) =
      (last_error_t)ops_env_find(e, "diopiGetLastErrorString");
  int64_t s42[2] = {4, 2}, s5[1] = {5}, s3[1] = {3}, s32[2] = {3, 2};
  T w = make(&m, F64, 2, s42, NULL, NULL), i = make(&m, I64, 1, s5, NULL, NULL),
    off = make(&m, I64, 1, s3, NULL, NULL),
    p = make(&m, F64, 1, s5, NULL, NULL),
    out = make(&m, F64, 2, s32, NULL, NULL),
    o2b = make(&m, I64, 1, s5, NULL, NULL),
    size = make(&m, I64, 1, s3, NULL, NULL);
  assert_int_equal(
      bag(e->ctx, out, o2b, size, NULL, w, i, off, 3, NULL, false, -1),
      diopiErrorOccurred);
  assert_string_equal(last(), "diopiEmbeddingBag: mode: expected 0 (sum), 1 "
                              "(mean) or 2 (max), got 3");
  assert_int_equal(
      bag(e->ctx, out, o2b, size, NULL, w, i, off, 1, p, false, -1),
      diopiErrorOccurred);
  assert_string_equal(last(), "diopiEmbeddingBag: per_sample_weights: "
                              "expected only with mode 0 (sum), got mode 1");
  assert_int_equal(
      bag(e->ctx, out, o2b, size, NULL, w, i, off, 2, NULL, false, -1),
      diopiErrorOccurred);
  assert_string_equal(last(), "diopiEmbeddingBag: max_indices: expected a "
                              "tensor with mode 2 (max), got NULL");
  assert_int_equal(
      bag(e->ctx, out, o2b, size, NULL, w, i, off, 0, NULL, true, -1),
      diopiErrorOccurred);
  assert_string_equal(last(),
                      "diopiEmbeddingBag: out: expected shape [2, 2], got "
                      "[3, 2]");
  synchronize(e);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bags_reduce_and_give_gradients_back),
      cmocka_unit_test(bad_arguments_name_op_argument_and_values),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
