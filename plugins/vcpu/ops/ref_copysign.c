/* copysign, input's magnitude with other's sign (C's copysign: the sign bit
 * of a -0.0 or a NaN counts), other a tensor (broadcast) or a scalar, as
 * torch.copysign; out is floating, an integral input converted. */
#include <math.h>
#include <stdint.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"

/* in = {input, other}. */
static double copysign_fn(const double *in, const double *p) {
  (void)p;
  return copysign(in[0], in[1]);
}
/* in = {input}; p[0] = other. */
static double copysign_scalar_fn(const double *in, const double *p) {
  return copysign(in[0], p[0]);
}

REF_BINARY_F32(copysign, copysignf)

static diopiError_t copysign_tensor(diopiContextHandle_t ctx, const char *op,
                                    diopiConstTensorHandle_t out,
                                    diopiConstTensorHandle_t input,
                                    diopiConstTensorHandle_t other) {
  static const char *const names[2] = {"input", "other"};
  diopiConstTensorHandle_t in[2] = {input, other};
  return ref_ew_call(ctx, op, out, 2, in, names, copysign_fn, copysign_f32,
                     NULL, REF_OUT_FLOATING);
}

static diopiError_t copysign_scalar(diopiContextHandle_t ctx, const char *op,
                                    diopiConstTensorHandle_t out,
                                    diopiConstTensorHandle_t input,
                                    const diopiScalar_t *other) {
  if (!other)
    return ref_fail(op, "other: expected a scalar, got NULL");
  static const char *const names[1] = {"input"};
  double params[4] = {ref_scalar(other, 0)};
  return ref_ew_call(ctx, op, out, 1, &input, names, copysign_scalar_fn,
                     copysign_scalar_f32, params, REF_OUT_FLOATING);
}

REF_EXPORT diopiError_t diopiCopysign(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t out,
                                      diopiConstTensorHandle_t input,
                                      diopiConstTensorHandle_t other) {
  return copysign_tensor(ctx, "diopiCopysign", out, input, other);
}
REF_EXPORT diopiError_t diopiCopysignInp(diopiContextHandle_t ctx,
                                         diopiTensorHandle_t input,
                                         diopiConstTensorHandle_t other) {
  return copysign_tensor(ctx, "diopiCopysignInp", input, input, other);
}
REF_EXPORT diopiError_t diopiCopysignScalar(diopiContextHandle_t ctx,
                                            diopiTensorHandle_t out,
                                            diopiConstTensorHandle_t input,
                                            const diopiScalar_t *other) {
  return copysign_scalar(ctx, "diopiCopysignScalar", out, input, other);
}
REF_EXPORT diopiError_t diopiCopysignInpScalar(diopiContextHandle_t ctx,
                                               diopiTensorHandle_t input,
                                               const diopiScalar_t *other) {
  return copysign_scalar(ctx, "diopiCopysignInpScalar", input, input, other);
}
