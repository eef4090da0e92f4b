/* im2col (unfold: each sliding window's pixels as a column, (N, C*kh*kw,
 * L) from (N, C, H, W); zero padding) and col2im (fold: the columns'
 * pixels added back into the image). One (image, channel) plane per work
 * item: a plane's columns and pixels belong to it alone. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_view_more.h"
#include "ref_window.h"

typedef struct im2col_task {
  bool fold;              /* col2im */
  ref_view_t image, cols; /* (N, C, H, W) and (N, C*kh*kw, L) */
  int64_t n, c, h, w, k[2], dil[2], pad[2], stride[2], oh, ow;
} im2col_task_t;

static int64_t at3(const ref_view_t *v, int64_t a, int64_t b, int64_t c) {
  return a * v->strides[0] + b * v->strides[1] + c * v->strides[2];
}
static int64_t at4(const ref_view_t *v, int64_t a, int64_t b, int64_t c,
                   int64_t d) {
  return at3(v, a, b, c) + d * v->strides[3];
}

static void plane(const im2col_task_t *t, int64_t item) {
  int64_t img = item / t->c, ch = item % t->c;
  if (t->fold)
    for (int64_t y = 0; y < t->h; y++)
      for (int64_t x = 0; x < t->w; x++)
        ref_store_at(&t->image, at4(&t->image, img, ch, y, x), 0);
  for (int64_t a = 0; a < t->k[0]; a++)
    for (int64_t b = 0; b < t->k[1]; b++) {
      int64_t row = (ch * t->k[0] + a) * t->k[1] + b;
      for (int64_t i = 0; i < t->oh; i++)
        for (int64_t j = 0; j < t->ow; j++) {
          int64_t y = i * t->stride[0] - t->pad[0] + a * t->dil[0];
          int64_t x = j * t->stride[1] - t->pad[1] + b * t->dil[1];
          bool inside = y >= 0 && y < t->h && x >= 0 && x < t->w;
          int64_t col = at3(&t->cols, img, row, i * t->ow + j);
          if (!t->fold) {
            ref_store_at(
                &t->cols, col,
                inside ? ref_load_at(&t->image, at4(&t->image, img, ch, y, x))
                       : 0);
          } else if (inside) {
            int64_t px = at4(&t->image, img, ch, y, x);
            ref_store_at(&t->image, px,
                         ref_load_at(&t->image, px) +
                             ref_load_at(&t->cols, col));
          }
        }
    }
}

static void planes_range(void *context, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; i++)
    plane(context, i);
}
static void run(void *args) {
  im2col_task_t *t = args;
  ref_parallel_for(t->n * t->c, 1, planes_range, t);
}

/* The window attributes and the image size (h, w) into t; oh, ow. */
static diopiError_t geometry(const char *op, im2col_task_t *t,
                             diopiSize_t kernel_size, diopiSize_t dilation,
                             diopiSize_t padding, diopiSize_t stride) {
  diopiError_t err =
      ref_window_pair(op, "kernel_size", kernel_size, 1, 0, t->k);
  if (!err && kernel_size.len == 0)
    err = ref_fail(op, "kernel_size: expected 1 or 2 values, got none");
  if (!err)
    err = ref_window_pair(op, "dilation", dilation, 1, 1, t->dil);
  if (!err)
    err = ref_window_pair(op, "padding", padding, 0, 0, t->pad);
  if (!err)
    err = ref_window_pair(op, "stride", stride, 1, 1, t->stride);
  if (err)
    return err;
  t->oh =
      ref_window_out(t->h, t->k[0], t->stride[0], t->pad[0], t->dil[0], false);
  t->ow =
      ref_window_out(t->w, t->k[1], t->stride[1], t->pad[1], t->dil[1], false);
  if (t->oh < 1 || t->ow < 1)
    return ref_fail(op,
                    "kernel_size: the windows do not fit a %lldx%lld "
                    "image",
                    (long long)t->h, (long long)t->w);
  return diopiSuccess;
}

static diopiError_t check_cols(const char *op, const char *arg,
                               im2col_task_t *t) {
  int64_t shape[3] = {t->n, t->c * t->k[0] * t->k[1], t->oh * t->ow};
  diopiError_t err = ref_expect_shape(op, arg, &t->cols, shape, 3);
  if (!err)
    err = ref_expect_no_partial_overlap(op, arg, &t->image, &t->cols);
  return err;
}

REF_EXPORT diopiError_t diopiIm2Col(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    diopiConstTensorHandle_t input,
                                    diopiSize_t kernel_size,
                                    diopiSize_t dilation, diopiSize_t padding,
                                    diopiSize_t stride) {
  const char *op = "diopiIm2Col";
  im2col_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = ref_view(ctx, op, "input", input, &t.image);
  if (!err && t.image.ndim != 4)
    err =
        ref_fail(op, "input: expected (N, C, H, W), got %d dims", t.image.ndim);
  if (err)
    return err;
  t.n = t.image.shape[0];
  t.c = t.image.shape[1];
  t.h = t.image.shape[2];
  t.w = t.image.shape[3];
  if ((err = geometry(op, &t, kernel_size, dilation, padding, stride)) ||
      (err = ref_view(ctx, op, "out", out, &t.cols)) ||
      (err = check_cols(op, "out", &t)))
    return err;
  return t.cols.numel ? ref_enqueue(ctx, op, run, &t, sizeof t) : diopiSuccess;
}

REF_EXPORT diopiError_t diopiCol2Im(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    diopiConstTensorHandle_t input,
                                    diopiSize_t output_size,
                                    diopiSize_t kernel_size,
                                    diopiSize_t dilation, diopiSize_t padding,
                                    diopiSize_t stride) {
  const char *op = "diopiCol2Im";
  im2col_task_t t;
  memset(&t, 0, sizeof t);
  t.fold = true;
  int64_t size[2];
  diopiError_t err = ref_view(ctx, op, "out", out, &t.image);
  if (!err && t.image.ndim != 4)
    err = ref_fail(op, "out: expected (N, C, H, W), got %d dims", t.image.ndim);
  if (!err)
    err = ref_window_pair(op, "output_size", output_size, 1, 0, size);
  if (!err && output_size.len == 0)
    err = ref_fail(op, "output_size: expected 1 or 2 values, got none");
  if (!err && (t.image.shape[2] != size[0] || t.image.shape[3] != size[1]))
    err = ref_fail(op, "out: %lldx%lld pixels, output_size says %lldx%lld",
                   (long long)t.image.shape[2], (long long)t.image.shape[3],
                   (long long)size[0], (long long)size[1]);
  if (err)
    return err;
  t.n = t.image.shape[0];
  t.c = t.image.shape[1];
  t.h = size[0];
  t.w = size[1];
  if ((err = geometry(op, &t, kernel_size, dilation, padding, stride)) ||
      (err = ref_view(ctx, op, "input", input, &t.cols)) ||
      (err = check_cols(op, "input", &t)))
    return err;
  return t.image.numel ? ref_enqueue(ctx, op, run, &t, sizeof t) : diopiSuccess;
}
