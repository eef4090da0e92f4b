/* cumsum along a dim and its backward (the reverse cumulative sum of
 * grad_output), and cumprod (an extension): each line along the dim scanned
 * in double (in int64, wrapping, for integral input and out), lines split
 * across the worker pool; any dtypes and strides. */
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

typedef struct scan_task {
  ref_view_t out, in;             /* as given */
  ref_view_t out_lines, in_lines; /* the other dims: one element per line */
  int dim;
  bool reverse;
  bool product; /* cumprod, else cumsum */
} scan_task_t;

static void run_range(void *context, int64_t begin, int64_t end) {
  const scan_task_t *t = context;
  int64_t n = t->in.ndim ? t->in.shape[t->dim] : 1;
  int64_t in_step = t->in.ndim ? t->in.strides[t->dim] : 0;
  int64_t out_step = t->out.ndim ? t->out.strides[t->dim] : 0;
  size_t in_elem = ref_dtype_size(t->in.dtype),
         out_elem = ref_dtype_size(t->out.dtype);
  for (int64_t l = begin; l < end; l++) {
    char *in = t->in.data + ref_offset(&t->in_lines, l) * (int64_t)in_elem;
    char *out = t->out.data + ref_offset(&t->out_lines, l) * (int64_t)out_elem;
    double acc = t->product ? 1 : 0;
    if (t->in.dtype == diopi_dtype_float32 &&
        t->out.dtype == diopi_dtype_float32) { /* no dtype switch per step */
      const float *x = (const float *)in;
      float *y = (float *)out;
      int64_t first = t->reverse ? n - 1 : 0, step = t->reverse ? -1 : 1;
      if (t->product) /* one loop each: a select would join the chain */
        for (int64_t k = 0, i = first; k < n; k++, i += step) {
          acc *= x[i * in_step];
          y[i * out_step] = (float)acc;
        }
      else
        for (int64_t k = 0, i = first; k < n; k++, i += step) {
          acc += x[i * in_step];
          y[i * out_step] = (float)acc;
        }
      continue;
    }
    if (ref_is_integral(t->in.dtype) && ref_is_integral(t->out.dtype)) {
      uint64_t total = t->product; /* wraps as PyTorch's int64 */
      for (int64_t k = 0; k < n; k++) {
        int64_t i = t->reverse ? n - 1 - k : k;
        uint64_t x = (uint64_t)ref_load_int(in + i * in_step * (int64_t)in_elem,
                                            t->in.dtype);
        total = t->product ? total * x : total + x;
        ref_store_int(out + i * out_step * (int64_t)out_elem, t->out.dtype,
                      (int64_t)total);
      }
      continue;
    }
    for (int64_t k = 0; k < n; k++) {
      int64_t i = t->reverse ? n - 1 - k : k;
      double x = ref_load(in + i * in_step * (int64_t)in_elem, t->in.dtype);
      acc = t->product ? acc * x : acc + x;
      ref_store(out + i * out_step * (int64_t)out_elem, t->out.dtype, acc);
    }
  }
}

static void run(void *args) {
  scan_task_t *t = args;
  int64_t n = t->in.ndim ? t->in.shape[t->dim] : 1;
  ref_parallel_for(t->in_lines.numel, (1 << 15) / (n ? n : 1) + 1, run_range,
                   t);
}

static diopiError_t scan(diopiContextHandle_t ctx, const char *op,
                         const char *in_name, diopiConstTensorHandle_t out,
                         const char *out_name, diopiConstTensorHandle_t input,
                         int64_t dim, bool reverse, bool product) {
  scan_task_t t;
  memset(&t, 0, sizeof t);
  t.reverse = reverse;
  t.product = product;
  diopiError_t err = ref_view(ctx, op, out_name, out, &t.out);
  if (!err)
    err = ref_view(ctx, op, in_name, input, &t.in);
  if (!err)
    err = ref_dim(op, "dim", dim, t.in.ndim, &t.dim);
  if (!err)
    err = ref_expect_shape(op, out_name, &t.out, t.in.shape, t.in.ndim);
  if (!err)
    err = ref_expect_no_partial_overlap(op, in_name, &t.out, &t.in);
  if (err || t.in.numel == 0)
    return err;
  t.in_lines = ref_lines_of(&t.in, t.in.ndim ? t.dim : -1);
  t.out_lines = ref_lines_of(&t.out, t.out.ndim ? t.dim : -1);
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiCumsum(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    diopiConstTensorHandle_t input,
                                    int64_t dim) {
  return scan(ctx, "diopiCumsum", "input", out, "out", input, dim, false,
              false);
}

REF_EXPORT diopiError_t diopiCumprod(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiConstTensorHandle_t input,
                                     int64_t dim) {
  return scan(ctx, "diopiCumprod", "input", out, "out", input, dim, false,
              true);
}

REF_EXPORT diopiError_t
diopiCumsumBackward(diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
                    diopiConstTensorHandle_t grad_output, int64_t dim) {
  return scan(ctx, "diopiCumsumBackward", "grad_output", grad_input,
              "grad_input", grad_output, dim, true, false);
}
