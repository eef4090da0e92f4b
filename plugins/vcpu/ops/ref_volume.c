/* 3-d window geometry. */
#include "ref_volume.h"

#include "ref_error.h"

diopiError_t ref_volumes(const char *op, const char *arg, const ref_view_t *v,
                         bool unbatched, ref_volumes_t *out) {
  if (v->ndim != 5 && !(unbatched && v->ndim == 4))
    return ref_fail(op, "%s: %d dims, expected (N, C, D, H, W)%s", arg, v->ndim,
                    unbatched ? " or (C, D, H, W)" : "");
  int nd = v->ndim;
  out->outer = *v;
  out->outer.ndim = nd - 3;
  out->count = 1;
  for (int d = 0; d < nd - 3; d++)
    out->count *= v->shape[d];
  out->outer.numel = out->count;
  for (int i = 0; i < 3; i++) {
    out->size[i] = v->shape[nd - 3 + i];
    out->stride[i] = v->strides[nd - 3 + i];
  }
  return diopiSuccess;
}

diopiError_t ref_window_triple(const char *op, const char *arg, diopiSize_t s,
                               int64_t min, int64_t if_empty, int64_t out[3]) {
  if (s.len == 0) {
    out[0] = out[1] = out[2] = if_empty;
    return diopiSuccess;
  }
  if ((s.len != 1 && s.len != 3) || !s.data)
    return ref_fail(op, "%s: %lld values, expected 1 or 3", arg,
                    (long long)s.len);
  for (int i = 0; i < 3; i++) {
    out[i] = s.data[s.len == 1 ? 0 : i];
    if (out[i] < min)
      return ref_fail(op, "%s: %lld in dim %d, expected >= %lld", arg,
                      (long long)out[i], i, (long long)min);
  }
  return diopiSuccess;
}

diopiError_t ref_window_attrs3(const char *op, diopiDtype_t input_dtype,
                               diopiSize_t stride, diopiSize_t padding,
                               diopiSize_t dilation, int64_t stride_if_empty,
                               int64_t stride_out[3], int64_t padding_out[3],
                               int64_t dilation_out[3]) {
  diopiError_t err =
      ref_window_triple(op, "stride", stride, 1, stride_if_empty, stride_out);
  if (!err)
    err = ref_window_triple(op, "padding", padding, 0, 0, padding_out);
  if (!err)
    err = ref_window_triple(op, "dilation", dilation, 1, 1, dilation_out);
  if (!err && !ref_is_floating(input_dtype))
    err = ref_fail(op, "input: expected a floating dtype, got dtype %d",
                   (int)input_dtype);
  return err;
}
