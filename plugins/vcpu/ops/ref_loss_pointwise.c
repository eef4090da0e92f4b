/* The pointwise loss engine's checks and tasks. */
#include "ref_loss_pointwise.h"

#include <string.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"
#include "ref_pool.h"

enum { PARTS = 64 }; /* partial sums of a reduction, one per chunk */

typedef struct loss_task {
  int nin;
  ref_view_t out, in[REF_LOSS_MAX_IN];
  ref_loss_fn_t fn;
  ref_ew_f32_fn_t f32; /* NULL unless every input is contiguous float32 */
  double params[4];
  bool reduce, mean;
  double scale;
  int64_t numel; /* elements of the loss */
  double parts[PARTS];
} loss_task_t;

enum { BLOCK = 256 };

/* values[j] = the loss of element begin + j, j < n <= BLOCK: the inputs
 * read a block at a time. */
static void values_at(const loss_task_t *t, int64_t begin, int64_t n,
                      double *values) {
  if (t->f32) {
    const float *x[REF_LOSS_MAX_IN];
    float y[BLOCK];
    for (int k = 0; k < t->nin; k++)
      x[k] = (const float *)t->in[k].data + begin;
    t->f32(y, x, n, t->params);
    for (int64_t j = 0; j < n; j++)
      values[j] = y[j];
    return;
  }
  double in[REF_LOSS_MAX_IN][BLOCK], v[REF_LOSS_MAX_IN];
  for (int k = 0; k < t->nin; k++)
    ref_get_block(&t->in[k], begin, n, in[k]);
  for (int64_t j = 0; j < n; j++) {
    for (int k = 0; k < t->nin; k++)
      v[k] = in[k][j];
    values[j] = t->fn(v, t->params);
  }
}

static void store_range(void *context, int64_t begin, int64_t end) {
  const loss_task_t *t = context;
  double values[BLOCK];
  for (int64_t i = begin; i < end; i += BLOCK) {
    int64_t n = end - i < BLOCK ? end - i : BLOCK;
    values_at(t, i, n, values);
    for (int64_t j = 0; j < n; j++)
      ref_set(&t->out, i + j, t->scale * values[j]);
  }
}

static void sum_parts(void *context, int64_t begin, int64_t end) {
  loss_task_t *t = context;
  double values[BLOCK];
  for (int64_t part = begin; part < end; part++) {
    int64_t lo = t->numel * part / PARTS, hi = t->numel * (part + 1) / PARTS;
    double sum = 0;
    for (int64_t i = lo; i < hi; i += BLOCK) {
      int64_t n = hi - i < BLOCK ? hi - i : BLOCK;
      if (t->f32) { /* a block of float losses, summed in SIMD lanes */
        const float *x[REF_LOSS_MAX_IN];
        float y[BLOCK];
        for (int k = 0; k < t->nin; k++)
          x[k] = (const float *)t->in[k].data + i;
        t->f32(y, x, n, t->params);
        sum += ref_f32_sum(y, n);
        continue;
      }
      values_at(t, i, n, values);
      for (int64_t j = 0; j < n; j++)
        sum += values[j];
    }
    t->parts[part] = sum;
  }
}

static void run(void *args) {
  loss_task_t *t = args;
  if (!t->reduce) {
    ref_parallel_for(t->numel, 1 << 14, store_range, t);
    return;
  }
  /* Parts in parallel once there is enough to share. */
  ref_parallel_for(PARTS, t->numel >= (1 << 16) ? 1 : PARTS, sum_parts, t);
  double sum = 0;
  for (int part = 0; part < PARTS; part++)
    sum += t->parts[part];
  ref_set(&t->out, 0, t->mean ? sum / (double)t->numel : sum);
}

diopiError_t ref_loss_reduction(const char *op, diopiReduction_t reduction) {
  if (reduction == ReductionNone || reduction == ReductionMean ||
      reduction == ReductionSum)
    return diopiSuccess;
  return ref_fail(op, "reduction: expected none, mean or sum (0-2), got %d",
                  (int)reduction);
}

/* Views loss->in into t->in from slot `first`, each broadcast to in[0]'s
 * shape, and out into t->out. */
static diopiError_t views(diopiContextHandle_t ctx, const char *op,
                          loss_task_t *t, int first, const ref_loss_t *loss,
                          const char *out_name, diopiConstTensorHandle_t out) {
  t->nin = first + loss->nin;
  t->fn = loss->fn;
  memcpy(t->params, loss->params, sizeof t->params);
  diopiError_t err = ref_view(ctx, op, out_name, out, &t->out);
  if (!err)
    err = ref_expect_kind(op, out_name, &t->out, REF_OUT_FLOATING);
  for (int k = 0; !err && k < loss->nin; k++)
    err = ref_view(ctx, op, loss->names[k], loss->in[k], &t->in[first + k]);
  const ref_view_t *input = &t->in[first];
  for (int k = 0; !err && k < t->nin; k++)
    if (k != first)
      err = ref_broadcast_to(op,
                             k < first ? "grad_output" : loss->names[k - first],
                             &t->in[k], input->shape, input->ndim);
  t->numel = input->numel;
  t->f32 = first == 0 ? loss->f32 : NULL; /* forwards only */
  for (int k = 0; !err && k < t->nin; k++)
    if (!ref_f32_contiguous(&t->in[k]))
      t->f32 = NULL;
  return err;
}

diopiError_t ref_loss_forward(diopiContextHandle_t ctx, const char *op,
                              diopiConstTensorHandle_t out,
                              diopiReduction_t reduction,
                              const ref_loss_t *loss) {
  loss_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = ref_loss_reduction(op, reduction);
  if (!err)
    err = views(ctx, op, &t, 0, loss, "out", out);
  t.reduce = reduction != ReductionNone;
  t.mean = reduction == ReductionMean;
  t.scale = 1;
  if (!err && !t.reduce)
    err = ref_expect_shape(op, "out", &t.out, t.in[0].shape, t.in[0].ndim);
  if (!err && t.reduce && t.out.numel != 1)
    err = ref_fail(op,
                   "out: expected one element for a reduced loss, got "
                   "%lld",
                   (long long)t.out.numel);
  if (err || (!t.reduce && t.numel == 0))
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

diopiError_t ref_loss_backward(diopiContextHandle_t ctx, const char *op,
                               diopiConstTensorHandle_t grad_input,
                               diopiConstTensorHandle_t grad_output,
                               diopiReduction_t reduction,
                               const ref_loss_t *loss) {
  loss_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = ref_loss_reduction(op, reduction);
  if (!err)
    err = ref_view(ctx, op, "grad_output", grad_output, &t.in[0]);
  if (!err)
    err = views(ctx, op, &t, 1, loss, "grad_input", grad_input);
  if (!err)
    err =
        ref_expect_shape(op, "grad_input", &t.out, t.in[1].shape, t.in[1].ndim);
  for (int k = 0; !err && k < t.nin; k++)
    err = ref_expect_no_partial_overlap(
        op, k ? loss->names[k - 1] : "grad_output", &t.out, &t.in[k]);
  t.scale = reduction == ReductionMean && t.numel ? 1.0 / (double)t.numel : 1;
  if (err || t.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

ref_loss_t ref_loss_pair(diopiConstTensorHandle_t input,
                         diopiConstTensorHandle_t target, ref_loss_fn_t fn,
                         ref_ew_f32_fn_t f32, double param) {
  ref_loss_t loss;
  memset(&loss, 0, sizeof loss);
  loss.nin = 2;
  loss.in[0] = input;
  loss.in[1] = target;
  loss.names[0] = "input";
  loss.names[1] = "target";
  loss.fn = fn;
  loss.f32 = f32;
  loss.params[0] = param;
  return loss;
}
