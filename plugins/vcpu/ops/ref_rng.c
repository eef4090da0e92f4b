/* Counter-based draws: two rounds of a 64-bit finalizer (xor-shift,
 * multiply) over the seed and the counter. */
#include "ref_rng.h"

#include <math.h>
#include <stdatomic.h>

#include "ref_error.h"
#include "ref_isa.h"

static uint64_t mix(uint64_t z) {
  z ^= z >> 33;
  z *= 0xff51afd7ed558ccdull;
  z ^= z >> 33;
  z *= 0xc4ceb9fe1a85ec53ull;
  z ^= z >> 33;
  return z;
}

uint64_t ref_rng_bits(uint64_t seed, uint64_t k) {
  return mix(mix(seed + 0x9e3779b97f4a7c15ull) ^ (k * 0xd1b54a32d192ed03ull));
}

double ref_rng_uniform(uint64_t seed, uint64_t k) {
  return (double)(ref_rng_bits(seed, k) >> 11) * 0x1.0p-53;
}

REF_ISA_BODY void ref_rng_uniforms_body(uint64_t seed, uint64_t k, int64_t n,
                                        double *u) {
  uint64_t base = mix(seed + 0x9e3779b97f4a7c15ull);
  for (int64_t j = 0; j < n; j++) {
    uint64_t bits = mix(base ^ ((k + (uint64_t)j) * 0xd1b54a32d192ed03ull));
    u[j] = (double)(int64_t)(bits >> 11) * 0x1.0p-53;
  }
}
REF_ISA_DISPATCH_VOID(, ref_rng_uniforms,
                      (uint64_t seed, uint64_t k, int64_t n, double *u),
                      (seed, k, n, u))

double ref_rng_normal(uint64_t seed, uint64_t k) {
  double u1 = 1.0 - ref_rng_uniform(seed, k); /* (0, 1]: log is finite */
  double u2 = ref_rng_uniform(seed, k + 1);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

diopiError_t ref_rng_reserve(const char *op, diopiGeneratorHandle_t generator,
                             uint64_t count, uint64_t *seed, uint64_t *offset) {
  static _Atomic uint64_t shared_offset;
  if (!generator) {
    *seed = 0;
    *offset = atomic_fetch_add(&shared_offset, count);
    return diopiSuccess;
  }
  if (diopiGeneratorGetSeedAndOffset(generator, seed, offset) ||
      diopiGeneratorSetSeedAndOffset(generator, *seed, *offset + count))
    return ref_fail(op, "generator: the runtime cannot read or advance it");
  return diopiSuccess;
}
