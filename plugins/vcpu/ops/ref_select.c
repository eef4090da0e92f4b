/* where and masked_fill: an element taken from one of two sources by a
 * condition (bool or uint8). out = condition ? input : other;
 * masked_fill: out = mask ? value : input, with value a scalar or a 0-dim
 * tensor; out has input and mask's broadcast shape. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

static double where_fn(const double *in, const double *p) {
  (void)p;
  return in[0] != 0 ? in[1] : in[2];
}
/* masked_fill with a tensor value: in = {input, mask, value}. */
static double fill_tensor_fn(const double *in, const double *p) {
  (void)p;
  return in[1] != 0 ? in[2] : in[0];
}
/* masked_fill with a scalar value: in = {input, mask}, p[0] the value. */
static double fill_scalar_fn(const double *in, const double *p) {
  return in[1] != 0 ? p[0] : in[0];
}

/* The integer forms, likewise (exact beyond 2^53). */
static int64_t where_int(const int64_t *in, const int64_t *p) {
  (void)p;
  return in[0] != 0 ? in[1] : in[2];
}
static int64_t fill_tensor_int(const int64_t *in, const int64_t *p) {
  (void)p;
  return in[1] != 0 ? in[2] : in[0];
}
static int64_t fill_scalar_int(const int64_t *in, const int64_t *p) {
  return in[1] != 0 ? p[0] : in[0];
}

/* The float32 loops (the condition and mask read as 0 or 1). */
REF_ISA_BODY void where_f32_body(float *out, const float *const *in, int64_t n,
                                 const double *p) {
  (void)p;
  const float *c = in[0], *a = in[1], *b = in[2];
  for (int64_t i = 0; i < n; i++)
    out[i] = c[i] != 0.0f ? a[i] : b[i];
}
REF_F32_EW(where_f32)
REF_ISA_BODY void fill_tensor_f32_body(float *out, const float *const *in,
                                       int64_t n, const double *p) {
  (void)p;
  const float *x = in[0], *m = in[1], *v = in[2];
  for (int64_t i = 0; i < n; i++)
    out[i] = m[i] != 0.0f ? v[i] : x[i];
}
REF_F32_EW(fill_tensor_f32)
REF_ISA_BODY void fill_scalar_f32_body(float *out, const float *const *in,
                                       int64_t n, const double *p) {
  const float *x = in[0], *m = in[1];
  float v = (float)p[0];
  for (int64_t i = 0; i < n; i++)
    out[i] = m[i] != 0.0f ? v : x[i];
}
REF_F32_EW(fill_scalar_f32)

static diopiError_t expect_mask(CTX, const char *op, const char *arg, CT mask) {
  ref_view_t v;
  diopiError_t err = ref_view(ctx, op, arg, mask, &v);
  if (!err && v.dtype != diopi_dtype_bool && v.dtype != diopi_dtype_uint8)
    err = ref_fail(op, "%s: expected dtype bool or uint8, got dtype %d", arg,
                   (int)v.dtype);
  return err;
}

REF_EXPORT diopiError_t diopiWhere(CTX, T out, CT condition, CT input,
                                   CT other) {
  const char *op = "diopiWhere";
  diopiError_t err = expect_mask(ctx, op, "condition", condition);
  if (err)
    return err;
  CT in[3] = {condition, input, other};
  static const char *const names[3] = {"condition", "input", "other"};
  ref_ew_t ew = {
      .nin = 3, .fn = where_fn, .f32 = where_f32, .int_fn = where_int};
  return ref_ew_call_with(ctx, op, &ew, out, in, names, REF_OUT_ANY);
}

/* out has the broadcast shape of input and mask, as PyTorch's out-of-place
 * masked_fill; in place (out is input) the mask broadcasts to input. */
static diopiError_t masked_fill(CTX, const char *op, CT out, CT input, CT mask,
                                CT value, const diopiScalar_t *scalar) {
  ref_view_t v;
  diopiError_t err = expect_mask(ctx, op, "mask", mask);
  if (!err && value) {
    err = ref_view(ctx, op, "value", value, &v);
    if (!err && v.ndim != 0)
      err = ref_fail(op, "value: expected a 0-dim tensor, got %d dims", v.ndim);
  }
  if (!err && !value && !scalar)
    err = ref_fail(op, "value: scalar is NULL");
  if (err)
    return err;
  CT ins[3] = {input, mask, value};
  static const char *const names[3] = {"input", "mask", "value"};
  ref_ew_t ew = {.nin = 3,
                 .fn = fill_tensor_fn,
                 .f32 = fill_tensor_f32,
                 .int_fn = fill_tensor_int};
  if (!value) /* an integral scalar fills an integral out exactly */
    ew = (ref_ew_t){.nin = 2,
                    .fn = fill_scalar_fn,
                    .f32 = fill_scalar_f32,
                    .int_fn =
                        ref_scalar_is_integral(scalar) ? fill_scalar_int : NULL,
                    .params = {ref_scalar(scalar, 0)},
                    .int_params = {ref_scalar_int(scalar, 0)}};
  return ref_ew_call_with(ctx, op, &ew, out, ins, names, REF_OUT_ANY);
}

REF_EXPORT diopiError_t diopiMaskedFill(CTX, T out, CT input, CT mask,
                                        CT value) {
  return masked_fill(ctx, "diopiMaskedFill", out, input, mask, value, NULL);
}
REF_EXPORT diopiError_t diopiMaskedFillInp(CTX, T input, CT mask, CT value) {
  return masked_fill(ctx, "diopiMaskedFillInp", input, input, mask, value,
                     NULL);
}
REF_EXPORT diopiError_t diopiMaskedFillScalar(CTX, T out, CT input, CT mask,
                                              const diopiScalar_t *value) {
  return masked_fill(ctx, "diopiMaskedFillScalar", out, input, mask, NULL,
                     value);
}
REF_EXPORT diopiError_t diopiMaskedFillInpScalar(CTX, T input, CT mask,
                                                 const diopiScalar_t *value) {
  return masked_fill(ctx, "diopiMaskedFillInpScalar", input, input, mask, NULL,
                     value);
}
