/* Reductions of the vcpu collectives against host references computed here:
 * integers in wide arithmetic with explicit wrap, floats in double, and
 * float16/bfloat16 through an independent frexp/nearbyint encoder. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plugins/vcpu/comm/comm_reference.h"
#include "plugins/vcpu/reduce/half.h"
#include "plugins/vcpu/reduce/reduce.h"

static uint32_t lcg_state = 12345;
static uint32_t next_random(void) {
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return lcg_state >> 8;
}

/* ---- conversions ------------------------------------------------------- */

static void test_f16_decode_exhaustive(void **state) {
  (void)state;
  for (uint32_t bits = 0; bits < 0x10000u; bits++) {
    double expected = ref_decode(F16, (uint16_t)bits);
    float got = vcpu_comm_f16_to_float((uint16_t)bits);
    if (isnan(expected))
      assert_true(isnan(got));
    else
      assert_true((double)got == expected);
  }
}

static void test_bf16_decode_exhaustive(void **state) {
  (void)state;
  for (uint32_t bits = 0; bits < 0x10000u; bits++) {
    double expected = ref_decode(BF16, (uint16_t)bits);
    float got = vcpu_comm_bf16_to_float((uint16_t)bits);
    if (isnan(expected))
      assert_true(isnan(got));
    else
      assert_true((double)got == expected);
  }
}

static void check_encoders(float value) {
  if (isnan(value)) {
    assert_true(isnan(vcpu_comm_f16_to_float(vcpu_comm_float_to_f16(value))));
    assert_true(isnan(vcpu_comm_bf16_to_float(vcpu_comm_float_to_bf16(value))));
    return;
  }
  assert_int_equal(vcpu_comm_float_to_f16(value), ref_encode(F16, value));
  assert_int_equal(vcpu_comm_float_to_bf16(value), ref_encode(BF16, value));
}

static void test_encode_known_values(void **state) {
  (void)state;
  assert_int_equal(vcpu_comm_float_to_f16(1.0f), 0x3c00);
  assert_int_equal(vcpu_comm_float_to_f16(-2.0f), 0xc000);
  assert_int_equal(vcpu_comm_float_to_f16(65504.0f), 0x7bff);
  assert_int_equal(vcpu_comm_float_to_f16(65520.0f), 0x7c00); /* tie -> inf */
  assert_int_equal(vcpu_comm_float_to_f16(0x1p-24f), 0x0001);
  assert_int_equal(vcpu_comm_float_to_f16(0x1p-25f),
                   0x0000); /* tie -> even 0 */
  assert_int_equal(vcpu_comm_float_to_f16(0x1.8p-24f),
                   0x0002); /* tie -> even */
  assert_int_equal(vcpu_comm_float_to_f16(1.0f + 0x1p-11f), 0x3c00); /* tie */
  assert_int_equal(vcpu_comm_float_to_f16(1.0f + 0x3p-11f),
                   0x3c02); /* tie up */
  assert_int_equal(vcpu_comm_float_to_bf16(1.0f), 0x3f80);
  assert_int_equal(vcpu_comm_float_to_bf16(1.0f + 0x1p-8f), 0x3f80); /* tie */
  assert_int_equal(vcpu_comm_float_to_bf16(1.0f + 0x3p-8f), 0x3f82);
  assert_int_equal(vcpu_comm_float_to_bf16(-INFINITY), 0xff80);
  assert_int_equal(vcpu_comm_float_to_f16(-0.0f), 0x8000);
}

static void test_encode_matches_reference(void **state) {
  (void)state;
  /* Every float whose bits step through the whole range, plus all the
   * halfway points between adjacent float16 values near 1. */
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 4099) {
    uint32_t b = (uint32_t)bits;
    float value;
    memcpy(&value, &b, sizeof value);
    check_encoders(value);
  }
  for (uint32_t m = 0; m < 0x800u; m++)
    check_encoders(1.0f + (float)m * 0x1p-11f);
#if defined(__FLT16_MAX__)
  /* The compiler's own conversion, where it has one, must agree too. */
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 65537) {
    uint32_t b = (uint32_t)bits;
    float value;
    memcpy(&value, &b, sizeof value);
    if (isnan(value))
      continue;
    _Float16 native = (_Float16)value;
    uint16_t native_bits;
    memcpy(&native_bits, &native, sizeof native_bits);
    assert_int_equal(vcpu_comm_float_to_f16(value), native_bits);
  }
#endif
}

/* ---- reductions --------------------------------------------------------- */

static const C_DataType all_dtypes[] = {INT8,    INT16,    INT32,   INT64,
                                        UINT8,   UINT16,   UINT32,  UINT64,
                                        FLOAT16, BFLOAT16, FLOAT32, FLOAT64};
static const C_CCLReduceOp all_ops[] = {SUM, AVG, MAX, MIN, PRODUCT};

static bool is_signed_int(C_DataType t) {
  return t == INT8 || t == INT16 || t == INT32 || t == INT64;
}
static bool is_unsigned_int(C_DataType t) {
  return t == UINT8 || t == UINT16 || t == UINT32 || t == UINT64;
}

/* Element i of an integer buffer, sign- or zero-extended into 64 bits. */
static uint64_t load_int(C_DataType t, const void *buf, size_t i) {
  switch (t) {
  case INT8:
    return (uint64_t)(int64_t)((const int8_t *)buf)[i];
  case INT16:
    return (uint64_t)(int64_t)((const int16_t *)buf)[i];
  case INT32:
    return (uint64_t)(int64_t)((const int32_t *)buf)[i];
  case INT64:
    return (uint64_t)((const int64_t *)buf)[i];
  case UINT8:
    return ((const uint8_t *)buf)[i];
  case UINT16:
    return ((const uint16_t *)buf)[i];
  case UINT32:
    return ((const uint32_t *)buf)[i];
  default:
    return ((const uint64_t *)buf)[i];
  }
}

/* Sign-extends the low `bytes` bytes of v. */
static int64_t sign_extend(uint64_t v, size_t bytes) {
  if (bytes == 8)
    return (int64_t)v;
  uint64_t mask = (uint64_t)1 << (8 * bytes - 1);
  v &= ((uint64_t)1 << (8 * bytes)) - 1;
  return (int64_t)((v ^ mask) - mask);
}

static double load_float(C_DataType t, const void *buf, size_t i) {
  switch (t) {
  case FLOAT16:
    return ref_decode(F16, ((const uint16_t *)buf)[i]);
  case BFLOAT16:
    return ref_decode(BF16, ((const uint16_t *)buf)[i]);
  case FLOAT32:
    return ((const float *)buf)[i];
  default:
    return ((const double *)buf)[i];
  }
}

static void fill_random(C_DataType t, void *buf, size_t count,
                        C_CCLReduceOp op) {
  size_t size = vcpu_comm_dtype_size(t);
  for (size_t i = 0; i < count; i++) {
    uint32_t r = next_random();
    /* Small magnitudes for products so floats stay finite and exact-ish. */
    int small = (int)(r % 7) - 3;
    double real = ((int)(r % 257) - 128) / 32.0;
    if (op == PRODUCT)
      real = small == 0 ? 1.0 : small / 2.0;
    switch (t) {
    case FLOAT16:
      ((uint16_t *)buf)[i] = ref_encode(F16, real);
      break;
    case BFLOAT16:
      ((uint16_t *)buf)[i] = ref_encode(BF16, real);
      break;
    case FLOAT32:
      ((float *)buf)[i] = (float)real + (float)(r % 1000) * 1e-6f;
      break;
    case FLOAT64:
      ((double *)buf)[i] = real + (r % 1000) * 1e-9;
      break;
    default: {
      uint64_t wide = ((uint64_t)next_random() << 40) ^
                      ((uint64_t)next_random() << 16) ^ next_random();
      if (op == PRODUCT && r % 2)
        wide = (uint64_t)(int64_t)small;
      memcpy((char *)buf + i * size, &wide, size); /* little endian low bytes */
    }
    }
  }
}

static void check_integer_result(C_DataType t, C_CCLReduceOp op,
                                 void *const *srcs, size_t nsrc,
                                 const void *out, size_t count) {
  size_t size = vcpu_comm_dtype_size(t);
  uint64_t mask = size == 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * size)) - 1);
  for (size_t i = 0; i < count; i++) {
    uint64_t acc = load_int(t, srcs[0], i);
    for (size_t s = 1; s < nsrc; s++) {
      uint64_t v = load_int(t, srcs[s], i);
      switch (op) {
      case SUM:
      case AVG:
        acc += v;
        break;
      case PRODUCT:
        acc *= v;
        break;
      case MAX:
        if (is_signed_int(t) ? (int64_t)v > (int64_t)acc : v > acc)
          acc = v;
        break;
      case MIN:
        if (is_signed_int(t) ? (int64_t)v < (int64_t)acc : v < acc)
          acc = v;
        break;
      }
    }
    if (op == AVG) {
      if (is_signed_int(t))
        acc = (uint64_t)(sign_extend(acc, size) / (int64_t)nsrc);
      else
        acc = (acc & mask) / nsrc;
    }
    assert_int_equal(load_int(t, out, i) & mask, acc & mask);
  }
}

static void check_float_result(C_DataType t, C_CCLReduceOp op,
                               void *const *srcs, size_t nsrc, const void *out,
                               size_t count) {
  for (size_t i = 0; i < count; i++) {
    double acc = load_float(t, srcs[0], i);
    double magnitude = fabs(acc);
    for (size_t s = 1; s < nsrc; s++) {
      double v = load_float(t, srcs[s], i);
      magnitude += fabs(v);
      switch (op) {
      case SUM:
      case AVG:
        acc += v;
        break;
      case PRODUCT:
        acc *= v;
        break;
      case MAX:
        acc = v > acc ? v : acc;
        break;
      case MIN:
        acc = v < acc ? v : acc;
        break;
      }
    }
    if (op == AVG)
      acc /= (double)nsrc;
    if (op == PRODUCT)
      magnitude = fabs(acc);
    double got = load_float(t, out, i);
    double tolerance;
    switch (t) {
    case FLOAT16:
      tolerance = fmax(magnitude * 0x1p-10, 0x1p-24); /* one ulp */
      break;
    case BFLOAT16:
      tolerance = fmax(magnitude * 0x1p-7, 0x1p-126);
      break;
    case FLOAT32:
      tolerance = magnitude * 4e-7 + 1e-30;
      break;
    default:
      tolerance = magnitude * 1e-15 + 1e-300;
    }
    if (fabs(got - acc) > tolerance)
      fail_msg("%s %s element %zu: got %.9g expected %.9g",
               vcpu_comm_dtype_name(t), vcpu_comm_op_name(op), i, got, acc);
  }
}

static void run_case(C_DataType t, C_CCLReduceOp op, size_t nsrc, size_t count,
                     bool in_place) {
  size_t size = vcpu_comm_dtype_size(t);
  void *srcs[4];
  void *copies[4];
  for (size_t s = 0; s < nsrc; s++) {
    srcs[s] = malloc(count * size + 1);
    copies[s] = malloc(count * size + 1);
    fill_random(t, srcs[s], count, op);
    memcpy(copies[s], srcs[s], count * size);
  }
  void *out = in_place ? srcs[nsrc - 1] : malloc(count * size + 1);
  assert_true(vcpu_comm_reduce(out, (const void *const *)srcs, nsrc, count, t,
                               op, nsrc));
  if (is_signed_int(t) || is_unsigned_int(t))
    check_integer_result(t, op, copies, nsrc, out, count);
  else
    check_float_result(t, op, copies, nsrc, out, count);
  for (size_t s = 0; s + (in_place ? 1 : 0) < nsrc; s++) /* inputs untouched */
    assert_memory_equal(srcs[s], copies[s], count * size);
  if (!in_place)
    free(out);
  for (size_t s = 0; s < nsrc; s++) {
    free(srcs[s]);
    free(copies[s]);
  }
}

static void test_every_dtype_op_count(void **state) {
  (void)state;
  static const size_t counts[] = {0, 1, 7, 1023, 1024, 1025, 4099};
  for (size_t d = 0; d < sizeof all_dtypes / sizeof *all_dtypes; d++)
    for (size_t o = 0; o < sizeof all_ops / sizeof *all_ops; o++)
      for (size_t nsrc = 1; nsrc <= 4; nsrc++)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
          run_case(all_dtypes[d], all_ops[o], nsrc, counts[c], c % 2 == 1);
}

static void test_known_integer_values(void **state) {
  (void)state;
  int8_t a8[] = {127, -128, 100, -7};
  int8_t b8[] = {1, -1, 100, 0};
  int8_t out8[4];
  const void *srcs8[] = {a8, b8};
  assert_true(vcpu_comm_reduce(out8, srcs8, 2, 4, INT8, SUM, 1));
  assert_int_equal(out8[0], -128); /* wraps like NCCL */
  assert_int_equal(out8[1], 127);
  assert_int_equal(out8[2], -56);
  assert_int_equal(out8[3], -7);
  assert_true(vcpu_comm_reduce(out8, srcs8, 2, 4, INT8, AVG, 2));
  assert_int_equal(out8[3], -3); /* truncates toward zero */
  int32_t a32[] = {-3, 5}, b32[] = {4, 9};
  int32_t out32[2];
  const void *srcs32[] = {a32, b32};
  assert_true(vcpu_comm_reduce(out32, srcs32, 2, 2, INT32, MIN, 1));
  assert_int_equal(out32[0], -3);
  assert_int_equal(out32[1], 5);
  assert_true(vcpu_comm_reduce(out32, srcs32, 2, 2, INT32, PRODUCT, 1));
  assert_int_equal(out32[0], -12);
  assert_int_equal(out32[1], 45);
  uint64_t big[] = {UINT64_MAX}, two[] = {2};
  uint64_t out64[1];
  const void *srcs64[] = {big, two};
  assert_true(vcpu_comm_reduce(out64, srcs64, 2, 1, UINT64, MAX, 1));
  assert_true(out64[0] == UINT64_MAX);
}

static void test_partial_avg_divisor_one(void **state) {
  (void)state;
  float a[] = {1.0f, 3.0f}, b[] = {2.0f, 5.0f};
  float out[2];
  const void *srcs[] = {a, b};
  assert_true(vcpu_comm_reduce(out, srcs, 2, 2, FLOAT32, AVG, 1));
  assert_true(out[0] == 3.0f && out[1] == 8.0f);
  assert_true(vcpu_comm_reduce(out, srcs, 2, 2, FLOAT32, AVG, 4));
  assert_true(out[0] == 0.75f && out[1] == 2.0f);
}

static void test_rejects_unsupported(void **state) {
  (void)state;
  float a[1] = {1.0f}, out[1] = {7.0f};
  const void *srcs[] = {a};
  assert_false(vcpu_comm_reduce(out, srcs, 1, 1, BOOL, SUM, 1));
  assert_false(vcpu_comm_reduce(out, srcs, 1, 1, COMPLEX64, SUM, 1));
  assert_false(vcpu_comm_reduce(out, srcs, 1, 1, (C_DataType)99, SUM, 1));
  assert_false(vcpu_comm_reduce(out, srcs, 1, 1, FLOAT32, (C_CCLReduceOp)5, 1));
  assert_false(vcpu_comm_reduce(out, srcs, 0, 1, FLOAT32, SUM, 1));
  assert_true(out[0] == 7.0f);
  assert_int_equal(vcpu_comm_dtype_size(BOOL), 0);
  assert_int_equal(vcpu_comm_dtype_size(BFLOAT16), 2);
  assert_int_equal(vcpu_comm_dtype_size(UINT64), 8);
  assert_string_equal(vcpu_comm_dtype_name(BFLOAT16), "bfloat16");
  assert_string_equal(vcpu_comm_op_name(PRODUCT), "prod");
  assert_false(vcpu_comm_op_valid((C_CCLReduceOp)-1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f16_decode_exhaustive),
      cmocka_unit_test(test_bf16_decode_exhaustive),
      cmocka_unit_test(test_encode_known_values),
      cmocka_unit_test(test_encode_matches_reference),
      cmocka_unit_test(test_every_dtype_op_count),
      cmocka_unit_test(test_known_integer_values),
      cmocka_unit_test(test_partial_avg_divisor_one),
      cmocka_unit_test(test_rejects_unsupported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
