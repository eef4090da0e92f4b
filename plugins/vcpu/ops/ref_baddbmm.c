/* baddbmm: out = beta * input + alpha * (batch1 @ batch2), input broadcast
 * to (B, N, M); beta 0 ignores input (NaNs included), as PyTorch. The
 * product goes through the library's bmm into a context tensor, then one
 * elementwise pass combines. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_elementwise.h"
#include "ref_error.h"

/* in = {input, product}; p[0] beta, p[1] alpha. */
static double combine_fn(const double *in, const double *p) {
  return (p[0] != 0 ? p[0] * in[0] : 0) + p[1] * in[1];
}

static diopiError_t
baddbmm(diopiContextHandle_t ctx, const char *op, diopiConstTensorHandle_t out,
        diopiConstTensorHandle_t input, diopiConstTensorHandle_t batch1,
        diopiConstTensorHandle_t batch2, double beta, double alpha) {
  ref_view_t o, b1, b2;
  diopiError_t err = ref_view(ctx, op, "out", out, &o);
  if (!err)
    err = ref_view(ctx, op, "batch1", batch1, &b1);
  if (!err)
    err = ref_view(ctx, op, "batch2", batch2, &b2);
  if (!err && (b1.ndim != 3 || b2.ndim != 3))
    err = ref_fail(op, "batch1, batch2: expected 3 dims each, got %d and %d",
                   b1.ndim, b2.ndim);
  if (!err && (b1.shape[0] != b2.shape[0] || b1.shape[2] != b2.shape[1]))
    err = ref_fail(op,
                   "batch2: [%lld, %lld, %lld] does not multiply batch1 "
                   "[%lld, %lld, %lld]",
                   (long long)b2.shape[0], (long long)b2.shape[1],
                   (long long)b2.shape[2], (long long)b1.shape[0],
                   (long long)b1.shape[1], (long long)b1.shape[2]);
  if (err)
    return err;
  int64_t shape[3] = {b1.shape[0], b1.shape[1], b2.shape[2]};
  if ((err = ref_expect_shape(op, "out", &o, shape, 3)))
    return err;
  diopiTensorHandle_t product;
  diopiDevice_t device;
  diopiSize_t size = {shape, 3};
  if (diopiGetTensorDevice(out, &device) ||
      diopiRequireTensor(ctx, &product, &size, NULL, o.dtype, device))
    return ref_fail(op,
                    "out: the context cannot allocate the %lldx%lldx%lld "
                    "product",
                    (long long)shape[0], (long long)shape[1],
                    (long long)shape[2]);
  if ((err = diopiBmm(ctx, product, batch1, batch2)))
    return err;
  diopiConstTensorHandle_t in[2] = {input, product};
  static const char *const names[2] = {"input", "product"};
  double params[4] = {beta, alpha};
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 2;
  ew.fn = combine_fn;
  memcpy(ew.params, params, sizeof ew.params);
  return ref_ew_launch(ctx, op, &ew, out, in, names);
}

REF_EXPORT diopiError_t diopiBaddbmm(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiConstTensorHandle_t input,
                                     diopiConstTensorHandle_t batch1,
                                     diopiConstTensorHandle_t batch2,
                                     double beta, double alpha) {
  return baddbmm(ctx, "diopiBaddbmm", out, input, batch1, batch2, beta, alpha);
}
REF_EXPORT diopiError_t diopiBaddbmmInp(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t input,
                                        diopiConstTensorHandle_t batch1,
                                        diopiConstTensorHandle_t batch2,
                                        double beta, double alpha) {
  return baddbmm(ctx, "diopiBaddbmmInp", input, input, batch1, batch2, beta,
                 alpha);
}
