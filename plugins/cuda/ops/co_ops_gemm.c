/* The GEMM family through cuBLAS: mm, bmm, addmm, matmul, linear and its
 * backward. float32; transposed and sliced views go to cuBLAS as they are
 * (co_gemm.h). */
#include <string.h>

#include <diopi/functions.h>

#include "co_error.h"
#include "co_gemm.h"
#include "co_strided.h"
#include "kernels/co_kernel_args.h"

static const diopiDtype_t F32 = diopi_dtype_float32;

static diopiError_t expect_ndim(const char *op, const co_view_t *v, int ndim) {
  return v->ndim == ndim ? diopiSuccess
                         : co_fail(op, "%s: expected %d dims, got %d", v->name,
                                   ndim, v->ndim);
}

/* out = a * b (+ beta * out), batched; `k` 0 leaves beta * out. */
static diopiError_t product(const co_exec_t *x, const co_matrix_t *a,
                            const co_matrix_t *b, const co_matrix_t *c,
                            const co_view_t *out, float alpha, float beta,
                            int batch) {
  if (a->cols == 0 && beta == 0)
    return co_fill_view(x, out, 0);
  return co_gemm(x, a, b, c, alpha, beta, batch);
}

/* mm and bmm: [(b,) m, k] x [(b,) k, n] -> [(b,) m, n]. */
static diopiError_t matrix_product(diopiContextHandle_t ctx, const char *op,
                                   int ndim, diopiTensorHandle_t out_t,
                                   diopiConstTensorHandle_t input_t,
                                   diopiConstTensorHandle_t mat2_t) {
  co_view_t out, input, mat2;
  diopiError_t e;
  if ((e = co_view(op, "input", input_t, F32, &input)) ||
      (e = co_view(op, "mat2", mat2_t, F32, &mat2)) ||
      (e = co_view(op, "out", out_t, F32, &out)) ||
      (e = expect_ndim(op, &input, ndim)) || (e = expect_ndim(op, &mat2, ndim)))
    return e;
  int64_t expected_mat2[3], expected_out[3];
  if (ndim == 3) {
    expected_mat2[0] = expected_out[0] = input.shape[0];
  }
  expected_mat2[ndim - 2] = input.shape[ndim - 1];
  expected_mat2[ndim - 1] = mat2.shape[ndim - 1];
  memcpy(expected_out, input.shape, sizeof(int64_t) * (size_t)(ndim - 1));
  expected_out[ndim - 1] = mat2.shape[ndim - 1];
  if ((e = co_expect_shape(op, &mat2, expected_mat2, ndim)) ||
      (e = co_expect_shape(op, &out, expected_out, ndim)))
    return e;
  co_matrix_t a, b, c;
  int64_t batch_a, batch_b, batch_c;
  if ((e = co_matrix_of(op, &input, false, &a, &batch_a)) ||
      (e = co_matrix_of(op, &mat2, false, &b, &batch_b)) ||
      (e = co_matrix_of(op, &out, false, &c, &batch_c)))
    return e;
  if (c.trans)
    return co_unsupported(op, "out: a column-major (transposed) view");
  co_exec_t x;
  const co_view_t *views[] = {&out, &input, &mat2};
  if ((e = co_begin(ctx, op, views, 3, &x)))
    return e;
  return product(&x, &a, &b, &c, &out, 1, 0, (int)batch_c);
}

CO_EXPORT diopiError_t diopiMm(diopiContextHandle_t ctx,
                               diopiTensorHandle_t out,
                               diopiConstTensorHandle_t input,
                               diopiConstTensorHandle_t mat2) {
  return matrix_product(ctx, "diopiMm", 2, out, input, mat2);
}

CO_EXPORT diopiError_t diopiBmm(diopiContextHandle_t ctx,
                                diopiTensorHandle_t out,
                                diopiConstTensorHandle_t input,
                                diopiConstTensorHandle_t mat2) {
  return matrix_product(ctx, "diopiBmm", 3, out, input, mat2);
}

CO_EXPORT diopiError_t diopiAddmm(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out_t,
                                  diopiConstTensorHandle_t input_t,
                                  diopiConstTensorHandle_t mat1_t,
                                  diopiConstTensorHandle_t mat2_t,
                                  const diopiScalar_t *beta_s,
                                  const diopiScalar_t *alpha_s) {
  const char *op = "diopiAddmm";
  co_view_t out, input, mat1, mat2;
  diopiError_t e;
  if ((e = co_view(op, "input", input_t, F32, &input)) ||
      (e = co_view(op, "mat1", mat1_t, F32, &mat1)) ||
      (e = co_view(op, "mat2", mat2_t, F32, &mat2)) ||
      (e = co_view(op, "out", out_t, F32, &out)) ||
      (e = expect_ndim(op, &mat1, 2)) || (e = expect_ndim(op, &mat2, 2)))
    return e;
  const int64_t mat2_shape[2] = {mat1.shape[1], mat2.shape[1]};
  const int64_t out_shape[2] = {mat1.shape[0], mat2.shape[1]};
  if ((e = co_expect_shape(op, &mat2, mat2_shape, 2)) ||
      (e = co_expect_shape(op, &out, out_shape, 2)) ||
      (e = co_expect_broadcast(op, &input, &out)))
    return e;
  co_matrix_t a, b, c;
  int64_t batch;
  if ((e = co_matrix_of(op, &mat1, false, &a, &batch)) ||
      (e = co_matrix_of(op, &mat2, false, &b, &batch)) ||
      (e = co_matrix_of(op, &out, false, &c, &batch)))
    return e;
  if (c.trans)
    return co_unsupported(op, "out: a column-major (transposed) view");
  float beta = beta_s ? (float)co_scalar(beta_s) : 1,
        alpha = alpha_s ? (float)co_scalar(alpha_s) : 1;
  co_exec_t x;
  const co_view_t *views[] = {&out, &input, &mat1, &mat2};
  if ((e = co_begin(ctx, op, views, 4, &x)))
    return e;
  /* beta 0 ignores input (NaN included), as PyTorch does. */
  if (beta != 0 && (e = co_copy_view(&x, &out, &input)))
    return e;
  return product(&x, &a, &b, &c, &out, alpha, beta != 0 ? beta : 0, 1);
}

/* A view with a dim of size 1 inserted at `pos` (its stride: 1). */
static co_view_t unsqueezed(const co_view_t *v, int pos) {
  co_view_t u = *v;
  for (int d = v->ndim; d > pos; d--) {
    u.shape[d] = v->shape[d - 1];
    u.strides[d] = v->strides[d - 1];
  }
  u.shape[pos] = 1;
  u.strides[pos] = 1;
  u.ndim = v->ndim + 1;
  return u;
}

/* torch.matmul: 1-d operands are vectors (a row on the left, a column on
 * the right, the dim dropped from out); batch dims come from one side or
 * are equal on both (other broadcasts are diopiNoImplement). */
CO_EXPORT diopiError_t diopiMatmul(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out_t,
                                   diopiConstTensorHandle_t input_t,
                                   diopiConstTensorHandle_t other_t) {
  const char *op = "diopiMatmul";
  co_view_t out, input, other;
  diopiError_t e;
  if ((e = co_view(op, "input", input_t, F32, &input)) ||
      (e = co_view(op, "other", other_t, F32, &other)) ||
      (e = co_view(op, "out", out_t, F32, &out)))
    return e;
  if (input.ndim == 0 || other.ndim == 0)
    return co_fail(op, "%s: expected at least 1 dim, got a 0-d tensor",
                   input.ndim == 0 ? "input" : "other");
  /* Vectors as matrices; out gains the dims they drop. */
  co_view_t a = input.ndim == 1 ? unsqueezed(&input, 0) : input;
  co_view_t b = other.ndim == 1 ? unsqueezed(&other, 1) : other;
  int64_t k = a.shape[a.ndim - 1];
  if (b.shape[b.ndim - 2] != k)
    return co_fail(op, "other: expected %lld rows (input's last dim), got %lld",
                   (long long)k, (long long)b.shape[b.ndim - 2]);
  const co_view_t *batch_side = a.ndim >= b.ndim ? &a : &b;
  const co_view_t *lone_side = a.ndim >= b.ndim ? &b : &a;
  if (lone_side->ndim > 2 &&
      (a.ndim != b.ndim ||
       memcmp(a.shape, b.shape, sizeof(int64_t) * (size_t)(a.ndim - 2))))
    return co_unsupported(op, "batch dims that broadcast against each other");
  int64_t expected[CO_MAX_VIEW_DIMS + 1];
  int n = 0;
  for (int d = 0; d < batch_side->ndim - 2; d++)
    expected[n++] = batch_side->shape[d];
  if (input.ndim > 1)
    expected[n++] = a.shape[a.ndim - 2];
  if (other.ndim > 1)
    expected[n++] = b.shape[b.ndim - 1];
  if ((e = co_expect_shape(op, &out, expected, n)))
    return e;
  co_view_t c = out;
  if (input.ndim == 1)
    c = unsqueezed(&c, c.ndim - (other.ndim > 1 ? 1 : 0));
  if (other.ndim == 1)
    c = unsqueezed(&c, c.ndim);
  co_matrix_t ma, mb, mc;
  int64_t batch_a, batch_b, batch_c;
  if ((e = co_matrix_of(op, &a, false, &ma, &batch_a)) ||
      (e = co_matrix_of(op, &b, false, &mb, &batch_b)) ||
      (e = co_matrix_of(op, &c, false, &mc, &batch_c)))
    return e;
  if (mc.trans)
    return co_unsupported(op, "out: a column-major (transposed) view");
  if (batch_a == 1)
    ma.batch_stride = 0;
  if (batch_b == 1)
    mb.batch_stride = 0;
  co_exec_t x;
  const co_view_t *views[] = {&out, &input, &other};
  if ((e = co_begin(ctx, op, views, 3, &x)))
    return e;
  return product(&x, &ma, &mb, &mc, &out, 1, 0, (int)batch_c);
}

/* A view's elements as rows x last dim (leading dims collapsed; they must
 * be evenly spaced). */
static diopiError_t rows_of(const char *op, const co_view_t *v,
                            co_matrix_t *out) {
  int n = v->ndim;
  int64_t cols = n ? v->shape[n - 1] : 1, cs = n ? v->strides[n - 1] : 1;
  int64_t rows = 1, rs = 0, expected = 0;
  for (int d = n - 2; d >= 0; d--) {
    if (v->shape[d] == 1)
      continue;
    if (expected && v->strides[d] != expected)
      return co_unsupported(op, "%s: leading dims that are not evenly spaced",
                            v->name);
    if (!expected)
      rs = v->strides[d];
    expected = v->strides[d] * v->shape[d];
    rows *= v->shape[d];
  }
  return co_matrix(op, v->name, v->data, rows, cols, rs ? rs : cols, cs, out);
}

CO_EXPORT diopiError_t diopiLinear(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out_t,
                                   diopiConstTensorHandle_t input_t,
                                   diopiConstTensorHandle_t weight_t,
                                   diopiConstTensorHandle_t bias_t) {
  const char *op = "diopiLinear";
  co_view_t out, input, weight, bias;
  bool has_bias;
  diopiError_t e;
  if ((e = co_view(op, "input", input_t, F32, &input)) ||
      (e = co_view(op, "weight", weight_t, F32, &weight)) ||
      (e = co_view_optional(op, "bias", bias_t, F32, &bias, &has_bias)) ||
      (e = co_view(op, "out", out_t, F32, &out)) ||
      (e = expect_ndim(op, &weight, 2)))
    return e;
  if (input.ndim < 1)
    return co_fail(op, "input: expected at least 1 dim, got 0");
  const int64_t weight_shape[2] = {weight.shape[0],
                                   input.shape[input.ndim - 1]};
  int64_t out_shape[CO_MAX_VIEW_DIMS];
  memcpy(out_shape, input.shape, sizeof(int64_t) * (size_t)input.ndim);
  out_shape[input.ndim - 1] = weight.shape[0];
  if ((e = co_expect_shape(op, &weight, weight_shape, 2)) ||
      (e = co_expect_shape(op, &out, out_shape, input.ndim)) ||
      (has_bias && (e = co_expect_shape(op, &bias, weight.shape, 1))))
    return e;
  co_matrix_t a, w, c;
  int64_t batch;
  if ((e = rows_of(op, &input, &a)) || (e = rows_of(op, &out, &c)) ||
      (e = co_matrix_of(op, &weight, false, &w, &batch)))
    return e;
  if (c.trans)
    return co_unsupported(op, "out: a column-major (transposed) view");
  co_exec_t x;
  const co_view_t *views[] = {&out, &input, &weight, has_bias ? &bias : NULL};
  if ((e = co_begin(ctx, op, views, 4, &x)))
    return e;
  if (has_bias && (e = co_copy_view(&x, &out, &bias)))
    return e;
  co_matrix_t wt = co_transposed(w);
  return product(&x, &a, &wt, &c, &out, 1, has_bias ? 1 : 0, 1);
}

CO_EXPORT diopiError_t diopiLinearBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input_t,
    diopiTensorHandle_t grad_weight_t, diopiTensorHandle_t grad_bias_t,
    diopiConstTensorHandle_t grad_output_t, diopiConstTensorHandle_t input_t,
    diopiConstTensorHandle_t weight_t) {
  const char *op = "diopiLinearBackward";
  co_view_t grad_input, grad_weight, grad_bias, grad_output, input, weight;
  bool want_input, want_weight, want_bias;
  diopiError_t e;
  if ((e = co_view(op, "grad_output", grad_output_t, F32, &grad_output)) ||
      (e = co_view(op, "input", input_t, F32, &input)) ||
      (e = co_view(op, "weight", weight_t, F32, &weight)) ||
      (e = co_view_optional(op, "grad_input", grad_input_t, F32, &grad_input,
                            &want_input)) ||
      (e = co_view_optional(op, "grad_weight", grad_weight_t, F32, &grad_weight,
                            &want_weight)) ||
      (e = co_view_optional(op, "grad_bias", grad_bias_t, F32, &grad_bias,
                            &want_bias)) ||
      (e = expect_ndim(op, &weight, 2)))
    return e;
  if (input.ndim < 1)
    return co_fail(op, "input: expected at least 1 dim, got 0");
  int64_t out_shape[CO_MAX_VIEW_DIMS];
  memcpy(out_shape, input.shape, sizeof(int64_t) * (size_t)input.ndim);
  out_shape[input.ndim - 1] = weight.shape[0];
  const int64_t weight_shape[2] = {weight.shape[0],
                                   input.shape[input.ndim - 1]};
  if ((e = co_expect_shape(op, &weight, weight_shape, 2)) ||
      (e = co_expect_shape(op, &grad_output, out_shape, input.ndim)) ||
      (want_input &&
       (e = co_expect_shape(op, &grad_input, input.shape, input.ndim))) ||
      (want_weight &&
       (e = co_expect_shape(op, &grad_weight, weight.shape, 2))) ||
      (want_bias && (e = co_expect_shape(op, &grad_bias, weight.shape, 1))))
    return e;
  co_matrix_t go, in, w, gi, gw;
  int64_t batch;
  if ((e = rows_of(op, &grad_output, &go)) || (e = rows_of(op, &input, &in)) ||
      (e = co_matrix_of(op, &weight, false, &w, &batch)) ||
      (want_input && (e = rows_of(op, &grad_input, &gi))) ||
      (want_weight &&
       (e = co_matrix_of(op, &grad_weight, false, &gw, &batch))) ||
      (want_bias && (e = co_expect_dense(op, &grad_bias))) ||
      (want_bias && (e = co_expect_dense(op, &grad_output))))
    return e;
  if ((want_input && gi.trans) || (want_weight && gw.trans))
    return co_unsupported(op, "%s: a column-major (transposed) view",
                          want_input && gi.trans ? "grad_input"
                                                 : "grad_weight");
  co_exec_t x;
  const co_view_t *views[] = {&grad_output,
                              &input,
                              &weight,
                              want_input ? &grad_input : NULL,
                              want_weight ? &grad_weight : NULL,
                              want_bias ? &grad_bias : NULL};
  if ((e = co_begin(ctx, op, views, 6, &x)))
    return e;
  if (want_input && (e = product(&x, &go, &w, &gi, &grad_input, 1, 0, 1)))
    return e;
  co_matrix_t go_t = co_transposed(go);
  if (want_weight && (e = product(&x, &go_t, &in, &gw, &grad_weight, 1, 0, 1)))
    return e;
  if (want_bias) {
    co_channel_sum_args a = {.out = grad_bias.data,
                             .in = grad_output.data,
                             .batch = go.rows,
                             .channels = go.cols,
                             .inner = 1};
    return co_launch_blocks(&x, CO_K_CHANNEL_SUM, (unsigned)go.cols, &a);
  }
  return diopiSuccess;
}
