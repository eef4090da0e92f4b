/* The trainer's generator: splitmix64, one 64-bit state word, so that a
 * checkpoint can hold it exactly. */
#ifndef BACKPLANE_TRAIN_RNG_H_
#define BACKPLANE_TRAIN_RNG_H_

#include <stdint.h>

static inline uint64_t train_rng_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 24 bits, as a float needs. */
static inline float train_rng_unit(uint64_t *state) {
  return (float)(train_rng_next(state) >> 40) * (1.0f / 16777216.0f);
}

/* Uniform in [0, n) (n > 0; the bias of a 64-bit modulo is negligible). */
static inline uint32_t train_rng_below(uint64_t *state, uint32_t n) {
  return (uint32_t)(train_rng_next(state) % n);
}

#endif /* BACKPLANE_TRAIN_RNG_H_ */
