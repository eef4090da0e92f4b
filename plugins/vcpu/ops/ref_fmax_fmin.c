/* fmax and fmin of two tensors (broadcast), as torch.fmax/fmin: C's fmax and
 * fmin, a NaN losing to a number (NaN only where both are); integral tensors
 * compute exactly in int64. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"

/* p[0]: 1 for fmax, 0 for fmin. */
static double fmax_fmin_fn(const double *in, const double *p) {
  return p[0] != 0 ? fmax(in[0], in[1]) : fmin(in[0], in[1]);
}
static int64_t fmax_fmin_int(const int64_t *in, const int64_t *p) {
  int64_t a = in[0], b = in[1];
  return p[0] != 0 ? (a > b ? a : b) : (a < b ? a : b);
}

REF_ISA_BODY void fmax_fmin_f32_body(float *out, const float *const *in,
                                     int64_t n, const double *p) {
  const float *a = in[0], *b = in[1];
  if (p[0] != 0)
    for (int64_t i = 0; i < n; i++)
      out[i] = fmaxf(a[i], b[i]);
  else
    for (int64_t i = 0; i < n; i++)
      out[i] = fminf(a[i], b[i]);
}
REF_F32_EW(fmax_fmin_f32)

static diopiError_t fmax_fmin(diopiContextHandle_t ctx, const char *op,
                              diopiConstTensorHandle_t out,
                              diopiConstTensorHandle_t input,
                              diopiConstTensorHandle_t other, int is_max) {
  static const char *const names[2] = {"input", "other"};
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 2;
  ew.fn = fmax_fmin_fn;
  ew.f32 = fmax_fmin_f32;
  ew.int_fn = fmax_fmin_int;
  ew.params[0] = is_max;
  ew.int_params[0] = is_max;
  diopiConstTensorHandle_t in[2] = {input, other};
  return ref_ew_call_with(ctx, op, &ew, out, in, names, REF_OUT_ANY);
}

REF_EXPORT diopiError_t diopiFmax(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out,
                                  diopiConstTensorHandle_t input,
                                  diopiConstTensorHandle_t other) {
  return fmax_fmin(ctx, "diopiFmax", out, input, other, 1);
}
REF_EXPORT diopiError_t diopiFmin(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out,
                                  diopiConstTensorHandle_t input,
                                  diopiConstTensorHandle_t other) {
  return fmax_fmin(ctx, "diopiFmin", out, input, other, 0);
}
