/* When an op may write memory it reads, as PyTorch decides it
 * (assert_no_partial_overlap): two dense views that share memory without
 * being the same view are refused, naming the op and the argument; the
 * very same view in place is an in-place op; strided views whose extents
 * interleave without sharing an element (a GRU's gates: column blocks of
 * one buffer) compute. Expected values are worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "ops_env.h"

typedef diopiTensorHandle_t T;
typedef diopiConstTensorHandle_t CT;
typedef diopiContextHandle_t CTX;
typedef diopiError_t (*mul_inp_fn)(CTX, T, CT);

/* b (2, 6) = 0..11; b[:, 0:3] *= b[:, 3:6]: rows (0*3, 1*4, 2*5) and
 * (6*9, 7*10, 8*11), the right-hand blocks unchanged. */
static void interleaved_column_blocks_compute_in_place(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  mul_inp_fn mul = (mul_inp_fn)ops_env_find(e, "diopiMulInp");
  int64_t shape[2] = {2, 6}, block[2] = {2, 3}, strides[2] = {6, 1};
  float *b;
  float init[12];
  for (int i = 0; i < 12; i++)
    init[i] = (float)i;
  ops_made_tensor(&m, diopi_dtype_float32, 2, shape, init, sizeof init,
                  (void **)&b);
  T left = ops_made_view(&m, b, diopi_dtype_float32, 2, block, strides),
    right = ops_made_view(&m, b + 3, diopi_dtype_float32, 2, block, strides);
  assert_int_equal(mul(e->ctx, left, right), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  const float want[12] = {0, 4, 10, 3, 4, 5, 54, 70, 88, 9, 10, 11};
  for (int i = 0; i < 12; i++)
    assert_true(b[i] == want[i]);
  ops_made_destroy(&m);
}

/* c = 0..11; c[0:8] *= c[4:12] shares c[4:8] between output and input. */
static void dense_views_sharing_memory_are_refused(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  mul_inp_fn mul = (mul_inp_fn)ops_env_find(e, "diopiMulInp");
  int64_t shape[1] = {12}, part[1] = {8}, unit[1] = {1};
  float *c;
  ops_made_tensor(&m, diopi_dtype_float32, 1, shape, NULL, 0, (void **)&c);
  T front = ops_made_view(&m, c, diopi_dtype_float32, 1, part, unit),
    back = ops_made_view(&m, c + 4, diopi_dtype_float32, 1, part, unit);
  assert_int_equal(mul(e->ctx, front, back), diopiErrorOccurred);
  const char *const names[] = {"diopiMulInp", "other", "overlaps"};
  ops_env_expect_error_names(e, names, 3);
  ops_made_destroy(&m);
}

/* x (2, 4) += x[0] broadcast over the rows: x[0] is read after row 0 is
 * written, so PyTorch refuses it; so does the library. */
static void a_broadcast_row_of_the_output_is_refused(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  diopiError_t (*add)(CTX, T, CT, const diopiScalar_t *) = (diopiError_t(*)(
      CTX, T, CT, const diopiScalar_t *))ops_env_find(e, "diopiAddInp");
  int64_t shape[2] = {2, 4}, row[1] = {4}, unit[1] = {1};
  float *x;
  T tx =
      ops_made_tensor(&m, diopi_dtype_float32, 2, shape, NULL, 0, (void **)&x);
  T first = ops_made_view(&m, x, diopi_dtype_float32, 1, row, unit);
  diopiScalar_t one = {.stype = diopi_dtype_float64, .fval = 1};
  assert_int_equal(add(e->ctx, tx, first, &one), diopiErrorOccurred);
  const char *const names[] = {"diopiAddInp", "other", "overlaps"};
  ops_env_expect_error_names(e, names, 3);
  ops_made_destroy(&m);
}

/* x *= x, the same view: an in-place square. */
static void the_same_view_is_an_in_place_op(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  mul_inp_fn mul = (mul_inp_fn)ops_env_find(e, "diopiMulInp");
  int64_t shape[1] = {5};
  const float init[5] = {-2, -1, 0, 3, 0.5f};
  float *x;
  T tx = ops_made_tensor(&m, diopi_dtype_float32, 1, shape, init, sizeof init,
                         (void **)&x);
  assert_int_equal(mul(e->ctx, tx, tx), diopiSuccess);
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
  const float want[5] = {4, 1, 0, 9, 0.25f};
  for (int i = 0; i < 5; i++)
    assert_true(x[i] == want[i]);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(interleaved_column_blocks_compute_in_place),
      cmocka_unit_test(dense_views_sharing_memory_are_refused),
      cmocka_unit_test(a_broadcast_row_of_the_output_is_refused),
      cmocka_unit_test(the_same_view_is_an_in_place_op),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
