/* Copies that split into the pool's ranges, against plain loops written
 * here: stack's, expand's and split's block copies (contiguous inputs, stack
 * and split along a middle dim, split along the first, expand of an input
 * with leading 1s; outs large enough that ranges start inside blocks), and
 * the remapping copy's
 * rows for pad (constant, edges of one element) and roll (a one-element
 * wrap), whose short edge runs are copied without memcpy. */
#include <setjmp.h>
#include <stdarg.h>
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

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* A float32 tensor holding 0, 1, 2, ... plus `base` (exact in float). */
static T counting(ops_made_t *m, size_t ndim, const int64_t *shape, float base,
                  float **data) {
  T t = ops_made_tensor(m, diopi_dtype_float32, ndim, shape, NULL, 0,
                        (void **)data);
  int64_t n = 1;
  for (size_t d = 0; d < ndim; d++)
    n *= shape[d];
  for (int64_t i = 0; i < n; i++)
    (*data)[i] = base + (float)i;
  return t;
}

static void stack_along_a_middle_dim_copies_every_block(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  enum { OUTER = 3, COUNT = 3, ROWS = 5000, COLS = 7 };
  const int64_t in_shape[3] = {OUTER, ROWS, COLS},
                out_shape[4] = {OUTER, COUNT, ROWS, COLS};
  float *in[COUNT], *out;
  CT ins[COUNT];
  for (int k = 0; k < COUNT; k++)
    ins[k] = counting(&m, 3, in_shape, 1e6f * (float)k, &in[k]);
  T t_out = ops_made_tensor(&m, diopi_dtype_float32, 4, out_shape, NULL, 0,
                            (void **)&out);
  __typeof__(&diopiStack) stack = ops_env_find(e, "diopiStack");
  assert_int_equal(stack(e->ctx, t_out, ins, COUNT, 1), diopiSuccess);
  synchronize(e);
  const int64_t block = ROWS * COLS;
  for (int64_t o = 0; o < OUTER; o++)
    for (int64_t k = 0; k < COUNT; k++)
      for (int64_t j = 0; j < block; j++)
        if (out[(o * COUNT + k) * block + j] != in[k][o * block + j])
          fail_msg("out[%lld][%lld] element %lld: %g, expected %g",
                   (long long)o, (long long)k, (long long)j,
                   (double)out[(o * COUNT + k) * block + j],
                   (double)in[k][o * block + j]);
  ops_made_destroy(&m);
}

/* Split along dim 1 into three outs (one empty), each of OUTER runs,
 * and along dim 0 (one run each). */
static void split_copies_every_run_into_its_out(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  enum { OUTER = 3, ROWS = 5000, COLS = 7, FIRST = 1234 };
  const int64_t in_shape[3] = {OUTER, ROWS, COLS},
                shapes[3][3] = {{OUTER, FIRST, COLS},
                                {OUTER, 0, COLS},
                                {OUTER, ROWS - FIRST, COLS}},
                sizes[3] = {FIRST, 0, ROWS - FIRST},
                rows_sizes[2] = {1, OUTER - 1};
  float *in, *out[3];
  T t_in = counting(&m, 3, in_shape, 0.5f, &in), t_out[3];
  for (int k = 0; k < 3; k++)
    t_out[k] = ops_made_tensor(&m, diopi_dtype_float32, 3, shapes[k], NULL, 0,
                               (void **)&out[k]);
  __typeof__(&diopiSplitWithSizes) split =
      ops_env_find(e, "diopiSplitWithSizes");
  assert_int_equal(split(e->ctx, t_out, 3, t_in, (diopiSize_t){sizes, 3}, 1),
                   diopiSuccess);
  synchronize(e);
  for (int64_t o = 0; o < OUTER; o++)
    for (int64_t r = 0; r < ROWS; r++)
      for (int64_t c = 0; c < COLS; c++) {
        int k = r < FIRST ? 0 : 2;
        int64_t at = (o * sizes[k] + r - (k ? FIRST : 0)) * COLS + c;
        float want = in[(o * ROWS + r) * COLS + c];
        if (out[k][at] != want)
          fail_msg("out %d (%lld, %lld, %lld): %g, expected %g", k,
                   (long long)o, (long long)r, (long long)c, (double)out[k][at],
                   (double)want);
      }
  const int64_t first_shape[3] = {1, ROWS, COLS},
                rest_shape[3] = {OUTER - 1, ROWS, COLS};
  T rows_out[2] = {ops_made_tensor(&m, diopi_dtype_float32, 3, first_shape,
                                   NULL, 0, (void **)&out[0]),
                   ops_made_tensor(&m, diopi_dtype_float32, 3, rest_shape, NULL,
                                   0, (void **)&out[1])};
  assert_int_equal(
      split(e->ctx, rows_out, 2, t_in, (diopiSize_t){rows_sizes, 2}, 0),
      diopiSuccess);
  synchronize(e);
  const int64_t plane = ROWS * COLS;
  for (int64_t i = 0; i < OUTER * plane; i++) {
    float got = i < plane ? out[0][i] : out[1][i - plane];
    if (got != in[i])
      fail_msg("split along dim 0, element %lld: %g, expected %g", (long long)i,
               (double)got, (double)in[i]);
  }
  ops_made_destroy(&m);
}

static void expand_repeats_the_input_in_every_block(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  enum { N = 3000, REPEATS = 101 };
  const int64_t in_shape[3] = {1, 1, N}, out_shape[3] = {REPEATS, 1, N};
  float *in, *out;
  T t_in = counting(&m, 3, in_shape, 0.5f, &in);
  T t_out = ops_made_tensor(&m, diopi_dtype_float32, 3, out_shape, NULL, 0,
                            (void **)&out);
  __typeof__(&diopiExpand) expand = ops_env_find(e, "diopiExpand");
  assert_int_equal(expand(e->ctx, t_out, t_in), diopiSuccess);
  synchronize(e);
  for (int64_t r = 0; r < REPEATS; r++)
    for (int64_t j = 0; j < N; j++)
      if (out[r * N + j] != in[j])
        fail_msg("out[%lld][0][%lld]: %g, expected %g", (long long)r,
                 (long long)j, (double)out[r * N + j], (double)in[j]);
  ops_made_destroy(&m);
}

static void pad_constant_and_roll_rows_match_plain_loops(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  enum { PLANES = 6, H = 100, W = 128 };
  const int64_t in_shape[3] = {PLANES, H, W},
                pad_shape[3] = {PLANES, H + 2, W + 2};
  float *in, *padded, *rolled;
  T t_in = counting(&m, 3, in_shape, 0.0f, &in);
  T t_pad = ops_made_tensor(&m, diopi_dtype_float32, 3, pad_shape, NULL, 0,
                            (void **)&padded);
  T t_roll = ops_made_tensor(&m, diopi_dtype_float32, 3, in_shape, NULL, 0,
                             (void **)&rolled);
  __typeof__(&diopiPad) pad = ops_env_find(e, "diopiPad");
  __typeof__(&diopiRoll) roll = ops_env_find(e, "diopiRoll");
  const int64_t pads[4] = {1, 1, 1, 1}, shift[1] = {1}, last[1] = {-1};
  const double fill = -0.5;
  assert_int_equal(
      pad(e->ctx, t_pad, t_in, (diopiSize_t){pads, 4}, "constant", &fill),
      diopiSuccess);
  assert_int_equal(roll(e->ctx, t_roll, t_in, (diopiSize_t){shift, 1},
                        (diopiSize_t){last, 1}),
                   diopiSuccess);
  synchronize(e);
  for (int64_t p = 0; p < PLANES; p++)
    for (int64_t y = 0; y < H + 2; y++)
      for (int64_t x = 0; x < W + 2; x++) {
        bool inside = y >= 1 && y <= H && x >= 1 && x <= W;
        float want = inside ? in[(p * H + y - 1) * W + x - 1] : -0.5f;
        float got = padded[(p * (H + 2) + y) * (W + 2) + x];
        if (got != want)
          fail_msg("pad (%lld, %lld, %lld): %g, expected %g", (long long)p,
                   (long long)y, (long long)x, (double)got, (double)want);
      }
  for (int64_t r = 0; r < PLANES * H; r++)
    for (int64_t x = 0; x < W; x++) {
      float want = in[r * W + (x + W - 1) % W], got = rolled[r * W + x];
      if (got != want)
        fail_msg("roll row %lld col %lld: %g, expected %g", (long long)r,
                 (long long)x, (double)got, (double)want);
    }
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stack_along_a_middle_dim_copies_every_block),
      cmocka_unit_test(split_copies_every_run_into_its_out),
      cmocka_unit_test(expand_repeats_the_input_in_every_block),
      cmocka_unit_test(pad_constant_and_roll_rows_match_plain_loops),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
