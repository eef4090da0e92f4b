/* softmax and log_softmax over one dim, and their backwards. A lane is one
 * line along `dim`: (outer, inner) pairs, split across the worker pool. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_tensor.h"

typedef struct softmax_task {
  ref_view_t out, a, b; /* forward: a = input; backward: a = grad_output,
                           b = output */
  int64_t length, inner;
  bool log, backward;
} softmax_task_t;

static void forward_lane(const softmax_task_t *t, int64_t lane) {
  int64_t base = (lane / t->inner) * t->length * t->inner + lane % t->inner;
  double max = -INFINITY, sum = 0;
  for (int64_t k = 0; k < t->length; k++) {
    double v = ref_get(&t->a, base + k * t->inner);
    max = v > max ? v : max;
  }
  for (int64_t k = 0; k < t->length; k++)
    sum += exp(ref_get(&t->a, base + k * t->inner) - max);
  double log_sum = log(sum);
  for (int64_t k = 0; k < t->length; k++) {
    double z = ref_get(&t->a, base + k * t->inner) - max;
    ref_set(&t->out, base + k * t->inner, t->log ? z - log_sum : exp(z) / sum);
  }
}

/* float32, contiguous, dim last: rows of plain floats. log_softmax sums
 * its exps in a block on the stack, since out may be the input. */
REF_ISA_BODY void forward_row_f32_body(const softmax_task_t *t, int64_t row) {
  const float *x = (const float *)t->a.data + row * t->length;
  float *y = (float *)t->out.data + row * t->length;
  float max = ref_f32_max(x, t->length);
  if (!t->log) {
    ref_f32_exp(y, x, t->length, max);
    float inv = (float)(1.0 / ref_f32_sum(y, t->length));
    for (int64_t k = 0; k < t->length; k++)
      y[k] *= inv;
    return;
  }
  float block[REF_F32_BLOCK];
  double sum = 0;
  for (int64_t o = 0; o < t->length; o += REF_F32_BLOCK) {
    int64_t n = t->length - o < REF_F32_BLOCK ? t->length - o : REF_F32_BLOCK;
    ref_f32_exp(block, x + o, n, max);
    sum += ref_f32_sum(block, n);
  }
  float shift = max + (float)log(sum);
  for (int64_t k = 0; k < t->length; k++)
    y[k] = x[k] - shift;
}
REF_ISA_DISPATCH_VOID(static, forward_row_f32,
                      (const softmax_task_t *t, int64_t row), (t, row))

/* softmax: gi = y * (g - sum(g * y)); log_softmax: gi = g - exp(y) sum(g). */
static void backward_lane(const softmax_task_t *t, int64_t lane) {
  int64_t base = (lane / t->inner) * t->length * t->inner + lane % t->inner;
  double dot = 0;
  for (int64_t k = 0; k < t->length; k++) {
    double g = ref_get(&t->a, base + k * t->inner);
    dot += t->log ? g : g * ref_get(&t->b, base + k * t->inner);
  }
  for (int64_t k = 0; k < t->length; k++) {
    int64_t i = base + k * t->inner;
    double g = ref_get(&t->a, i), y = ref_get(&t->b, i);
    ref_set(&t->out, i, t->log ? g - exp(y) * dot : y * (g - dot));
  }
}

/* The same on rows of plain floats; log_softmax exps y a block at a time
 * on the stack, since grad_input may be grad_output. */
static void backward_row_f32(const softmax_task_t *t, int64_t row) {
  const float *g = (const float *)t->a.data + row * t->length;
  const float *y = (const float *)t->b.data + row * t->length;
  float *gi = (float *)t->out.data + row * t->length;
  if (!t->log) {
    float dot = (float)ref_f32_dot(g, y, t->length);
    for (int64_t k = 0; k < t->length; k++)
      gi[k] = y[k] * (g[k] - dot);
    return;
  }
  float sum = (float)ref_f32_sum(g, t->length), block[REF_F32_BLOCK];
  for (int64_t o = 0; o < t->length; o += REF_F32_BLOCK) {
    int64_t n = t->length - o < REF_F32_BLOCK ? t->length - o : REF_F32_BLOCK;
    ref_f32_exp(block, y + o, n, 0.0f);
    for (int64_t k = 0; k < n; k++)
      gi[o + k] = g[o + k] - block[k] * sum;
  }
}

static bool rows_f32(const softmax_task_t *t) {
  return t->inner == 1 && ref_f32_contiguous(&t->out) &&
         ref_f32_contiguous(&t->a) &&
         (!t->backward || ref_f32_contiguous(&t->b));
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const softmax_task_t *t = context;
  bool fast = rows_f32(t);
  for (int64_t lane = begin; lane < end; lane++) {
    if (fast)
      (t->backward ? backward_row_f32 : forward_row_f32)(t, lane);
    else
      (t->backward ? backward_lane : forward_lane)(t, lane);
  }
}

static void run(void *args) {
  softmax_task_t *t = args;
  int64_t lanes = t->out.numel / t->length;
  ref_parallel_for(lanes, (1 << 14) / (t->length + 1) + 1, run_range, t);
}

static diopiError_t launch(diopiContextHandle_t ctx, const char *op,
                           diopiConstTensorHandle_t out,
                           diopiConstTensorHandle_t a, const char *a_name,
                           diopiConstTensorHandle_t b, int64_t dim, bool log) {
  softmax_task_t t;
  memset(&t, 0, sizeof t);
  t.log = log;
  t.backward = b != NULL;
  int d;
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, a_name, a, &t.a);
  if (!err && b)
    err = ref_view(ctx, op, "output", b, &t.b);
  if (!err)
    err = ref_expect_shape(op, "out", &t.out, t.a.shape, t.a.ndim);
  if (!err && b)
    err = ref_expect_shape(op, "output", &t.b, t.a.shape, t.a.ndim);
  if (!err)
    err = ref_dim(op, "dim", dim, t.a.ndim, &d);
  if (!err && !ref_is_floating(t.out.dtype))
    err =
        ref_fail(op, "out: dtype %d is not a floating type", (int)t.out.dtype);
  if (!err)
    err = ref_expect_no_partial_overlap(op, a_name, &t.out, &t.a);
  if (err)
    return err;
  t.length = t.a.ndim ? t.a.shape[d] : 1;
  t.inner = 1;
  for (int i = d + 1; i < t.a.ndim; i++)
    t.inner *= t.a.shape[i];
  if (t.out.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

REF_EXPORT diopiError_t diopiSoftmax(CTX, T out, CT input, int64_t dim) {
  return launch(ctx, "diopiSoftmax", out, input, "input", NULL, dim, false);
}
REF_EXPORT diopiError_t diopiLogSoftmax(CTX, T out, CT input, int64_t dim) {
  return launch(ctx, "diopiLogSoftmax", out, input, "input", NULL, dim, true);
}
REF_EXPORT diopiError_t diopiSoftmaxBackward(CTX, T grad_input, CT grad_output,
                                             CT output, int64_t dim) {
  return launch(ctx, "diopiSoftmaxBackward", grad_input, grad_output,
                "grad_output", output, dim, false);
}
REF_EXPORT diopiError_t diopiLogSoftmaxBackward(CTX, T grad_input,
                                                CT grad_output, CT output,
                                                int64_t dim) {
  return launch(ctx, "diopiLogSoftmaxBackward", grad_input, grad_output,
                "grad_output", output, dim, true);
}
