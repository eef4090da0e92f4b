/* cummax and cummin along a dim, values and indices, as PyTorch's CPU: the
 * running best moves to an element that is at least as good (so an equal
 * later value takes over the index), and a NaN takes over and holds until
 * the next NaN. Any dtypes (compared in double: integers exact to 2^53) and
 * strides; lines split across the worker pool. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

typedef struct cum_task {
  ref_view_t values, indices, in;
  /* One element per line (the dim dropped), with each tensor's strides. */
  ref_view_t values_lines, indices_lines, in_lines;
  int dim;
  bool max; /* cummax; else cummin */
} cum_task_t;

static int64_t step_of(const ref_view_t *v, int d) {
  return v->ndim ? v->strides[d] : 0;
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const cum_task_t *t = context;
  int64_t n = t->in.ndim ? t->in.shape[t->dim] : 1;
  int64_t is = step_of(&t->in, t->dim), vs = step_of(&t->values, t->dim),
          xs = step_of(&t->indices, t->dim);
  for (int64_t l = begin; l < end; l++) {
    int64_t ib = ref_offset(&t->in_lines, l),
            vb = ref_offset(&t->values_lines, l),
            xb = ref_offset(&t->indices_lines, l);
    double best = ref_load_at(&t->in, ib);
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
      double x = ref_load_at(&t->in, ib + i * is);
      bool takes = t->max ? x >= best : x <= best;
      if (isnan(x) || (!isnan(best) && takes)) {
        best = x;
        at = i;
      }
      ref_store_at(&t->values, vb + i * vs, best);
      if (t->indices.dtype == diopi_dtype_int64)
        ((int64_t *)t->indices.data)[xb + i * xs] = at;
      else
        ref_store_at(&t->indices, xb + i * xs, (double)at);
    }
  }
}

static void run(void *args) {
  cum_task_t *t = args;
  int64_t n = t->in.ndim ? t->in.shape[t->dim] : 1;
  ref_parallel_for(t->in_lines.numel, (1 << 14) / (n ? n : 1) + 1, run_range,
                   t);
}

static diopiError_t cum(diopiContextHandle_t ctx, const char *op, bool max,
                        diopiConstTensorHandle_t values,
                        diopiConstTensorHandle_t indices,
                        diopiConstTensorHandle_t input, int64_t dim) {
  cum_task_t t;
  memset(&t, 0, sizeof t);
  t.max = max;
  diopiError_t err = ref_view(ctx, op, "values", values, &t.values);
  if (!err)
    err = ref_view(ctx, op, "indices", indices, &t.indices);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.in);
  if (!err)
    err = ref_dim(op, "dim", dim, t.in.ndim, &t.dim);
  if (!err)
    err = ref_expect_shape(op, "values", &t.values, t.in.shape, t.in.ndim);
  if (!err)
    err = ref_expect_shape(op, "indices", &t.indices, t.in.shape, t.in.ndim);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.values, &t.in);
  if (!err && !ref_is_integral(t.indices.dtype))
    err = ref_fail(op, "indices: expected an integer dtype, got dtype %d",
                   (int)t.indices.dtype);
  if (err || t.in.numel == 0)
    return err;
  int line_dim = t.in.ndim ? t.dim : -1;
  t.in_lines = ref_lines_of(&t.in, line_dim);
  t.values_lines = ref_lines_of(&t.values, line_dim);
  t.indices_lines = ref_lines_of(&t.indices, line_dim);
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiCummax(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t values,
                                    diopiTensorHandle_t indices,
                                    diopiConstTensorHandle_t input,
                                    int64_t dim) {
  return cum(ctx, "diopiCummax", true, values, indices, input, dim);
}
REF_EXPORT diopiError_t diopiCummin(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t values,
                                    diopiTensorHandle_t indices,
                                    diopiConstTensorHandle_t input,
                                    int64_t dim) {
  return cum(ctx, "diopiCummin", false, values, indices, input, dim);
}
