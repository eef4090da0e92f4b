/* Row-major GEMM through cuBLAS: C = alpha * A * B + beta * C for a batch
 * of matrices, each described by its memory (row or column major, leading
 * dimension, batch stride), so transposed views need no copy. */
#ifndef BACKPLANE_CUDA_OPS_GEMM_H_
#define BACKPLANE_CUDA_OPS_GEMM_H_

#include <stdbool.h>
#include <stdint.h>

#include "co_exec.h"

typedef struct co_matrix {
  float *data;
  int rows, cols;         /* the logical matrix */
  int ld;                 /* elements between rows (columns if trans) */
  bool trans;             /* stored column-major */
  long long batch_stride; /* elements between batch entries; 0: shared */
} co_matrix_t;

/* The rows x cols matrix at `data` whose element (i, j) is at i *
 * row_stride + j * col_stride. diopiNoImplement (naming `arg`) unless one
 * stride is 1 (cuBLAS takes no other layout) or the sizes pass int. */
diopiError_t co_matrix(const char *op, const char *arg, void *data,
                       int64_t rows, int64_t cols, int64_t row_stride,
                       int64_t col_stride, co_matrix_t *out);
/* A view's last two dims as a matrix (a 1-d view: one row, or one column
 * when `column`); the dims before them are a batch of `batch` entries
 * `batch_stride` apart, which they must be (diopiNoImplement otherwise). */
diopiError_t co_matrix_of(const char *op, const co_view_t *v, bool column,
                          co_matrix_t *out, int64_t *batch);

/* c = alpha * a * b + beta * c, `batch` times; c must be row-major (not
 * trans) with its own batch stride. */
diopiError_t co_gemm(const co_exec_t *x, const co_matrix_t *a,
                     const co_matrix_t *b, const co_matrix_t *c, float alpha,
                     float beta, int batch);
/* The matrix transposed (the same memory). */
co_matrix_t co_transposed(co_matrix_t m);

#endif /* BACKPLANE_CUDA_OPS_GEMM_H_ */
