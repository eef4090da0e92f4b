/* Indexing ops at the edges of their shapes, as PyTorch defines them and
 * DIOPI's configured cases exercise them: an empty index makes gather and
 * scatter check nothing else (and scatter copy its input), a 0-dim index
 * indexes a 1-d tensor as one element; index_put and index take bool masks
 * beside other indices (each mask stands for its true positions'
 * coordinates); masked_select's backward has the input's shape, summing
 * where the mask broadcast the input; masked_fill's out has the broadcast
 * shape of input and mask. Expected values are worked out by hand. */
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

static void assert_floats(const float *got, const float *want, int n) {
  for (int i = 0; i < n; i++)
    assert_true(got[i] == want[i]);
}

/* Input (5, 2, 3) gathered along dim 1 by an index (16, 0, 4): PyTorch
 * checks no size of an empty index against the input's. */
static void gather_takes_an_empty_index_of_any_size(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*gather)(CTX, T, CT, int64_t, CT) =
      (diopiError_t(*)(CTX, T, CT, int64_t, CT))ops_env_find(e, "diopiGather");
  int64_t s_in[3] = {5, 2, 3}, s_idx[3] = {16, 0, 4};
  T tin = ops_made_tensor(&m, diopi_dtype_float32, 3, s_in, NULL, 0, NULL),
    tidx = ops_made_tensor(&m, diopi_dtype_int64, 3, s_idx, NULL, 0, NULL),
    tout = ops_made_tensor(&m, diopi_dtype_float32, 3, s_idx, NULL, 0, NULL);
  assert_int_equal(gather(e->ctx, tout, tin, 1, tidx), diopiSuccess);
  synchronize(e);
  ops_made_destroy(&m);
}

/* gather(x (8,), 0, index 3 (0-dim)) is x[3]: its backward puts the one
 * gradient at position 3 and zeroes the rest. */
static void gather_backward_of_a_0dim_index_adds_at_its_position(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*backward)(CTX, T, CT, CT, int64_t, CT) = (diopiError_t(*)(
      CTX, T, CT, CT, int64_t, CT))ops_env_find(e, "diopiGatherBackward");
  int64_t s8[1] = {8};
  const float go = 2.5f, garbage[8] = {7, 7, 7, 7, 7, 7, 7, 7};
  const int64_t three = 3;
  float *gi;
  T tx = ops_made_tensor(&m, diopi_dtype_float32, 1, s8, NULL, 0, NULL),
    tgi = ops_made_tensor(&m, diopi_dtype_float32, 1, s8, garbage,
                          sizeof garbage, (void **)&gi),
    tgo =
        ops_made_tensor(&m, diopi_dtype_float32, 0, NULL, &go, sizeof go, NULL),
    tidx = ops_made_tensor(&m, diopi_dtype_int64, 0, NULL, &three, sizeof three,
                           NULL);
  assert_int_equal(backward(e->ctx, tgi, tgo, tx, 0, tidx), diopiSuccess);
  synchronize(e);
  const float want[8] = {0, 0, 0, 2.5f, 0, 0, 0, 0};
  assert_floats(gi, want, 8);
  ops_made_destroy(&m);
}

/* An empty index (16, 0, 4) against an input (5, 2, 3): nothing is
 * gathered, so every gradient is 0. */
static void gather_backward_of_an_empty_index_is_zeros(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*backward)(CTX, T, CT, CT, int64_t, CT) = (diopiError_t(*)(
      CTX, T, CT, CT, int64_t, CT))ops_env_find(e, "diopiGatherBackward");
  int64_t s_in[3] = {5, 2, 3}, s_idx[3] = {16, 0, 4};
  float garbage[30], *gi;
  for (int i = 0; i < 30; i++)
    garbage[i] = 7;
  T tx = ops_made_tensor(&m, diopi_dtype_float32, 3, s_in, NULL, 0, NULL),
    tgi = ops_made_tensor(&m, diopi_dtype_float32, 3, s_in, garbage,
                          sizeof garbage, (void **)&gi),
    tgo = ops_made_tensor(&m, diopi_dtype_float32, 3, s_idx, NULL, 0, NULL),
    tidx = ops_made_tensor(&m, diopi_dtype_int64, 3, s_idx, NULL, 0, NULL);
  assert_int_equal(backward(e->ctx, tgi, tgo, tx, 0, tidx), diopiSuccess);
  synchronize(e);
  for (int i = 0; i < 30; i++)
    assert_true(gi[i] == 0.0f);
  ops_made_destroy(&m);
}

/* scatter(input (2, 3), 1, index (2, 4, 0, 8), src (5, 2)): the empty
 * index scatters nothing, whatever its dims; out is input. */
static void scatter_of_an_empty_index_copies_the_input(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*scatter)(CTX, T, CT, int64_t, CT, CT, const char *) =
      (diopiError_t(*)(CTX, T, CT, int64_t, CT, CT, const char *))ops_env_find(
          e, "diopiScatter");
  int64_t s_in[2] = {2, 3}, s_idx[4] = {2, 4, 0, 8}, s_src[2] = {5, 2};
  const float x[6] = {1, 2, 3, 4, 5, 6};
  float *y;
  T tin = ops_made_tensor(&m, diopi_dtype_float32, 2, s_in, x, sizeof x, NULL),
    tout =
        ops_made_tensor(&m, diopi_dtype_float32, 2, s_in, NULL, 0, (void **)&y),
    tidx = ops_made_tensor(&m, diopi_dtype_int64, 4, s_idx, NULL, 0, NULL),
    tsrc = ops_made_tensor(&m, diopi_dtype_float32, 2, s_src, NULL, 0, NULL);
  assert_int_equal(scatter(e->ctx, tout, tin, 1, tsrc, tidx, NULL),
                   diopiSuccess);
  synchronize(e);
  assert_floats(y, x, 6);
  ops_made_destroy(&m);
}

/* scatter(zeros (3,), 0, index 1 (0-dim), src 5 (0-dim)) is [0, 5, 0]. */
static void scatter_of_a_0dim_index_into_a_1d_input(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*scatter)(CTX, T, CT, int64_t, CT, CT, const char *) =
      (diopiError_t(*)(CTX, T, CT, int64_t, CT, CT, const char *))ops_env_find(
          e, "diopiScatter");
  int64_t s3[1] = {3};
  const float zeros[3] = {0, 0, 0}, five = 5;
  const int64_t one = 1;
  float *y;
  T tin = ops_made_tensor(&m, diopi_dtype_float32, 1, s3, zeros, sizeof zeros,
                          NULL),
    tout =
        ops_made_tensor(&m, diopi_dtype_float32, 1, s3, NULL, 0, (void **)&y),
    tidx =
        ops_made_tensor(&m, diopi_dtype_int64, 0, NULL, &one, sizeof one, NULL),
    tsrc = ops_made_tensor(&m, diopi_dtype_float32, 0, NULL, &five, sizeof five,
                           NULL);
  assert_int_equal(scatter(e->ctx, tout, tin, 0, tsrc, tidx, NULL),
                   diopiSuccess);
  synchronize(e);
  const float want[3] = {0, 5, 0};
  assert_floats(y, want, 3);
  ops_made_destroy(&m);
}

/* input (3, 2, 2) of zeros, indices [mask (3,) = [1, 0, 1], mask (2, 2) =
 * [[0, 1], [1, 0]]]: the masks' true positions are dim 0 in {0, 2} and
 * dims (1, 2) in {(0, 1), (1, 0)}, paired in order: (0, 0, 1) and
 * (2, 1, 0) take values 10 and 20 (accumulated onto 1 there). */
static void index_put_takes_two_masks_side_by_side(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*index_put)(CTX, T, CT, CT, CT *, int64_t, bool) =
      (diopiError_t(*)(CTX, T, CT, CT, CT *, int64_t, bool))ops_env_find(
          e, "diopiIndexPut");
  int64_t s_in[3] = {3, 2, 2}, s3[1] = {3}, s22[2] = {2, 2}, s2[1] = {2};
  float x[12];
  for (int i = 0; i < 12; i++)
    x[i] = 1;
  const bool mask0[3] = {true, false, true},
             mask12[4] = {false, true, true, false};
  const float values[2] = {10, 20};
  float *y;
  T tin = ops_made_tensor(&m, diopi_dtype_float32, 3, s_in, x, sizeof x, NULL),
    tout =
        ops_made_tensor(&m, diopi_dtype_float32, 3, s_in, NULL, 0, (void **)&y),
    tm0 =
        ops_made_tensor(&m, diopi_dtype_bool, 1, s3, mask0, sizeof mask0, NULL),
    tm12 = ops_made_tensor(&m, diopi_dtype_bool, 2, s22, mask12, sizeof mask12,
                           NULL),
    tv = ops_made_tensor(&m, diopi_dtype_float32, 1, s2, values, sizeof values,
                         NULL);
  CT indices[2] = {tm0, tm12};
  assert_int_equal(index_put(e->ctx, tout, tin, tv, indices, 2, true),
                   diopiSuccess);
  synchronize(e);
  const float want[12] = {1, 11, 1, 1, 1, 1, 1, 1, 1, 1, 21, 1};
  assert_floats(y, want, 12);
  ops_made_destroy(&m);
}

/* input (3, 4), indices [int64 [2, 0] on dim 0, mask [0, 1, 0, 1] on dim
 * 1]: positions (2, 1) and (0, 3), written (5, 6) by index_put and read
 * back by index. */
static void
index_put_and_index_take_a_mask_after_an_integer_index(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*index_put)(CTX, T, CT, CT, CT *, int64_t, bool) =
      (diopiError_t(*)(CTX, T, CT, CT, CT *, int64_t, bool))ops_env_find(
          e, "diopiIndexPut");
  diopiError_t (*index)(CTX, T *, CT, CT *, int64_t) =
      (diopiError_t(*)(CTX, T *, CT, CT *, int64_t))ops_env_find(e,
                                                                 "diopiIndex");
  int64_t s34[2] = {3, 4}, s2[1] = {2}, s4[1] = {4};
  const float zeros[12] = {0};
  const int64_t rows[2] = {2, 0};
  const bool cols[4] = {false, true, false, true};
  const float values[2] = {5, 6};
  float *y;
  T tin = ops_made_tensor(&m, diopi_dtype_float32, 2, s34, zeros, sizeof zeros,
                          NULL),
    tout =
        ops_made_tensor(&m, diopi_dtype_float32, 2, s34, NULL, 0, (void **)&y),
    trows =
        ops_made_tensor(&m, diopi_dtype_int64, 1, s2, rows, sizeof rows, NULL),
    tcols =
        ops_made_tensor(&m, diopi_dtype_bool, 1, s4, cols, sizeof cols, NULL),
    tv = ops_made_tensor(&m, diopi_dtype_float32, 1, s2, values, sizeof values,
                         NULL);
  CT indices[2] = {trows, tcols};
  assert_int_equal(index_put(e->ctx, tout, tin, tv, indices, 2, false),
                   diopiSuccess);
  synchronize(e);
  const float want[12] = {0, 0, 0, 6, 0, 0, 0, 0, 0, 5, 0, 0};
  assert_floats(y, want, 12);

  T read = NULL;
  assert_int_equal(index(e->ctx, &read, tout, indices, 2), diopiSuccess);
  synchronize(e);
  diopiSize_t shape;
  assert_int_equal(diopiGetTensorShape(read, &shape), diopiSuccess);
  assert_int_equal(shape.len, 1);
  assert_int_equal(shape.data[0], 2);
  void *data;
  assert_int_equal(diopiGetTensorData(read, &data), diopiSuccess);
  assert_floats(data, values, 2);
  ops_made_destroy(&m);
}

/* input (2, 3, 4) holding 0..23, indices [[1, 0], NULL, [3, 1]]: a whole
 * dim between the index tensors, so (as in PyTorch) the broadcast index dim
 * comes first: out[b][k] = input[i0[b]][k][i2[b]], shape (2, 3). index_put
 * writes the same positions. */
static void
index_with_a_whole_dim_between_indices_puts_them_first(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*index_put)(CTX, T, CT, CT, CT *, int64_t, bool) =
      (diopiError_t(*)(CTX, T, CT, CT, CT *, int64_t, bool))ops_env_find(
          e, "diopiIndexPut");
  diopiError_t (*index)(CTX, T *, CT, CT *, int64_t) =
      (diopiError_t(*)(CTX, T *, CT, CT *, int64_t))ops_env_find(e,
                                                                 "diopiIndex");
  int64_t s234[3] = {2, 3, 4}, s2[1] = {2}, s23[2] = {2, 3};
  float x[24];
  for (int i = 0; i < 24; i++)
    x[i] = (float)i;
  const int64_t i0[2] = {1, 0}, i2[2] = {3, 1};
  T tx = ops_made_tensor(&m, diopi_dtype_float32, 3, s234, x, sizeof x, NULL),
    t0 = ops_made_tensor(&m, diopi_dtype_int64, 1, s2, i0, sizeof i0, NULL),
    t2 = ops_made_tensor(&m, diopi_dtype_int64, 1, s2, i2, sizeof i2, NULL);
  CT indices[3] = {t0, NULL, t2};
  T read = NULL;
  assert_int_equal(index(e->ctx, &read, tx, indices, 3), diopiSuccess);
  synchronize(e);
  diopiSize_t shape;
  assert_int_equal(diopiGetTensorShape(read, &shape), diopiSuccess);
  assert_int_equal(shape.len, 2);
  assert_int_equal(shape.data[0], 2);
  assert_int_equal(shape.data[1], 3);
  void *data;
  assert_int_equal(diopiGetTensorData(read, &data), diopiSuccess);
  const float want[6] = {15, 19, 23, 1, 5, 9};
  assert_floats(data, want, 6);

  const float values[6] = {-1, -2, -3, -4, -5, -6};
  float *y;
  T tv = ops_made_tensor(&m, diopi_dtype_float32, 2, s23, values, sizeof values,
                         NULL),
    ty =
        ops_made_tensor(&m, diopi_dtype_float32, 3, s234, NULL, 0, (void **)&y);
  assert_int_equal(index_put(e->ctx, ty, tx, tv, indices, 3, false),
                   diopiSuccess);
  synchronize(e);
  float put[24];
  memcpy(put, x, sizeof put);
  for (int b = 0; b < 2; b++)
    for (int k = 0; k < 3; k++)
      put[i0[b] * 12 + k * 4 + i2[b]] = values[b * 3 + k];
  assert_floats(y, put, 24);
  ops_made_destroy(&m);
}

/* input (3,), mask (2, 3) = [[1, 0, 1], [1, 1, 0]]: the selection of the
 * broadcast input takes (0, 0), (0, 2), (1, 0), (1, 1); their gradients
 * [1, 2, 3, 4] sum back onto the input's elements: [1 + 3, 4, 2]. */
static void masked_select_backward_sums_where_the_mask_broadcast(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*backward)(CTX, T, CT, CT, CT) = (diopiError_t(*)(
      CTX, T, CT, CT, CT))ops_env_find(e, "diopiMaskedSelectBackward");
  int64_t s3[1] = {3}, s23[2] = {2, 3}, s4[1] = {4};
  const bool mask[6] = {true, false, true, true, true, false};
  const float go[4] = {1, 2, 3, 4};
  float *gi;
  T tx = ops_made_tensor(&m, diopi_dtype_float32, 1, s3, NULL, 0, NULL),
    tgi =
        ops_made_tensor(&m, diopi_dtype_float32, 1, s3, NULL, 0, (void **)&gi),
    tmask =
        ops_made_tensor(&m, diopi_dtype_bool, 2, s23, mask, sizeof mask, NULL),
    tgo = ops_made_tensor(&m, diopi_dtype_float32, 1, s4, go, sizeof go, NULL);
  assert_int_equal(backward(e->ctx, tgi, tgo, tx, tmask), diopiSuccess);
  synchronize(e);
  const float want[3] = {4, 4, 2};
  assert_floats(gi, want, 3);
  ops_made_destroy(&m);
}

/* masked_fill(input (1, 3) = [[1, 2, 3]], mask (2, 1) = [[1], [0]], 9):
 * out (2, 3) = [[9, 9, 9], [1, 2, 3]]. */
static void masked_fill_out_has_the_broadcast_shape(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*fill)(CTX, T, CT, CT, const diopiScalar_t *) =
      (diopiError_t(*)(CTX, T, CT, CT, const diopiScalar_t *))ops_env_find(
          e, "diopiMaskedFillScalar");
  int64_t s13[2] = {1, 3}, s21[2] = {2, 1}, s23[2] = {2, 3};
  const float x[3] = {1, 2, 3};
  const bool mask[2] = {true, false};
  float *y;
  T tin = ops_made_tensor(&m, diopi_dtype_float32, 2, s13, x, sizeof x, NULL),
    tmask =
        ops_made_tensor(&m, diopi_dtype_bool, 2, s21, mask, sizeof mask, NULL),
    tout =
        ops_made_tensor(&m, diopi_dtype_float32, 2, s23, NULL, 0, (void **)&y);
  diopiScalar_t nine = {.stype = diopi_dtype_float64};
  nine.fval = 9;
  assert_int_equal(fill(e->ctx, tout, tin, tmask, &nine), diopiSuccess);
  synchronize(e);
  const float want[6] = {9, 9, 9, 1, 2, 3};
  assert_floats(y, want, 6);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(gather_takes_an_empty_index_of_any_size),
      cmocka_unit_test(gather_backward_of_a_0dim_index_adds_at_its_position),
      cmocka_unit_test(gather_backward_of_an_empty_index_is_zeros),
      cmocka_unit_test(scatter_of_an_empty_index_copies_the_input),
      cmocka_unit_test(scatter_of_a_0dim_index_into_a_1d_input),
      cmocka_unit_test(index_put_takes_two_masks_side_by_side),
      cmocka_unit_test(index_put_and_index_take_a_mask_after_an_integer_index),
      cmocka_unit_test(index_with_a_whole_dim_between_indices_puts_them_first),
      cmocka_unit_test(masked_select_backward_sums_where_the_mask_broadcast),
      cmocka_unit_test(masked_fill_out_has_the_broadcast_shape),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
