/* Counter-based random numbers for the random ops: draw k of a call is a
 * pure function of (seed, offset + k), so a task can split its elements
 * across threads and still produce what one thread would, and runs repeat
 * exactly for a given generator state. */
#ifndef BACKPLANE_REF_OPS_RNG_H_
#define BACKPLANE_REF_OPS_RNG_H_

#include <stdint.h>

#include <diopi/diopirt.h>

/* Reserves `count` draws for one call: the generator's seed and offset
 * (which it advances by count), or, without a generator, a library-wide
 * counter's. On the caller's thread, so calls in stream order draw
 * disjoint numbers. Fails naming `op` if the runtime cannot read or
 * advance the generator. */
diopiError_t ref_rng_reserve(const char *op, diopiGeneratorHandle_t generator,
                             uint64_t count, uint64_t *seed, uint64_t *offset);

/* 64 random bits for counter `k` under `seed`. */
uint64_t ref_rng_bits(uint64_t seed, uint64_t k);
/* A uniform double in [0, 1) with 53 random bits. */
double ref_rng_uniform(uint64_t seed, uint64_t k);
/* u[j] = ref_rng_uniform(seed, k + j) for j < n, vectorized. */
void ref_rng_uniforms(uint64_t seed, uint64_t k, int64_t n, double *u);
/* A standard normal: Box-Muller on draws k and k + 1. */
double ref_rng_normal(uint64_t seed, uint64_t k);

#endif /* BACKPLANE_REF_OPS_RNG_H_ */
