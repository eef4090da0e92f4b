/* DIOPI's large configured shapes without storing them: a case file may
 * hold a tensor as a seed (its storage regenerated here, bit for bit the
 * values scripts/make_diopi_config_cases.py drew) and an output as a sample
 * (its values at seeded positions, its sum and the sum of its magnitudes).
 * The script implements the same generator; both are defined only by the
 * integer arithmetic below, so no platform's libm enters. */
#ifndef BACKPLANE_TOOLS_OPTEST_SEEDED_H_
#define BACKPLANE_TOOLS_OPTEST_SEEDED_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/ops.h"

/* How a seeded tensor's values are drawn from z = optest_splitmix(seed, i),
 * element i of the storage, its bytes b0..b3 (lowest first):
 *   NORMAL    (b0+b1+b2+b3 - 510) / 128; bfloat16 ((b0+b1+b2+b3)/4 - 127)/32
 *   UNIFORM   (b0*256 + b1) / 65536; 16-bit floats b0 / 256
 *   POSITIVE  |NORMAL|
 *   MASK      z & 1
 *   INTEGERS  low + z mod (high - low)
 *   CONSTANT  value
 *   RANGE     low + (high - low) * UNIFORM (DIOPI's uniform(low, high); the
 *             script stores only those exact in their dtype)
 * Integer dtypes take the value truncated toward zero (wrapping to the
 * dtype's width), bool its being nonzero. Every float value is exact in its
 * dtype. */
typedef enum optest_gen {
  OPTEST_GEN_NORMAL = 0,
  OPTEST_GEN_UNIFORM = 1,
  OPTEST_GEN_POSITIVE = 2,
  OPTEST_GEN_MASK = 3,
  OPTEST_GEN_INTEGERS = 4,
  OPTEST_GEN_CONSTANT = 5,
  OPTEST_GEN_RANGE = 6,
} optest_gen_t;

/* A seeded tensor: 28 bytes in the file (seed u64, gen u32, low i32,
 * high i32, value f64), in place of its storage. */
typedef struct optest_seed {
  uint64_t seed;
  uint32_t gen;
  int32_t low, high;
  double value;
} optest_seed_t;

/* A sampled output: 32 bytes in the file (seed u64, count u64, sum f64,
 * abs_sum f64), followed by the `count` expected values at positions
 * optest_sample_position(seed, k, numel), k = 0..count-1. */
typedef struct optest_sample {
  uint64_t seed, count;
  double sum, abs_sum;
} optest_sample_t;

/* SplitMix64's output for counter i + 1 of `seed`. */
uint64_t optest_splitmix(uint64_t seed, uint64_t i);

/* Writes elements [0, n) of a seeded storage of `dtype` into out (n
 * elements of the dtype's size). Returns 0, or -1 for an unknown gen or
 * an empty INTEGERS range. */
int optest_seeded_fill(const optest_seed_t *seed, diopiDtype_t dtype, size_t n,
                       void *out);

/* The flat index of sample k of an output of `numel` (> 0) elements. */
size_t optest_sample_position(uint64_t seed, uint64_t k, size_t numel);

#endif /* BACKPLANE_TOOLS_OPTEST_SEEDED_H_ */
