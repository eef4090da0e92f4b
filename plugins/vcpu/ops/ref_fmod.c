/* fmod, C's remainder of truncated division (the result takes the
 * dividend's sign), of a tensor by a tensor or a scalar, as torch.fmod:
 * tensors broadcast; integral tensors stay integral and compute in int64,
 * exactly; a floating division by zero gives NaN, an integral one 0 (PyTorch
 * raises there; a caller that must match it checks the divisor first). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"

/* in = {input, other}. */
static double fmod_fn(const double *in, const double *p) {
  (void)p;
  return fmod(in[0], in[1]);
}
/* in = {input}; p[0] = other. */
static double fmod_scalar_fn(const double *in, const double *p) {
  return fmod(in[0], p[0]);
}

/* C's %, with the divisions that trap defined: by 0 and by -1 (INT64_MIN /
 * -1 overflows) give 0. */
static int64_t fmod_int_of(int64_t a, int64_t b) {
  return b == 0 || b == -1 ? 0 : a % b;
}
static int64_t fmod_int(const int64_t *in, const int64_t *p) {
  (void)p;
  return fmod_int_of(in[0], in[1]);
}
static int64_t fmod_scalar_int(const int64_t *in, const int64_t *p) {
  return fmod_int_of(in[0], p[0]);
}

REF_BINARY_F32(fmod, fmodf)

static diopiError_t fmod_tensor(diopiContextHandle_t ctx, const char *op,
                                diopiConstTensorHandle_t out,
                                diopiConstTensorHandle_t input,
                                diopiConstTensorHandle_t other) {
  static const char *const names[2] = {"input", "other"};
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 2;
  ew.fn = fmod_fn;
  ew.f32 = fmod_f32;
  ew.int_fn = fmod_int;
  diopiConstTensorHandle_t in[2] = {input, other};
  return ref_ew_call_with(ctx, op, &ew, out, in, names, REF_OUT_NUMERIC);
}

static diopiError_t fmod_scalar(diopiContextHandle_t ctx, const char *op,
                                diopiConstTensorHandle_t out,
                                diopiConstTensorHandle_t input,
                                const diopiScalar_t *other) {
  if (!other)
    return ref_fail(op, "other: expected a scalar, got NULL");
  static const char *const names[1] = {"input"};
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 1;
  ew.fn = fmod_scalar_fn;
  ew.f32 = fmod_scalar_f32;
  /* As PyTorch, an integral out divides by other as its dtype holds it. */
  ew.params[0] = ref_scalar_for(other, out, 0);
  if (ref_scalar_is_integral(other)) {
    ew.int_fn = fmod_scalar_int;
    ew.int_params[0] = (int64_t)ew.params[0];
  }
  return ref_ew_call_with(ctx, op, &ew, out, &input, names, REF_OUT_NUMERIC);
}

REF_EXPORT diopiError_t diopiFmod(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out,
                                  diopiConstTensorHandle_t input,
                                  diopiConstTensorHandle_t other) {
  return fmod_tensor(ctx, "diopiFmod", out, input, other);
}
REF_EXPORT diopiError_t diopiFmodInp(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t input,
                                     diopiConstTensorHandle_t other) {
  return fmod_tensor(ctx, "diopiFmodInp", input, input, other);
}
REF_EXPORT diopiError_t diopiFmodScalar(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t out,
                                        diopiConstTensorHandle_t input,
                                        const diopiScalar_t *other) {
  return fmod_scalar(ctx, "diopiFmodScalar", out, input, other);
}
REF_EXPORT diopiError_t diopiFmodScalarInp(diopiContextHandle_t ctx,
                                           diopiTensorHandle_t input,
                                           const diopiScalar_t *other) {
  return fmod_scalar(ctx, "diopiFmodScalarInp", input, input, other);
}
