/* cuBLAS is column-major: a row-major C = A * B is the column-major
 * C^T = B^T * A^T, which is what co_gemm asks cuBLAS for. */
#include "co_gemm.h"

#include <limits.h>

#include "co_cublas.h"
#include "co_error.h"

diopiError_t co_matrix(const char *op, const char *arg, void *data,
                       int64_t rows, int64_t cols, int64_t row_stride,
                       int64_t col_stride, co_matrix_t *out) {
  if (rows > INT_MAX || cols > INT_MAX || row_stride > INT_MAX ||
      col_stride > INT_MAX)
    return co_unsupported(op,
                          "%s: %lld x %lld with strides %lld, %lld "
                          "exceeds cuBLAS's int sizes",
                          arg, (long long)rows, (long long)cols,
                          (long long)row_stride, (long long)col_stride);
  *out = (co_matrix_t){.data = data, .rows = (int)rows, .cols = (int)cols};
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= cols)) {
    out->ld =
        (int)(rows == 1 || row_stride < 1 ? (cols > 1 ? cols : 1) : row_stride);
    return diopiSuccess;
  }
  if ((rows == 1 || row_stride == 1) && (cols == 1 || col_stride >= rows)) {
    out->trans = true;
    out->ld =
        (int)(cols == 1 || col_stride < 1 ? (rows > 1 ? rows : 1) : col_stride);
    return diopiSuccess;
  }
  return co_unsupported(op,
                        "%s: a %lld x %lld matrix with strides %lld, %lld: "
                        "neither dim has stride 1",
                        arg, (long long)rows, (long long)cols,
                        (long long)row_stride, (long long)col_stride);
}

diopiError_t co_matrix_of(const char *op, const co_view_t *v, bool column,
                          co_matrix_t *out, int64_t *batch) {
  int n = v->ndim;
  int64_t rows = 1, cols = 1, rs = 1, cs = 1;
  if (n == 1 && column) {
    rows = v->shape[0];
    rs = v->strides[0];
  } else if (n == 1) {
    cols = v->shape[0];
    cs = v->strides[0];
  } else if (n >= 2) {
    rows = v->shape[n - 2];
    cols = v->shape[n - 1];
    rs = v->strides[n - 2];
    cs = v->strides[n - 1];
  }
  diopiError_t e = co_matrix(op, v->name, v->data, rows, cols, rs, cs, out);
  if (e)
    return e;
  /* Leading dims: one batch of evenly spaced matrices. */
  *batch = 1;
  out->batch_stride = 0;
  int64_t expected = 0;
  for (int d = n - 3; d >= 0; d--) {
    if (v->shape[d] == 1)
      continue;
    if (expected && v->strides[d] != expected)
      return co_unsupported(op, "%s: batch dims that are not evenly spaced",
                            v->name);
    if (!expected)
      out->batch_stride = v->strides[d];
    expected = v->strides[d] * v->shape[d];
    *batch *= v->shape[d];
  }
  if (*batch > INT_MAX)
    return co_unsupported(op, "%s: a batch of %lld exceeds cuBLAS's int",
                          v->name, (long long)*batch);
  return diopiSuccess;
}

co_matrix_t co_transposed(co_matrix_t m) {
  int rows = m.rows;
  m.rows = m.cols;
  m.cols = rows;
  m.trans = !m.trans;
  return m;
}

diopiError_t co_gemm(const co_exec_t *x, const co_matrix_t *a,
                     const co_matrix_t *b, const co_matrix_t *c, float alpha,
                     float beta, int batch) {
  if (c->rows == 0 || c->cols == 0 || batch == 0)
    return diopiSuccess;
  const char *reason = NULL;
  const co_cublas_t *cublas = co_cublas(&reason);
  void *handle;
  diopiError_t e = co_cublas_begin(x, &handle);
  if (e)
    return e;
  int op_a = a->trans ? CO_CUBLAS_OP_T : CO_CUBLAS_OP_N;
  int op_b = b->trans ? CO_CUBLAS_OP_T : CO_CUBLAS_OP_N;
  co_cublas_status_t s =
      batch == 1
          ? cublas->sgemm(handle, op_b, op_a, c->cols, c->rows, a->cols, &alpha,
                          b->data, b->ld, a->data, a->ld, &beta, c->data, c->ld)
          : cublas->sgemm_strided_batched(
                handle, op_b, op_a, c->cols, c->rows, a->cols, &alpha, b->data,
                b->ld, b->batch_stride, a->data, a->ld, a->batch_stride, &beta,
                c->data, c->ld, c->batch_stride, batch);
  co_cublas_end(x);
  if (s)
    return co_fail(x->op, "cuBLAS sgemm (%d x %d x %d, batch %d): %s (%d)",
                   c->rows, c->cols, a->cols, batch,
                   cublas->status_string ? cublas->status_string(s) : "error",
                   s);
  return diopiSuccess;
}
