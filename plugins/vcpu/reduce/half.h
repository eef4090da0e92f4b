/* float16 (IEEE binary16) and bfloat16 <-> float conversions for the
 * collective reductions. Narrowing rounds to nearest, ties to even; NaN stays
 * NaN (quiet), infinities and subnormals are exact. Pure functions,
 * thread-safe. */
#ifndef BACKPLANE_VCPU_COMM_HALF_H_
#define BACKPLANE_VCPU_COMM_HALF_H_

#include <stdint.h>
#include <string.h>

static inline uint32_t vcpu_comm_float_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static inline float vcpu_comm_float_from_bits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static inline float vcpu_comm_bf16_to_float(uint16_t bf16) {
  return vcpu_comm_float_from_bits((uint32_t)bf16 << 16);
}

static inline uint16_t vcpu_comm_float_to_bf16(float value) {
  uint32_t bits = vcpu_comm_float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN: keep the sign, force quiet */
    return (uint16_t)((bits >> 16) | 0x0040u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

static inline float vcpu_comm_f16_to_float(uint16_t f16) {
  uint32_t sign = (uint32_t)(f16 & 0x8000u) << 16;
  uint32_t exponent = (f16 >> 10) & 0x1fu;
  uint32_t mantissa = f16 & 0x3ffu;
  if (exponent == 0x1fu) /* infinity or NaN */
    return vcpu_comm_float_from_bits(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) { /* zero or subnormal: mantissa * 2^-24, exact */
    float magnitude = (float)mantissa * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return vcpu_comm_float_from_bits(sign | ((exponent + 112u) << 23) |
                                   (mantissa << 13));
}

static inline uint16_t vcpu_comm_float_to_f16(float value) {
  uint32_t bits = vcpu_comm_float_bits(value);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) /* NaN */
    return (uint16_t)(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u) /* rounds to >= 65520: infinity */
    return (uint16_t)(sign | 0x7c00u);
  if (magnitude < 0x38800000u) { /* below 2^-14: subnormal or zero */
    /* Adding 0.5 aligns the f16 subnormal grid (2^-24) to the float's last
     * mantissa bit, so the FPU rounds to nearest even for us. */
    float aligned = vcpu_comm_float_from_bits(magnitude) + 0.5f;
    return (uint16_t)(sign | (vcpu_comm_float_bits(aligned) - 0x3f000000u));
  }
  uint32_t odd = (magnitude >> 13) & 1u;
  magnitude += 0xc8000fffu + odd; /* rebias exponent (-112 << 23), round */
  return (uint16_t)(sign | (magnitude >> 13));
}

#endif /* BACKPLANE_VCPU_COMM_HALF_H_ */
