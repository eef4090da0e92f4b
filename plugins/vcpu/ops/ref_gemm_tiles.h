/* A float32 GEMM of the library's own for products too small for
 * OpenBLAS's threads to pay (a grouped convolution's per-group product:
 * tens of rows, hundreds of columns): C = A . B for row-major matrices,
 * cut into column blocks that the worker pool shares, each block run by a
 * register-tiled kernel (4 rows by two vectors of columns, the vectors of
 * ref_isa()'s width). Sums are in float, products fused with the adds on
 * FMA machines. Thread-safe for distinct C. */
#ifndef BACKPLANE_REF_OPS_GEMM_TILES_H_
#define BACKPLANE_REF_OPS_GEMM_TILES_H_

#include <stdint.h>

/* C (m x n, row stride ldc) = A (m x k, lda) . B (k x n, ldb); C must not
 * overlap A or B. */
void ref_gemm_tiles(int64_t m, int64_t n, int64_t k, const float *a,
                    int64_t lda, const float *b, int64_t ldb, float *c,
                    int64_t ldc);

#endif /* BACKPLANE_REF_OPS_GEMM_TILES_H_ */
