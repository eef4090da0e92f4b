/* addmv: out = beta * input + alpha * (mat @ vec), input broadcast to
 * [rows]; an extension op (DIOPI 1.0 declares none) with diopiAddmm's
 * conventions (NULL beta or alpha: 1; beta 0 ignores input, NaN and Inf
 * included, as PyTorch). Floating dtypes, any strides: the product goes
 * through diopiMatmul into a context tensor, then one elementwise pass. */
#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_add_product.h"
#include "ref_error.h"

static diopiError_t matrix_vector_shape(const char *op, const ref_view_t *m,
                                        const ref_view_t *v, int64_t *shape,
                                        int *ndim) {
  if (m->ndim != 2 || v->ndim != 1)
    return ref_fail(op, "mat, vec: expected 2 and 1 dims, got %d and %d",
                    m->ndim, v->ndim);
  if (m->shape[1] != v->shape[0])
    return ref_fail(op, "vec: expected shape [%lld], got [%lld]",
                    (long long)m->shape[1], (long long)v->shape[0]);
  shape[0] = m->shape[0];
  *ndim = 1;
  return diopiSuccess;
}

static diopiError_t matrix_vector(diopiContextHandle_t ctx, const char *op,
                                  diopiConstTensorHandle_t out,
                                  diopiConstTensorHandle_t mat,
                                  diopiConstTensorHandle_t vec,
                                  diopiTensorHandle_t product) {
  (void)op;
  (void)out;
  return diopiMatmul(ctx, product, mat, vec);
}

/* grad_mat[i, j] = alpha * grad[i] * vec[j];
 * grad_vec[j] = alpha * sum over i of mat[i, j] * grad[i]. */
static diopiError_t
matrix_vector_grads(const char *op, const ref_view_t *go, const ref_view_t *m,
                    const ref_view_t *v, const ref_view_t *grad_mat,
                    const ref_view_t *grad_vec, double alpha,
                    ref_fold_t *fold_mat, ref_fold_t *fold_vec) {
  int64_t rows = m->shape[0], cols = m->shape[1];
  diopiError_t err = diopiSuccess;
  if (grad_mat) {
    int64_t shape[2] = {rows, cols};
    int64_t along_rows[2] = {go->strides[0], 0},
            along_cols[2] = {0, v->strides[0]};
    ref_view_t g = ref_restrided(go, 2, shape, along_rows);
    ref_view_t x = ref_restrided(v, 2, shape, along_cols);
    err = ref_scaled_product_sum(op, "grad_mat", grad_mat, &g, &x, alpha,
                                 fold_mat);
  }
  if (!err && grad_vec) {
    int64_t shape[2] = {cols, rows}, column[2] = {cols, 1};
    int64_t transposed[2] = {m->strides[1], m->strides[0]};
    int64_t repeated[2] = {0, go->strides[0]};
    int64_t kept[2] = {grad_vec->strides[0], 0};
    ref_view_t mt = ref_restrided(m, 2, shape, transposed);
    ref_view_t g = ref_restrided(go, 2, shape, repeated);
    ref_view_t out = ref_restrided(grad_vec, 2, column, kept);
    err =
        ref_scaled_product_sum(op, "grad_vec", &out, &mt, &g, alpha, fold_vec);
  }
  return err;
}

static const ref_product_kind_t addmv = {"mat", "vec", matrix_vector_shape,
                                         matrix_vector, matrix_vector_grads};

REF_EXPORT diopiError_t diopiAddmv(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out,
                                   diopiConstTensorHandle_t input,
                                   diopiConstTensorHandle_t mat,
                                   diopiConstTensorHandle_t vec,
                                   const diopiScalar_t *beta,
                                   const diopiScalar_t *alpha) {
  return ref_add_product(ctx, "diopiAddmv", &addmv, out, input, mat, vec, beta,
                         alpha);
}

REF_EXPORT diopiError_t diopiAddmvInp(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t input,
                                      diopiConstTensorHandle_t mat,
                                      diopiConstTensorHandle_t vec,
                                      const diopiScalar_t *beta,
                                      const diopiScalar_t *alpha) {
  return ref_add_product(ctx, "diopiAddmvInp", &addmv, input, input, mat, vec,
                         beta, alpha);
}

REF_EXPORT diopiError_t
diopiAddmvBackward(diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
                   diopiTensorHandle_t grad_mat, diopiTensorHandle_t grad_vec,
                   diopiConstTensorHandle_t grad_output,
                   diopiConstTensorHandle_t mat, diopiConstTensorHandle_t vec,
                   const diopiScalar_t *beta, const diopiScalar_t *alpha) {
  return ref_add_product_backward(ctx, "diopiAddmvBackward", &addmv, grad_input,
                                  grad_mat, grad_vec, grad_output, mat, vec,
                                  beta, alpha);
}
