/* Broadcast-shaped elementwise launches. */
#include "ref_ew_call.h"

#include <string.h>

#include "ref_error.h"

diopiError_t ref_expect_kind(const char *op, const char *arg,
                             const ref_view_t *v, ref_out_kind_t kind) {
  if (kind == REF_OUT_FLOATING && !ref_is_floating(v->dtype))
    return ref_fail(op, "%s: expected a floating dtype, got dtype %d", arg,
                    (int)v->dtype);
  if (kind == REF_OUT_NUMERIC && v->dtype == diopi_dtype_bool)
    return ref_fail(op, "%s: expected a numeric dtype, got bool", arg);
  return diopiSuccess;
}

/* The broadcast shape of the inputs into shape/ndim, or a failure naming the
 * input that does not broadcast. */
static diopiError_t broadcast_shape(const char *op, const ref_view_t *in,
                                    int nin, const char *const *names,
                                    int64_t *shape, int *ndim) {
  *ndim = 0;
  for (int k = 0; k < nin; k++)
    *ndim = in[k].ndim > *ndim ? in[k].ndim : *ndim;
  for (int d = 0; d < *ndim; d++)
    shape[d] = 1;
  for (int k = 0; k < nin; k++) {
    int lead = *ndim - in[k].ndim;
    for (int d = 0; d < in[k].ndim; d++) {
      int64_t n = in[k].shape[d], *s = &shape[lead + d];
      if (n == *s || n == 1)
        continue;
      if (*s != 1) {
        char have[128];
        return ref_fail(
            op, "%s: shape %s does not broadcast with the others", names[k],
            ref_shape_text(in[k].shape, in[k].ndim, have, sizeof have));
      }
      *s = n;
    }
  }
  return diopiSuccess;
}

diopiError_t ref_ew_call_with(diopiContextHandle_t ctx, const char *op,
                              ref_ew_t *ew, diopiConstTensorHandle_t out,
                              const diopiConstTensorHandle_t *in,
                              const char *const *names, ref_out_kind_t kind) {
  int nin = ew->nin;
  diopiError_t err = ref_view(ctx, op, "out", out, &ew->out);
  for (int k = 0; !err && k < nin; k++)
    err = ref_view(ctx, op, names[k], in[k], &ew->in[k]);
  if (!err)
    err = ref_expect_kind(op, "out", &ew->out, kind);
  int64_t shape[REF_MAX_DIMS];
  int ndim = 0;
  if (!err)
    err = broadcast_shape(op, ew->in, nin, names, shape, &ndim);
  if (!err && nin)
    err = ref_expect_shape(op, "out", &ew->out, shape, ndim);
  if (err)
    return err;
  return ref_ew_launch(ctx, op, ew, out, in, names);
}

diopiError_t ref_ew_call(diopiContextHandle_t ctx, const char *op,
                         diopiConstTensorHandle_t out, int nin,
                         const diopiConstTensorHandle_t *in,
                         const char *const *names, ref_ew_fn_t fn,
                         ref_ew_f32_fn_t f32, const double *params,
                         ref_out_kind_t kind) {
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = nin;
  ew.fn = fn;
  ew.f32 = f32;
  if (params)
    memcpy(ew.params, params, sizeof ew.params);
  return ref_ew_call_with(ctx, op, &ew, out, in, names, kind);
}
