/* The register-tiled float32 GEMM (see ref_gemm_tiles.h). A tile is 4
 * rows of C by two vectors of columns: 8 accumulators, enough to keep both
 * FMA pipes busy through their latency; per step of k it loads two vectors
 * of B's row and broadcasts 4 values of A's column. B is read in place (a
 * tile's columns are one contiguous run per row of B), A's 4 rows stay in
 * the first-level cache. Rows and columns left over from whole tiles go
 * through a plain loop. One build per ISA, each with its own vector width
 * (16, 8 or 4 floats). */
#include "ref_gemm_tiles.h"

#include "ref_isa.h"
#include "ref_pool.h"
#include "ref_vector_types.h"

enum {
  TILE_ROWS = 4,
  BLOCK_COLUMNS = 64 /* a multiple of every ISA's tile width */
};

/* C's rows [i0, m) and columns [j0, j1): plain loops (they vectorise
 * along the row). */
static inline __attribute__((always_inline)) void
edge(int64_t i0, int64_t m, int64_t j0, int64_t j1, int64_t k, const float *a,
     int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
  for (int64_t i = i0; i < m; i++) {
    float *row = c + i * ldc;
    for (int64_t j = j0; j < j1; j++)
      row[j] = 0.0f;
    for (int64_t p = 0; p < k; p++) {
      float x = a[i * lda + p];
      const float *bp = b + p * ldb;
      for (int64_t j = j0; j < j1; j++)
        row[j] += x * bp[j];
    }
  }
}

/* Defines NAME: columns [j0, j1) of C through TILE_ROWS x 2 vectors of
 * type V (L floats; VU its unaligned form), then the edges. */
#define DEFINE_BLOCK(NAME, TARGET, V, VU, L)                                   \
  TARGET static void NAME(int64_t m, int64_t j0, int64_t j1, int64_t k,        \
                          const float *a, int64_t lda, const float *b,         \
                          int64_t ldb, float *c, int64_t ldc) {                \
    int64_t j = j0;                                                            \
    for (; j + 2 * (L) <= j1; j += 2 * (L)) {                                  \
      int64_t i = 0;                                                           \
      for (; i + TILE_ROWS <= m; i += TILE_ROWS) {                             \
        const float *a0 = a + i * lda, *a1 = a0 + lda, *a2 = a1 + lda,         \
                    *a3 = a2 + lda;                                            \
        V c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0},    \
          c30 = {0}, c31 = {0};                                                \
        for (int64_t p = 0; p < k; p++) {                                      \
          const float *bp = b + p * ldb + j;                                   \
          V b0 = *(const VU *)bp, b1 = *(const VU *)(bp + (L));                \
          c00 += a0[p] * b0;                                                   \
          c01 += a0[p] * b1;                                                   \
          c10 += a1[p] * b0;                                                   \
          c11 += a1[p] * b1;                                                   \
          c20 += a2[p] * b0;                                                   \
          c21 += a2[p] * b1;                                                   \
          c30 += a3[p] * b0;                                                   \
          c31 += a3[p] * b1;                                                   \
        }                                                                      \
        float *ci = c + i * ldc + j;                                           \
        *(VU *)ci = c00;                                                       \
        *(VU *)(ci + (L)) = c01;                                               \
        *(VU *)(ci + ldc) = c10;                                               \
        *(VU *)(ci + ldc + (L)) = c11;                                         \
        *(VU *)(ci + 2 * ldc) = c20;                                           \
        *(VU *)(ci + 2 * ldc + (L)) = c21;                                     \
        *(VU *)(ci + 3 * ldc) = c30;                                           \
        *(VU *)(ci + 3 * ldc + (L)) = c31;                                     \
      }                                                                        \
      edge(i, m, j, j + 2 * (L), k, a, lda, b, ldb, c, ldc);                   \
    }                                                                          \
    edge(0, m, j, j1, k, a, lda, b, ldb, c, ldc);                              \
  }

#ifdef REF_ISA_MULTIVERSION
DEFINE_BLOCK(block_avx512, REF_TARGET_AVX512, vf16, vf16u, 16)
DEFINE_BLOCK(block_avx2, REF_TARGET_AVX2, vf8, vf8u, 8)
#endif
DEFINE_BLOCK(block_sse2, , vf4, vf4u, 4)

typedef struct gemm_tiles {
  int64_t m, n, k, lda, ldb, ldc;
  const float *a, *b;
  float *c;
} gemm_tiles_t;

/* Column blocks [begin, end) of BLOCK_COLUMNS each. */
static void run_blocks(void *context, int64_t begin, int64_t end) {
  const gemm_tiles_t *g = context;
  int64_t j0 = begin * BLOCK_COLUMNS, j1 = end * BLOCK_COLUMNS;
  j1 = j1 < g->n ? j1 : g->n;
#ifdef REF_ISA_MULTIVERSION
  ref_isa_t isa = ref_isa();
  if (isa == REF_ISA_AVX512) {
    block_avx512(g->m, j0, j1, g->k, g->a, g->lda, g->b, g->ldb, g->c, g->ldc);
    return;
  }
  if (isa == REF_ISA_AVX2) {
    block_avx2(g->m, j0, j1, g->k, g->a, g->lda, g->b, g->ldb, g->c, g->ldc);
    return;
  }
#endif
  block_sse2(g->m, j0, j1, g->k, g->a, g->lda, g->b, g->ldb, g->c, g->ldc);
}

void ref_gemm_tiles(int64_t m, int64_t n, int64_t k, const float *a,
                    int64_t lda, const float *b, int64_t ldb, float *c,
                    int64_t ldc) {
  gemm_tiles_t g = {m, n, k, lda, ldb, ldc, a, b, c};
  int64_t blocks = (n + BLOCK_COLUMNS - 1) / BLOCK_COLUMNS;
  /* a block of m x 64 x k multiply-adds: a few make a chunk */
  int64_t grain = (1 << 18) / (m * k * BLOCK_COLUMNS + 1) + 1;
  ref_parallel_for(blocks, grain, run_blocks, &g);
}
