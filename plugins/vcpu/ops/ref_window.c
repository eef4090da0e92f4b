/* Sliding-window geometry. */
#include "ref_window.h"

#include <string.h>

#include "ref_error.h"

diopiError_t ref_planes(const char *op, const char *arg, const ref_view_t *v,
                        ref_planes_t *out) {
  if (v->ndim != 3 && v->ndim != 4)
    return ref_fail(op, "%s: %d dims, expected (N, C, H, W) or (C, H, W)", arg,
                    v->ndim);
  int nd = v->ndim;
  out->outer = *v;
  out->outer.ndim = nd - 2;
  out->h = v->shape[nd - 2];
  out->w = v->shape[nd - 1];
  out->stride_h = v->strides[nd - 2];
  out->stride_w = v->strides[nd - 1];
  out->count = 1;
  for (int d = 0; d < nd - 2; d++)
    out->count *= v->shape[d];
  out->outer.numel = out->count;
  return diopiSuccess;
}

diopiError_t ref_window_pair(const char *op, const char *arg, diopiSize_t s,
                             int64_t min, int64_t if_empty, int64_t out[2]) {
  if (s.len == 0) {
    out[0] = out[1] = if_empty;
    return diopiSuccess;
  }
  if ((s.len != 1 && s.len != 2) || !s.data)
    return ref_fail(op, "%s: %lld values, expected 1 or 2", arg,
                    (long long)s.len);
  out[0] = s.data[0];
  out[1] = s.data[s.len - 1];
  if (out[0] < min || out[1] < min)
    return ref_fail(op, "%s: (%lld, %lld), expected each >= %lld", arg,
                    (long long)out[0], (long long)out[1], (long long)min);
  return diopiSuccess;
}

diopiError_t ref_pool_window2(const char *op, diopiSize_t kernel_size,
                              diopiSize_t stride, diopiSize_t padding,
                              diopiSize_t dilation, int64_t k[2], int64_t s[2],
                              int64_t p[2], int64_t d[2]) {
  if (kernel_size.len == 0)
    return ref_fail(op, "kernel_size: expected 1 or 2 values, got none");
  diopiError_t err = ref_window_pair(op, "kernel_size", kernel_size, 1, 0, k);
  if (!err)
    err = ref_window_pair(op, "stride", stride, 1, 0, s);
  if (!err && stride.len == 0)
    memcpy(s, k, 2 * sizeof *k);
  if (!err)
    err = ref_window_pair(op, "padding", padding, 0, 0, p);
  if (!err)
    err = ref_window_pair(op, "dilation", dilation, 1, 1, d);
  if (!err && (p[0] * 2 > k[0] || p[1] * 2 > k[1]))
    err = ref_fail(op, "padding: (%lld, %lld) exceeds half the kernel",
                   (long long)p[0], (long long)p[1]);
  return err;
}

int64_t ref_window_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                       bool ceil_mode) {
  int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t o = (span + (ceil_mode ? s - 1 : 0)) / s + 1;
  if (ceil_mode && (o - 1) * s >= in + p)
    o--; /* the last window must start inside the input or left padding */
  return o;
}
