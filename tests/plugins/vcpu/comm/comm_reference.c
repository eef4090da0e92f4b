#include "comm_reference.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>

#include <cmocka.h>

const small_float_format F16 = {10, 5};
const small_float_format BF16 = {7, 8};

double ref_decode(small_float_format f, uint16_t bits) {
  int bias = (1 << (f.exponent_bits - 1)) - 1;
  unsigned exponent = (bits >> f.mantissa_bits) & ((1u << f.exponent_bits) - 1);
  unsigned mantissa = bits & ((1u << f.mantissa_bits) - 1);
  double sign = (bits & 0x8000u) ? -1.0 : 1.0;
  if (exponent == (1u << f.exponent_bits) - 1)
    return mantissa ? NAN : sign * INFINITY;
  if (exponent == 0)
    return sign * ldexp(mantissa, 1 - bias - f.mantissa_bits);
  return sign * ldexp(mantissa + (double)(1u << f.mantissa_bits),
                      (int)exponent - bias - f.mantissa_bits);
}

uint16_t ref_encode(small_float_format f, double x) {
  int bias = (1 << (f.exponent_bits - 1)) - 1;
  uint16_t sign = signbit(x) ? 0x8000u : 0;
  unsigned max_exponent = (1u << f.exponent_bits) - 1;
  uint16_t infinity = (uint16_t)(max_exponent << f.mantissa_bits);
  x = fabs(x);
  if (isinf(x))
    return sign | infinity;
  int exponent;
  frexp(x, &exponent); /* x = m * 2^exponent, m in [0.5, 1) */
  int unbiased = exponent - 1;
  if (unbiased < 1 - bias)
    unbiased = 1 - bias; /* subnormal range uses the minimum exponent */
  double scaled = nearbyint(ldexp(x, f.mantissa_bits - unbiased));
  if (scaled >= ldexp(1.0, f.mantissa_bits + 1)) { /* carried into next */
    scaled /= 2;
    unbiased++;
  }
  if (scaled < ldexp(1.0, f.mantissa_bits)) /* subnormal or zero */
    return sign | (uint16_t)scaled;
  if (unbiased + bias >= (int)max_exponent)
    return sign | infinity;
  unsigned biased = (unsigned)(unbiased + bias);
  return sign | (uint16_t)((biased << f.mantissa_bits) |
                           ((unsigned)scaled - (1u << f.mantissa_bits)));
}

size_t ref_dtype_size(C_DataType dtype) {
  switch (dtype) {
  case INT8:
  case UINT8:
    return 1;
  case INT16:
  case UINT16:
  case FLOAT16:
  case BFLOAT16:
    return 2;
  case INT32:
  case UINT32:
  case FLOAT32:
    return 4;
  case INT64:
  case UINT64:
  case FLOAT64:
    return 8;
  default:
    return 0;
  }
}

double ref_load(C_DataType dtype, const void *buf, size_t i) {
  switch (dtype) {
  case INT8:
    return ((const int8_t *)buf)[i];
  case INT16:
    return ((const int16_t *)buf)[i];
  case INT32:
    return ((const int32_t *)buf)[i];
  case INT64:
    return (double)((const int64_t *)buf)[i];
  case UINT8:
    return ((const uint8_t *)buf)[i];
  case UINT16:
    return ((const uint16_t *)buf)[i];
  case UINT32:
    return ((const uint32_t *)buf)[i];
  case UINT64:
    return (double)((const uint64_t *)buf)[i];
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

void ref_store(C_DataType dtype, void *buf, size_t i, double value) {
  switch (dtype) {
  case INT8:
    ((int8_t *)buf)[i] = (int8_t)value;
    break;
  case INT16:
    ((int16_t *)buf)[i] = (int16_t)value;
    break;
  case INT32:
    ((int32_t *)buf)[i] = (int32_t)value;
    break;
  case INT64:
    ((int64_t *)buf)[i] = (int64_t)value;
    break;
  case UINT8:
    ((uint8_t *)buf)[i] = (uint8_t)value;
    break;
  case UINT16:
    ((uint16_t *)buf)[i] = (uint16_t)value;
    break;
  case UINT32:
    ((uint32_t *)buf)[i] = (uint32_t)value;
    break;
  case UINT64:
    ((uint64_t *)buf)[i] = (uint64_t)value;
    break;
  case FLOAT16:
    ((uint16_t *)buf)[i] = ref_encode(F16, value);
    break;
  case BFLOAT16:
    ((uint16_t *)buf)[i] = ref_encode(BF16, value);
    break;
  case FLOAT32:
    ((float *)buf)[i] = (float)value;
    break;
  default:
    ((double *)buf)[i] = value;
  }
}

static bool is_unsigned(C_DataType t) {
  return t == UINT8 || t == UINT16 || t == UINT32 || t == UINT64;
}
static bool is_integer(C_DataType t) {
  return t <= INT64 || t == UINT8;
}

/* Rank r's element i: small values every type holds exactly, whose sums and
 * products of up to four stay exact too. */
double ref_value(C_DataType t, size_t rank, size_t i) {
  size_t mix = i * 7 + rank * 5 + 1;
  return is_unsigned(t) ? (double)(mix % 4) : (double)(mix % 7) - 3.0;
}

double ref_expected_reduction(C_DataType t, C_CCLReduceOp op, size_t n,
                              size_t i) {
  double acc = ref_value(t, 0, i);
  for (size_t r = 1; r < n; r++) {
    double v = ref_value(t, r, i);
    switch (op) {
    case SUM:
    case AVG:
      acc += v;
      break;
    case PRODUCT:
      acc *= v;
      break;
    case MAX:
      acc = fmax(acc, v);
      break;
    case MIN:
      acc = fmin(acc, v);
      break;
    }
  }
  if (op == AVG)
    acc = is_integer(t) ? trunc(acc / (double)n) : acc / (double)n;
  return acc;
}

bool ref_close(C_DataType t, double got, double want) {
  double tolerance = t == FLOAT16    ? fabs(want) * 0x1p-10
                     : t == BFLOAT16 ? fabs(want) * 0x1p-7
                     : t == FLOAT32  ? fabs(want) * 1e-6
                                     : fabs(want) * 1e-12;
  return fabs(got - want) <= tolerance;
}

void ref_expect_close(C_DataType t, double got, double want, const char *what,
                      size_t rank, size_t i) {
  if (!ref_close(t, got, want))
    fail_msg("%s (type %d) rank %zu element %zu: got %g expected %g", what,
             (int)t, rank, i, got, want);
}
