/* addmv: out = beta * input + alpha * (mat @ vec), input broadcast to
 * [rows]; an extension op (DIOPI 1.0 declares none) with diopiAddmm's
 * conventions (NULL beta or alpha: 1; beta 0 ignores input, NaN and Inf
 * included, as PyTorch). Floating dtypes, any strides: the product goes
 * through diopiMatmul into a context tensor, then one elementwise pass. */
#include <diopi/functions.h>

#include "ref_add_product.h"
#include "ref_error.h"
#include "ref_ew_call.h"

static diopiError_t
addmv(diopiContextHandle_t ctx, const char *op, diopiConstTensorHandle_t out,
      diopiConstTensorHandle_t input, diopiConstTensorHandle_t mat,
      diopiConstTensorHandle_t vec, const diopiScalar_t *beta,
      const diopiScalar_t *alpha) {
  ref_view_t o, x, m, v;
  ref_arg_t args[] = {{"out", out, &o, NULL},
                      {"input", input, &x, NULL},
                      {"mat", mat, &m, NULL},
                      {"vec", vec, &v, NULL}};
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (err)
    return err;
  if (m.ndim != 2 || v.ndim != 1)
    return ref_fail(op, "mat, vec: expected 2 and 1 dims, got %d and %d",
                    m.ndim, v.ndim);
  if (m.shape[1] != v.shape[0])
    return ref_fail(op, "vec: expected shape [%lld], got [%lld]",
                    (long long)m.shape[1], (long long)v.shape[0]);
  int64_t rows = m.shape[0];
  diopiTensorHandle_t product;
  if ((err = ref_expect_shape(op, "out", &o, &rows, 1)) ||
      (err = ref_expect_kind(op, "out", &o, REF_OUT_FLOATING)) ||
      (err = ref_expect_kind(op, "mat", &m, REF_OUT_FLOATING)) ||
      (err = ref_product_tensor(ctx, op, out, &rows, 1, &product)) ||
      (err = diopiMatmul(ctx, product, mat, vec)))
    return err;
  return ref_add_product(ctx, op, out, input, product, ref_scalar(beta, 1),
                         ref_scalar(alpha, 1));
}

REF_EXPORT diopiError_t diopiAddmv(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out,
                                   diopiConstTensorHandle_t input,
                                   diopiConstTensorHandle_t mat,
                                   diopiConstTensorHandle_t vec,
                                   const diopiScalar_t *beta,
                                   const diopiScalar_t *alpha) {
  return addmv(ctx, "diopiAddmv", out, input, mat, vec, beta, alpha);
}

REF_EXPORT diopiError_t diopiAddmvInp(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t input,
                                      diopiConstTensorHandle_t mat,
                                      diopiConstTensorHandle_t vec,
                                      const diopiScalar_t *beta,
                                      const diopiScalar_t *alpha) {
  return addmv(ctx, "diopiAddmvInp", input, input, mat, vec, beta, alpha);
}
