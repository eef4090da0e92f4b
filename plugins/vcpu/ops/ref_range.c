/* Filled tensors: arange and linspace (out[i] = start + i * step,
 * linspace's second half counted back from end: PyTorch's order, so both
 * ends are exact), zeros and ones. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_tensor.h"

typedef struct ramp_task {
  ref_view_t out;
  double start, end, step;
  int64_t half; /* elements counted from start; the rest from end */
} ramp_task_t;

/* out[i] = origin + step * (i - at) for i in [begin, end): the values of
 * the loop below, without its branch, vectorized. The index goes through
 * int32 (base + j, exact in double): AVX2 has no int64-to-double
 * conversion, which left that build converting one element at a time. */
REF_ISA_BODY void ramp_f32_body(float *out, int64_t begin, int64_t end,
                                double origin, double step, int64_t at) {
  for (int64_t from = begin; from < end;) {
    int32_t count = end - from < INT32_MAX ? (int32_t)(end - from) : INT32_MAX;
    double base = (double)(from - at);
    float *o = out + from;
    for (int32_t j = 0; j < count; j++)
      o[j] = (float)(origin + step * (base + (double)j));
    from += count;
  }
}
REF_ISA_DISPATCH_VOID(static, ramp_f32,
                      (float *out, int64_t begin, int64_t end, double origin,
                       double step, int64_t at),
                      (out, begin, end, origin, step, at))

static void run_range(void *context, int64_t begin, int64_t end) {
  const ramp_task_t *t = context;
  int64_t n = t->out.numel;
  if (ref_f32_contiguous(&t->out)) { /* the two halves, stored directly */
    int64_t split = end < t->half ? end : begin > t->half ? begin : t->half;
    ramp_f32((float *)t->out.data, begin, split, t->start, t->step, 0);
    /* end - step * (n - 1 - i), exactly: end + step * (i - (n - 1)) */
    ramp_f32((float *)t->out.data, split, end, t->end, t->step, n - 1);
    return;
  }
  for (int64_t i = begin; i < end; i++)
    ref_set(&t->out, i,
            i < t->half ? t->start + t->step * (double)i
                        : t->end - t->step * (double)(n - 1 - i));
}

static void run(void *args) {
  ramp_task_t *t = args;
  ref_parallel_for(t->out.numel, 1 << 15, run_range, t);
}

/* out must have `shape` (NULL: any shape). */
static diopiError_t launch_shaped(diopiContextHandle_t ctx, const char *op,
                                  const char *arg, ramp_task_t *t,
                                  diopiConstTensorHandle_t out,
                                  const int64_t *shape, int ndim) {
  diopiError_t err = ref_view(ctx, op, arg, out, &t->out);
  if (!err && shape)
    err = ref_expect_shape(op, arg, &t->out, shape, ndim);
  if (err || t->out.numel == 0)
    return err;
  if (t->half < 0)
    t->half = t->out.numel; /* every element from start */
  return ref_enqueue(ctx, op, run, t, sizeof *t);
}

/* out must be 1-dim with `count` elements. */
static diopiError_t launch(diopiContextHandle_t ctx, const char *op,
                           ramp_task_t *t, diopiConstTensorHandle_t out,
                           int64_t count) {
  return launch_shaped(ctx, op, "out", t, out, &count, 1);
}

/* out (of `size` when given) = value. */
static diopiError_t constant(diopiContextHandle_t ctx, const char *op,
                             const char *arg, diopiConstTensorHandle_t out,
                             const diopiSize_t *size, double value) {
  ramp_task_t t;
  memset(&t, 0, sizeof t);
  t.start = value;
  t.half = -1;
  if (size && size->len > REF_MAX_DIMS)
    return ref_fail(op, "size: %lld dims, at most %d", (long long)size->len,
                    REF_MAX_DIMS);
  return launch_shaped(ctx, op, arg, &t, out, size ? size->data : NULL,
                       size ? (int)size->len : 0);
}

REF_EXPORT diopiError_t diopiZeros(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out, diopiSize_t size) {
  return constant(ctx, "diopiZeros", "out", out, &size, 0);
}
REF_EXPORT diopiError_t diopiOnes(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out, diopiSize_t size) {
  return constant(ctx, "diopiOnes", "out", out, &size, 1);
}
REF_EXPORT diopiError_t diopiZeroInp(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t self) {
  return constant(ctx, "diopiZeroInp", "self", self, NULL, 0);
}

REF_EXPORT diopiError_t diopiArange(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    const diopiScalar_t *start,
                                    const diopiScalar_t *end,
                                    const diopiScalar_t *step) {
  const char *op = "diopiArange";
  if (!end)
    return ref_fail(op, "end: scalar is NULL");
  ramp_task_t t;
  memset(&t, 0, sizeof t);
  t.start = ref_scalar(start, 0);
  t.step = ref_scalar(step, 1);
  double stop = ref_scalar(end, 0);
  if (t.step == 0 || !isfinite(t.step))
    return ref_fail(op, "step: expected a finite nonzero step, got %g", t.step);
  if (!isfinite(t.start) || !isfinite(stop))
    return ref_fail(op, "start, end: expected finite bounds, got %g and %g",
                    t.start, stop);
  if ((stop - t.start) * t.step < 0)
    return ref_fail(op, "step: %g points away from end %g (start %g)", t.step,
                    stop, t.start);
  double count = ceil((stop - t.start) / t.step);
  t.half = (int64_t)count;
  return launch(ctx, op, &t, out, t.half);
}

REF_EXPORT diopiError_t diopiLinspace(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t out,
                                      const diopiScalar_t *start,
                                      const diopiScalar_t *end, int64_t steps) {
  const char *op = "diopiLinspace";
  if (!start || !end)
    return ref_fail(op, "%s: scalar is NULL", start ? "end" : "start");
  if (steps < 0)
    return ref_fail(op, "steps: expected >= 0, got %lld", (long long)steps);
  ramp_task_t t;
  memset(&t, 0, sizeof t);
  t.start = ref_scalar(start, 0);
  t.end = ref_scalar(end, 0);
  t.step = steps > 1 ? (t.end - t.start) / (double)(steps - 1) : 0;
  t.half = steps > 1 ? steps / 2 : steps;
  return launch(ctx, op, &t, out, steps);
}
