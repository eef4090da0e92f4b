/* Element reads for comparison. */
#include "optest_compare.h"

#include <math.h>
#include <string.h>

static double half(uint16_t h) {
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v = exp == 0    ? ldexp(mant, -24)
             : exp == 31 ? (mant ? NAN : INFINITY)
                         : ldexp(mant + 1024, exp - 25);
  return h & 0x8000 ? -v : v;
}

static double load(diopiDtype_t d, const unsigned char *base, size_t i) {
  const unsigned char *p = base + i * bp_ops_dtype_size(d);
  union {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
  } v;
  memcpy(&v, p, bp_ops_dtype_size(d));
  switch (d) {
  case diopi_dtype_int8:
    return v.i8;
  case diopi_dtype_uint8:
    return v.u8;
  case diopi_dtype_bool:
    return v.u8 != 0;
  case diopi_dtype_int16:
    return v.i16;
  case diopi_dtype_uint16:
    return v.u16;
  case diopi_dtype_int32:
    return v.i32;
  case diopi_dtype_uint32:
    return v.u32;
  case diopi_dtype_int64:
    return (double)v.i64;
  case diopi_dtype_uint64:
    return (double)v.u64;
  case diopi_dtype_float32:
    return v.f32;
  case diopi_dtype_float64:
    return v.f64;
  case diopi_dtype_float16:
    return half(v.u16);
  case diopi_dtype_bfloat16: {
    uint32_t bits = (uint32_t)v.u16 << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
  }
  default:
    return NAN;
  }
}

void optest_compare(diopiDtype_t dtype, const void *expected,
                    const void *actual, size_t n, double atol, double rtol,
                    optest_mismatch_t *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < n; i++) {
    double e = load(dtype, expected, i), a = load(dtype, actual, i);
    double diff = fabs(a - e);
    bool close = (isnan(e) && isnan(a)) || diff <= atol + rtol * fabs(e) ||
                 (isinf(e) && a == e);
    if (!isnan(diff)) {
      out->max_abs = diff > out->max_abs ? diff : out->max_abs;
      double rel = e != 0 ? diff / fabs(e) : 0;
      out->max_rel = rel > out->max_rel ? rel : out->max_rel;
    }
    if (!close && out->count++ == 0) {
      out->first = i;
      out->expected = e;
      out->actual = a;
    }
  }
}
