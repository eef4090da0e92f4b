/* out = beta * input + alpha * product through the elementwise engine. */
#include "ref_add_product.h"

#include "ref_elementwise.h"
#include "ref_error.h"

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

diopiError_t ref_add_product(diopiContextHandle_t ctx, const char *op,
                             diopiConstTensorHandle_t out,
                             diopiConstTensorHandle_t input,
                             diopiConstTensorHandle_t product, double beta,
                             double alpha) {
  static const char *const names[2] = {"input", "product"};
  diopiConstTensorHandle_t in[2] = {input, product};
  ref_ew_t ew = {.nin = 2, .fn = add_product_fn, .params = {beta, alpha}};
  return ref_ew_launch(ctx, op, &ew, out, in, names);
}
