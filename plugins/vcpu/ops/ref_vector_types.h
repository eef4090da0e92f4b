/* GCC vector types of float the register-tiled kernels (ref_gemm_tiles.c,
 * ref_conv_direct.c) build per ISA: 16, 8 and 4 lanes, each also as an
 * unaligned form (aligned(4)) for loads and stores at any float. */
#ifndef BACKPLANE_REF_OPS_VECTOR_TYPES_H_
#define BACKPLANE_REF_OPS_VECTOR_TYPES_H_

typedef float vf16 __attribute__((vector_size(64)));
typedef float vf16u __attribute__((vector_size(64), aligned(4)));
typedef float vf8 __attribute__((vector_size(32)));
typedef float vf8u __attribute__((vector_size(32), aligned(4)));
typedef float vf4 __attribute__((vector_size(16)));
typedef float vf4u __attribute__((vector_size(16), aligned(4)));

#endif /* BACKPLANE_REF_OPS_VECTOR_TYPES_H_ */
