/* The add-a-product driver: checks, the product into a context tensor,
 * then out = beta * input + alpha * product through the elementwise
 * engine. */
#include "ref_add_product.h"

#include <stdio.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_sum_to.h"

diopiError_t ref_product_tensor(diopiContextHandle_t ctx, const char *op,
                                diopiConstTensorHandle_t out,
                                const int64_t *shape, int ndim,
                                diopiTensorHandle_t *product) {
  diopiDtype_t dtype;
  diopiDevice_t device;
  diopiSize_t size = {shape, ndim};
  char text[128];
  if (diopiGetTensorDtype(out, &dtype) || diopiGetTensorDevice(out, &device) ||
      diopiRequireTensor(ctx, product, &size, NULL, dtype, device))
    return ref_fail(op, "out: the context cannot allocate the %s product",
                    ref_shape_text(shape, ndim, text, sizeof text));
  return diopiSuccess;
}

/* in = {input, product}; p[0] beta, p[1] alpha. */
static double add_product_fn(const double *in, const double *p) {
  double scaled_input = p[0] != 0 ? p[0] * in[0] : 0;
  return scaled_input + p[1] * in[1];
}

diopiError_t
ref_add_product(diopiContextHandle_t ctx, const char *op,
                const ref_product_kind_t *kind, diopiConstTensorHandle_t out,
                diopiConstTensorHandle_t input, diopiConstTensorHandle_t a,
                diopiConstTensorHandle_t b, const diopiScalar_t *beta,
                const diopiScalar_t *alpha) {
  ref_view_t o, x, av, bv;
  ref_arg_t args[] = {{"out", out, &o, NULL},
                      {"input", input, &x, NULL},
                      {kind->a_name, a, &av, NULL},
                      {kind->b_name, b, &bv, NULL}};
  int64_t shape[3];
  int ndim;
  diopiTensorHandle_t product;
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (err || (err = kind->shape(op, &av, &bv, shape, &ndim)) ||
      (err = ref_expect_shape(op, "out", &o, shape, ndim)) ||
      (err = ref_expect_kind(op, "out", &o, REF_OUT_FLOATING)) ||
      (err = ref_expect_kind(op, kind->a_name, &av, REF_OUT_FLOATING)) ||
      (err = ref_product_tensor(ctx, op, out, shape, ndim, &product)) ||
      (err = kind->multiply(ctx, op, out, a, b, product)))
    return err;
  static const char *const names[2] = {"input", "product"};
  diopiConstTensorHandle_t in[2] = {input, product};
  ref_ew_t ew = {.nin = 2,
                 .fn = add_product_fn,
                 .params = {ref_scalar(beta, 1), ref_scalar(alpha, 1)}};
  return ref_ew_launch(ctx, op, &ew, out, in, names);
}

ref_view_t ref_restrided(const ref_view_t *v, int ndim, const int64_t *shape,
                         const int64_t *strides) {
  ref_view_t r = *v;
  r.ndim = ndim;
  r.numel = 1;
  for (int d = 0; d < ndim; d++) {
    r.shape[d] = shape[d];
    r.strides[d] = strides[d];
    r.numel *= shape[d];
  }
  return r;
}

/* p[0] * in[0] and p[0] * in[0] * in[1]. */
static double scaled_fn(const double *in, const double *p) {
  return p[0] * in[0];
}
static double scaled_product_fn(const double *in, const double *p) {
  return p[0] * in[0] * in[1];
}

diopiError_t ref_scaled_product_sum(const char *op, const char *arg,
                                    const ref_view_t *out, const ref_view_t *a,
                                    const ref_view_t *b, double scale,
                                    ref_fold_t *f) {
  diopiError_t err = ref_expect_kind(op, arg, out, REF_OUT_FLOATING);
  if (!err)
    err = ref_sum_to_prepare(op, arg, out, a, f);
  if (err)
    return err;
  f->map = scaled_fn;
  if (b) {
    f->nin = 2;
    f->in[1] = *b;
    f->map = scaled_product_fn;
  }
  f->params[0] = scale;
  return diopiSuccess;
}

diopiError_t ref_add_product_backward(
    diopiContextHandle_t ctx, const char *op, const ref_product_kind_t *kind,
    diopiConstTensorHandle_t grad_input, diopiConstTensorHandle_t grad_a,
    diopiConstTensorHandle_t grad_b, diopiConstTensorHandle_t grad_output,
    diopiConstTensorHandle_t a, diopiConstTensorHandle_t b,
    const diopiScalar_t *beta, const diopiScalar_t *alpha) {
  char grad_a_name[32], grad_b_name[32];
  snprintf(grad_a_name, sizeof grad_a_name, "grad_%s", kind->a_name);
  snprintf(grad_b_name, sizeof grad_b_name, "grad_%s", kind->b_name);
  ref_view_t gi, ga, gb, go, av, bv;
  bool has_gi, has_ga, has_gb;
  ref_arg_t args[] = {{"grad_input", grad_input, &gi, &has_gi},
                      {grad_a_name, grad_a, &ga, &has_ga},
                      {grad_b_name, grad_b, &gb, &has_gb},
                      {"grad_output", grad_output, &go, NULL},
                      {kind->a_name, a, &av, NULL},
                      {kind->b_name, b, &bv, NULL}};
  int64_t shape[3];
  int ndim;
  ref_fold_t fi, fa, fb;
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  if (err || (err = kind->shape(op, &av, &bv, shape, &ndim)) ||
      (err = ref_expect_shape(op, "grad_output", &go, shape, ndim)) ||
      (has_ga &&
       (err = ref_expect_shape(op, grad_a_name, &ga, av.shape, av.ndim))) ||
      (has_gb &&
       (err = ref_expect_shape(op, grad_b_name, &gb, bv.shape, bv.ndim))) ||
      (has_ga &&
       (err = ref_expect_kind(op, grad_a_name, &ga, REF_OUT_FLOATING))) ||
      (has_gb &&
       (err = ref_expect_kind(op, grad_b_name, &gb, REF_OUT_FLOATING))) ||
      (has_gi && (err = ref_scaled_product_sum(op, "grad_input", &gi, &go, NULL,
                                               ref_scalar(beta, 1), &fi))) ||
      (err = kind->factor_grads(op, &go, &av, &bv, has_ga ? &ga : NULL,
                                has_gb ? &gb : NULL, ref_scalar(alpha, 1), &fa,
                                &fb)))
    return err;
  if (has_gi && (err = ref_fold_launch(ctx, op, &fi)))
    return err;
  if (has_ga && (err = ref_fold_launch(ctx, op, &fa)))
    return err;
  return has_gb ? ref_fold_launch(ctx, op, &fb) : diopiSuccess;
}
