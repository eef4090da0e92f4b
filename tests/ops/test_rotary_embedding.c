/* diopiRotaryEmbeddingV2, DIOPI's in-place rotary embedding of query and
 * key: each head x (dim values) becomes x cos + rotate_half(x) sin with
 * rotate_half(x) = (-x[D/2:], x[:D/2]). The expected values are worked by
 * hand, or by rotate_half_reference below, which builds rotate_half(x) as a
 * vector first as the definition reads (the library pairs elements
 * instead); every input is a small dyadic number, so float16 and bfloat16
 * results are exact too. */
#include <math.h>
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
typedef diopiContextHandle_t CTX;
typedef diopiError_t (*rotary_v2_fn)(CTX, T, T, CT, CT, int64_t);

enum { DIM = 4, HALF = DIM / 2 };

static void synchronize(ops_env_t *e) {
  assert_int_equal(bp_stream_synchronize(e->stream), BP_OK);
}

/* One head: out = x cos + rotate_half(x) sin. */
static void rotate_half_reference(const float *x, const float *cos,
                                  const float *sin, float *out) {
  float rotated[DIM];
  for (int k = 0; k < HALF; k++) {
    rotated[k] = -x[k + HALF];
    rotated[k + HALF] = x[k];
  }
  for (int k = 0; k < DIM; k++)
    out[k] = x[k] * cos[k] + rotated[k] * sin[k];
}

/* The 16-bit encodings of exactly representable floats. */
static uint16_t bfloat16_of(float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  assert_int_equal(bits & 0xFFFF, 0);
  return (uint16_t)(bits >> 16);
}
static float bfloat16_value(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float v;
  memcpy(&v, &bits, sizeof v);
  return v;
}
static uint16_t float16_of(float v) {
  if (v == 0)
    return signbit(v) ? 0x8000 : 0;
  int exponent;
  double mantissa = frexp(fabs(v), &exponent); /* in [0.5, 1) */
  double fraction = (mantissa * 2 - 1) * 1024;
  assert_true(fraction == floor(fraction) && exponent > -14 && exponent < 16);
  return (uint16_t)((v < 0 ? 0x8000 : 0) | (exponent - 1 + 15) << 10 |
                    (int)fraction);
}
static float float16_value(uint16_t h) {
  int exponent = (h >> 10) & 0x1F, fraction = h & 0x3FF;
  float v = exponent ? ldexpf(1 + fraction / 1024.0f, exponent - 15)
                     : ldexpf(fraction / 1024.0f, -14);
  return h & 0x8000 ? -v : v;
}

/* One token, query of 2 heads and key of 1, cos and sin (1, 1, DIM):
 * query's first head [1, 2, 3, 4] by cos [0, 1, 0.5, -1], sin
 * [1, 0, 0.5, 2]: (1 0 - 3 1, 2 1 - 4 0, 3 0.5 + 1 0.5, 4 -1 + 2 2) =
 * [-3, 2, 2, 0]. In each of float32, float16 and bfloat16. */
static const float query_x[2 * DIM] = {1, 2, 3, 4, -1, 0.5f, 2, 0},
                               key_x[DIM] = {0, 1, -2, 0.5f},
                               cosines[DIM] = {0, 1, 0.5f, -1},
                               sines[DIM] = {1, 0, 0.5f, 2};

static void rotary_v2_turns_query_and_key_in_place(void **state) {
  ops_env_t *e = *state;
  rotary_v2_fn rotary = (rotary_v2_fn)ops_env_find(e, "diopiRotaryEmbeddingV2");
  const diopiDtype_t dtypes[3] = {diopi_dtype_float32, diopi_dtype_float16,
                                  diopi_dtype_bfloat16};
  float want_query[2 * DIM], want_key[DIM];
  rotate_half_reference(query_x, cosines, sines, want_query);
  rotate_half_reference(query_x + DIM, cosines, sines, want_query + DIM);
  rotate_half_reference(key_x, cosines, sines, want_key);
  const float by_hand[DIM] = {-3, 2, 2, 0};
  assert_memory_equal(want_query, by_hand, sizeof by_hand);
  for (int d = 0; d < 3; d++) {
    ops_made_t m = {.e = e};
    diopiDtype_t dtype = dtypes[d];
    int64_t s_query[2] = {1, 2 * DIM}, s_key[2] = {1, DIM},
            s_angle[3] = {1, 1, DIM};
    const float *values[4] = {query_x, key_x, cosines, sines};
    const int counts[4] = {2 * DIM, DIM, DIM, DIM};
    const int64_t *shapes[4] = {s_query, s_key, s_angle, s_angle};
    const size_t ndims[4] = {2, 2, 3, 3};
    void *data[4];
    T t[4];
    for (int i = 0; i < 4; i++) {
      uint16_t half_bits[2 * DIM];
      bool wide = dtype == diopi_dtype_float32;
      for (int k = 0; !wide && k < counts[i]; k++)
        half_bits[k] = dtype == diopi_dtype_float16 ? float16_of(values[i][k])
                                                    : bfloat16_of(values[i][k]);
      t[i] = ops_made_tensor(
          &m, dtype, ndims[i], shapes[i],
          wide ? (const void *)values[i] : (const void *)half_bits,
          (size_t)counts[i] * (wide ? sizeof(float) : sizeof(uint16_t)),
          &data[i]);
    }
    assert_int_equal(rotary(e->ctx, t[0], t[1], t[2], t[3], DIM), diopiSuccess);
    synchronize(e);
    for (int i = 0; i < 2; i++) {
      const float *want = i ? want_key : want_query;
      for (int k = 0; k < counts[i]; k++) {
        float got = dtype == diopi_dtype_float32 ? ((float *)data[i])[k]
                    : dtype == diopi_dtype_float16
                        ? float16_value(((uint16_t *)data[i])[k])
                        : bfloat16_value(((uint16_t *)data[i])[k]);
        if (got != want[k])
          fail_msg("dtype %d, %s[%d]: got %g, want %g", (int)dtype,
                   i ? "key" : "query", k, got, want[k]);
      }
    }
    ops_made_destroy(&m);
  }
}

/* Two tokens of packed (query | key) rows, 2 heads each: query is columns
 * [0, 8) of a (2, 16) storage, key columns [8, 16), each (2, 8) with row
 * stride 16; cos and sin are (2, 1, DIM) views of (DIM, 2) storage (the
 * token dim innermost). Each token turns by its own angles. */
static void rotary_v2_reads_any_strides(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  rotary_v2_fn rotary = (rotary_v2_fn)ops_env_find(e, "diopiRotaryEmbeddingV2");
  float packed[2][16], cos_t[DIM][2], sin_t[DIM][2];
  for (int r = 0; r < 2; r++)
    for (int k = 0; k < 16; k++)
      packed[r][k] = (float)((k * 3 + r * 5) % 7) - 3;
  for (int k = 0; k < DIM; k++)
    for (int r = 0; r < 2; r++) {
      cos_t[k][r] = cosines[(k + r) % DIM];
      sin_t[k][r] = sines[(k + 3 * r) % DIM];
    }
  float *pd, *cd, *sd;
  int64_t s_packed[2] = {2, 16}, s_angles[2] = {DIM, 2};
  ops_made_tensor(&m, diopi_dtype_float32, 2, s_packed, packed, sizeof packed,
                  (void **)&pd);
  ops_made_tensor(&m, diopi_dtype_float32, 2, s_angles, cos_t, sizeof cos_t,
                  (void **)&cd);
  ops_made_tensor(&m, diopi_dtype_float32, 2, s_angles, sin_t, sizeof sin_t,
                  (void **)&sd);
  int64_t shape[2] = {2, 8}, strides[2] = {16, 1};
  int64_t angle_shape[3] = {2, 1, DIM}, angle_strides[3] = {1, 1, 2};
  T query = ops_made_view(&m, pd, diopi_dtype_float32, 2, shape, strides),
    key = ops_made_view(&m, pd + 8, diopi_dtype_float32, 2, shape, strides),
    c = ops_made_view(&m, cd, diopi_dtype_float32, 3, angle_shape,
                      angle_strides),
    s = ops_made_view(&m, sd, diopi_dtype_float32, 3, angle_shape,
                      angle_strides);
  assert_int_equal(rotary(e->ctx, query, key, c, s, DIM), diopiSuccess);
  synchronize(e);
  for (int r = 0; r < 2; r++) {
    float cos_r[DIM], sin_r[DIM];
    for (int k = 0; k < DIM; k++) {
      cos_r[k] = cos_t[k][r];
      sin_r[k] = sin_t[k][r];
    }
    for (int head = 0; head < 4; head++) { /* query's 2, then key's 2 */
      float want[DIM];
      rotate_half_reference(&packed[r][head * DIM], cos_r, sin_r, want);
      for (int k = 0; k < DIM; k++)
        if (pd[r * 16 + head * DIM + k] != want[k])
          fail_msg("token %d head %d [%d]: got %g, want %g", r, head, k,
                   pd[r * 16 + head * DIM + k], want[k]);
    }
  }
  ops_made_destroy(&m);
}

/* Each refusal names the op, the argument, what it expected and what it
 * got, and leaves query and key as they were. */
static void rotary_v2_checks_name_the_argument(void **state) {
  ops_env_t *e = *state;
  ops_made_t m = {.e = e};
  rotary_v2_fn rotary = (rotary_v2_fn)ops_env_find(e, "diopiRotaryEmbeddingV2");
  int64_t s_query[2] = {1, 2 * DIM}, s_six[2] = {1, 6},
          s_angle[3] = {1, 1, DIM}, s_short[3] = {1, 1, HALF};
  float *qd;
  T query = ops_made_tensor(&m, diopi_dtype_float32, 2, s_query, query_x,
                            sizeof query_x, (void **)&qd),
    key = ops_made_tensor(&m, diopi_dtype_float32, 2, s_query, query_x,
                          sizeof query_x, NULL),
    six = ops_made_tensor(&m, diopi_dtype_float32, 2, s_six, NULL, 0, NULL),
    ints = ops_made_tensor(&m, diopi_dtype_int32, 2, s_query, NULL, 0, NULL),
    c = ops_made_tensor(&m, diopi_dtype_float32, 3, s_angle, cosines,
                        sizeof cosines, NULL),
    s = ops_made_tensor(&m, diopi_dtype_float32, 3, s_angle, sines,
                        sizeof sines, NULL),
    short_c =
        ops_made_tensor(&m, diopi_dtype_float32, 3, s_short, NULL, 0, NULL);
  struct {
    T query, key;
    CT cos;
    int64_t dim;
    const char *why[4];
  } bad[] = {
      {query, key, c, 3, {"diopiRotaryEmbeddingV2", "dim", "even", "got 3"}},
      {query, key, c, 0, {"diopiRotaryEmbeddingV2", "dim", "even", "got 0"}},
      {six, key, c, DIM, {"diopiRotaryEmbeddingV2", "query", "x 4", "[1, 6]"}},
      {query,
       ints,
       c,
       DIM,
       {"diopiRotaryEmbeddingV2", "key", "floating", "dtype 4"}},
      {query,
       key,
       short_c,
       DIM,
       {"diopiRotaryEmbeddingV2", "cos", "of 4", "[1, 1, 2]"}},
      {query,
       query,
       c,
       DIM,
       {"diopiRotaryEmbeddingV2", "key", "apart", "query itself"}},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(
        rotary(e->ctx, bad[i].query, bad[i].key, bad[i].cos, s, bad[i].dim),
        diopiErrorOccurred);
    ops_env_expect_error_names(e, bad[i].why, 4);
  }
  synchronize(e);
  assert_memory_equal(qd, query_x, sizeof query_x);
  ops_made_destroy(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rotary_v2_turns_query_and_key_in_place),
      cmocka_unit_test(rotary_v2_reads_any_strides),
      cmocka_unit_test(rotary_v2_checks_name_the_argument),
  };
  return cmocka_run_group_tests(tests, ops_env_setup, ops_env_teardown);
}
