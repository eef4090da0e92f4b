/* Window geometry. */
#include "co_window.h"

#include "co_error.h"

/* One or two values >= `least` into *h, *w (`absent` when the list is
 * empty and absent >= 0). */
static diopiError_t pair(const char *op, const char *name, diopiSize_t list,
                         long long least, long long absent_h,
                         long long absent_w, long long *h, long long *w) {
  if (list.len == 0 && absent_h >= 0) {
    *h = absent_h;
    *w = absent_w;
    return diopiSuccess;
  }
  if ((list.len != 1 && list.len != 2) || !list.data)
    return co_fail(op, "%s: expected 1 or 2 values, got %lld", name,
                   (long long)list.len);
  *h = list.data[0];
  *w = list.data[list.len - 1];
  if (*h < least || *w < least)
    return co_fail(op, "%s: expected values >= %lld, got %lld, %lld", name,
                   least, *h, *w);
  return diopiSuccess;
}

static long long out_size(long long in, long long k, long long s, long long p,
                          long long d, bool ceil_mode) {
  long long span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0)
    return 0;
  long long n = (span + (ceil_mode ? s - 1 : 0)) / s + 1;
  if (ceil_mode && (n - 1) * s >= in + p)
    n--;
  return n;
}

diopiError_t co_window_set(const char *op, co_window *w, long long kernel_h,
                           long long kernel_w, diopiSize_t stride,
                           diopiSize_t padding, diopiSize_t dilation,
                           bool ceil_mode) {
  w->kernel_h = kernel_h;
  w->kernel_w = kernel_w;
  diopiError_t e;
  if ((e = pair(op, "stride", stride, 1, kernel_h, kernel_w, &w->stride_h,
                &w->stride_w)) ||
      (e = pair(op, "padding", padding, 0, 0, 0, &w->pad_h, &w->pad_w)) ||
      (e = pair(op, "dilation", dilation, 1, 1, 1, &w->dilation_h,
                &w->dilation_w)))
    return e;
  w->out_height = out_size(w->height, kernel_h, w->stride_h, w->pad_h,
                           w->dilation_h, ceil_mode);
  w->out_width = out_size(w->width, kernel_w, w->stride_w, w->pad_w,
                          w->dilation_w, ceil_mode);
  if (w->out_height <= 0 || w->out_width <= 0)
    return co_fail(op,
                   "input: %lld x %lld is smaller than the %lld x %lld "
                   "window (padding %lld, %lld; dilation %lld, %lld)",
                   w->height, w->width, kernel_h, kernel_w, w->pad_h, w->pad_w,
                   w->dilation_h, w->dilation_w);
  return diopiSuccess;
}
