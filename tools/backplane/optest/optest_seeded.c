/* The seeded generator of optest_seeded.h. */
#include "optest_seeded.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

uint64_t optest_splitmix(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

size_t optest_sample_position(uint64_t seed, uint64_t k, size_t numel) {
  return (size_t)(optest_splitmix(seed, k) % (uint64_t)numel);
}

static double draw(const optest_seed_t *s, diopiDtype_t dtype, uint64_t z,
                   int *bad) {
  unsigned b0 = z & 255, b1 = (z >> 8) & 255, b2 = (z >> 16) & 255,
           b3 = (z >> 24) & 255;
  unsigned sum = b0 + b1 + b2 + b3;
  bool half = dtype == diopi_dtype_float16 || dtype == diopi_dtype_bfloat16;
  switch ((optest_gen_t)s->gen) {
  case OPTEST_GEN_NORMAL:
  case OPTEST_GEN_POSITIVE: {
    double v = dtype == diopi_dtype_bfloat16 ? ((double)(sum / 4) - 127) / 32
                                             : ((double)sum - 510) / 128;
    return s->gen == OPTEST_GEN_POSITIVE ? fabs(v) : v;
  }
  case OPTEST_GEN_UNIFORM:
    return half ? b0 / 256.0 : (b0 * 256.0 + b1) / 65536.0;
  case OPTEST_GEN_RANGE:
    return s->low + ((double)s->high - s->low) *
                        (half ? b0 / 256.0 : (b0 * 256.0 + b1) / 65536.0);
  case OPTEST_GEN_MASK:
    return (double)(z & 1);
  case OPTEST_GEN_INTEGERS:
    if (s->high <= s->low) {
      *bad = 1;
      return 0;
    }
    return (double)s->low + (double)(z % (uint64_t)((int64_t)s->high - s->low));
  case OPTEST_GEN_CONSTANT:
    return s->value;
  }
  *bad = 1;
  return 0;
}

/* An exactly representable double as IEEE half or bfloat16 bits. */
static uint16_t half_bits(double v) {
  float f = (float)v;
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  if (f == 0)
    return sign;
  int e;
  double m = frexp(fabs(v), &e); /* v = m * 2^e, m in [0.5, 1) */
  if (e > -14)                   /* normal: exponent e - 1, 10 fraction bits */
    return (uint16_t)(sign | (uint16_t)((e - 1 + 15) << 10) |
                      (uint16_t)((uint32_t)ldexp(m, 11) & 0x3ff));
  return (uint16_t)(sign | (uint16_t)ldexp(fabs(v), 24)); /* subnormal */
}

static uint16_t bf16_bits(double v) {
  float f = (float)v;
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  return (uint16_t)(x >> 16);
}

int optest_seeded_fill(const optest_seed_t *seed, diopiDtype_t dtype, size_t n,
                       void *out) {
  size_t elem = bp_ops_dtype_size(dtype);
  int bad = 0;
  for (size_t i = 0; i < n && !bad; i++) {
    double v = draw(seed, dtype, optest_splitmix(seed->seed, i), &bad);
    int64_t k = (int64_t)trunc(v);
    unsigned char *p = (unsigned char *)out + i * elem;
    union {
      int8_t i8;
      int16_t i16;
      int32_t i32;
      int64_t i64;
      uint16_t u16;
      float f32;
      double f64;
    } u;
    switch (dtype) {
    case diopi_dtype_bool:
      u.i8 = v != 0;
      break;
    case diopi_dtype_int8:
    case diopi_dtype_uint8:
      u.i8 = (int8_t)(uint8_t)(uint64_t)k;
      break;
    case diopi_dtype_int16:
    case diopi_dtype_uint16:
      u.i16 = (int16_t)(uint16_t)(uint64_t)k;
      break;
    case diopi_dtype_int32:
    case diopi_dtype_uint32:
      u.i32 = (int32_t)(uint32_t)(uint64_t)k;
      break;
    case diopi_dtype_int64:
    case diopi_dtype_uint64:
      u.i64 = k;
      break;
    case diopi_dtype_float16:
      u.u16 = half_bits(v);
      break;
    case diopi_dtype_bfloat16:
      u.u16 = bf16_bits(v);
      break;
    case diopi_dtype_float32:
      u.f32 = (float)v;
      break;
    case diopi_dtype_float64:
      u.f64 = v;
      break;
    default:
      return -1;
    }
    memcpy(p, &u, elem);
  }
  return bad ? -1 : 0;
}
