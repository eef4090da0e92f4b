/* Multi-tensor ops: add or mul by a scalar (in place or not), mul by a
 * tensor (broadcast), and each tensor's norm; and the mixed-precision
 * grad scaler's two steps (unscale with a non-finite check, scale update),
 * which read their scale and flags on the stream. Every tensor is checked
 * before any work is enqueued. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_tensor.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t
#define S const diopiScalar_t *

enum { GROUP = 32 }; /* tensors per unscale task */

/* p[0]: the scalar; p[1]: 1 to multiply, 0 to add. */
static double scalar_fn(const double *in, const double *p) {
  return p[1] != 0 ? in[0] * p[0] : in[0] + p[0];
}
static double mul_fn(const double *in, const double *p) {
  (void)p;
  return in[0] * in[1];
}

/* Checks outs[i] (NULL list: in place) against inputs[i] for all i. */
static diopiError_t check_lists(diopiContextHandle_t ctx, const char *op,
                                T *outs, CT *inputs, int64_t n) {
  if (n < 0 || (n && !inputs))
    return ref_fail(op, "inputs: expected %lld tensors, got a NULL list",
                    (long long)n);
  char name[32];
  for (int64_t i = 0; i < n; i++) {
    ref_view_t in, out;
    snprintf(name, sizeof name, "inputs[%lld]", (long long)i);
    diopiError_t err = ref_view(ctx, op, name, inputs[i], &in);
    if (!err && outs) {
      snprintf(name, sizeof name, "outs[%lld]", (long long)i);
      err = ref_view(ctx, op, name, outs[i], &out);
      if (!err)
        err = ref_expect_shape(op, name, &out, in.shape, in.ndim);
    }
    if (err)
      return err;
  }
  return diopiSuccess;
}

static diopiError_t by_scalar(CTX, const char *op, T *outs, CT *inputs,
                              int64_t n, S other, bool multiply) {
  if (!other)
    return ref_fail(op, "other: scalar is NULL");
  diopiError_t err = check_lists(ctx, op, outs, inputs, n);
  double params[4] = {ref_scalar(other, 0), multiply};
  static const char *const names[1] = {"input"};
  for (int64_t i = 0; !err && i < n; i++)
    err = ref_ew_call(ctx, op, outs ? outs[i] : inputs[i], 1, &inputs[i], names,
                      scalar_fn, NULL, params, REF_OUT_ANY);
  return err;
}

REF_EXPORT diopiError_t diopiForeachaddScalar(CTX, T *outs, CT *inputs,
                                              int64_t inputSize, S other) {
  if (!outs)
    return ref_fail("diopiForeachaddScalar", "outs: NULL list");
  return by_scalar(ctx, "diopiForeachaddScalar", outs, inputs, inputSize, other,
                   false);
}
REF_EXPORT diopiError_t diopiForeachaddInpScalar(CTX, T *inputs,
                                                 int64_t inputSize, S other) {
  return by_scalar(ctx, "diopiForeachaddInpScalar", NULL, (CT *)inputs,
                   inputSize, other, false);
}
REF_EXPORT diopiError_t diopiForeachmulScalar(CTX, T *outs, CT *inputs,
                                              int64_t inputSize, S other) {
  if (!outs)
    return ref_fail("diopiForeachmulScalar", "outs: NULL list");
  return by_scalar(ctx, "diopiForeachmulScalar", outs, inputs, inputSize, other,
                   true);
}
REF_EXPORT diopiError_t diopiForeachmulInpScalar(CTX, T *inputs,
                                                 int64_t inputSize, S other) {
  return by_scalar(ctx, "diopiForeachmulInpScalar", NULL, (CT *)inputs,
                   inputSize, other, true);
}

static diopiError_t by_tensor(CTX, const char *op, T *outs, CT *inputs,
                              int64_t n, CT other) {
  diopiError_t err = check_lists(ctx, op, outs, inputs, n);
  static const char *const names[2] = {"input", "other"};
  for (int64_t i = 0; !err && i < n; i++) {
    CT in[2] = {inputs[i], other};
    err = ref_ew_call(ctx, op, outs ? outs[i] : inputs[i], 2, in, names, mul_fn,
                      NULL, NULL, REF_OUT_ANY);
  }
  return err;
}
REF_EXPORT diopiError_t diopiForeachmulTensor(CTX, T *outs, CT *inputs,
                                              int64_t inputSize,
                                              const CT other) {
  if (!outs)
    return ref_fail("diopiForeachmulTensor", "outs: NULL list");
  return by_tensor(ctx, "diopiForeachmulTensor", outs, inputs, inputSize,
                   other);
}
REF_EXPORT diopiError_t diopiForeachmulInpTensor(CTX, T *inputs,
                                                 int64_t inputSize,
                                                 const CT other) {
  return by_tensor(ctx, "diopiForeachmulInpTensor", NULL, (CT *)inputs,
                   inputSize, other);
}

/* outs[i] (one element) = the ord-norm of inputs[i]. */
REF_EXPORT diopiError_t diopiForeachnormScalar(CTX, T *outs, CT *inputs,
                                               int64_t inputSize, S ord) {
  const char *op = "diopiForeachnormScalar";
  diopiError_t err = check_lists(ctx, op, NULL, inputs, inputSize);
  if (!err && inputSize && !outs)
    err = ref_fail(op, "outs: NULL list");
  diopiSize_t all = {NULL, 0};
  for (int64_t i = 0; !err && i < inputSize; i++)
    err = diopiNorm(ctx, outs[i], inputs[i], ord, all);
  return err;
}

typedef struct unscale_task {
  ref_view_t grads[GROUP], found_inf, inv_scale;
  int count;
} unscale_task_t;

static void run_unscale(void *args) {
  const unscale_task_t *t = args;
  double inv = ref_get(&t->inv_scale, 0);
  bool found = false;
  for (int k = 0; k < t->count; k++)
    for (int64_t i = 0; i < t->grads[k].numel; i++) {
      double g = ref_get(&t->grads[k], i) * inv;
      found = found || !isfinite(g);
      ref_set(&t->grads[k], i, g);
    }
  if (found)
    ref_set(&t->found_inf, 0, 1);
}

/* Each gradient times inv_scale; found_inf set to 1 (never cleared) if
 * any result is not finite. */
REF_EXPORT diopiError_t diopiAmpForeachNonFiniteCheckAndUnscaleInp(
    CTX, T *scaled_grads, int64_t num_scaled_grads, T found_inf, CT inv_scale) {
  const char *op = "diopiAmpForeachNonFiniteCheckAndUnscaleInp";
  unscale_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err =
      check_lists(ctx, op, NULL, (CT *)scaled_grads, num_scaled_grads);
  if (!err)
    err = ref_view(ctx, op, "found_inf", found_inf, &t.found_inf);
  if (!err)
    err = ref_view(ctx, op, "inv_scale", inv_scale, &t.inv_scale);
  if (!err && (t.found_inf.numel != 1 || t.inv_scale.numel != 1))
    err = ref_fail(op,
                   "found_inf, inv_scale: expected one element each, got "
                   "%lld and %lld",
                   (long long)t.found_inf.numel, (long long)t.inv_scale.numel);
  for (int64_t i = 0; !err && i < num_scaled_grads; i += GROUP) {
    t.count = 0;
    for (int64_t k = i; k < num_scaled_grads && k < i + GROUP; k++)
      ref_view(ctx, op, "scaled_grads", scaled_grads[k], &t.grads[t.count++]);
    err = ref_enqueue(ctx, op, run_unscale, &t, sizeof t);
  }
  return err;
}

typedef struct update_task {
  ref_view_t scale, tracker, found_inf;
  double growth, backoff;
  int64_t interval;
} update_task_t;

static void run_update(void *args) {
  const update_task_t *t = args;
  double scale = ref_get(&t->scale, 0);
  int64_t tracker = (int64_t)ref_get(&t->tracker, 0);
  if (ref_get(&t->found_inf, 0) != 0) {
    scale *= t->backoff;
    tracker = 0;
  } else if (++tracker == t->interval) {
    scale *= t->growth;
    tracker = 0;
  }
  ref_set(&t->scale, 0, scale);
  ref_set(&t->tracker, 0, (double)tracker);
}

/* found_inf: scale backs off, the tracker resets; else the tracker counts
 * and every growth_interval-th clean step grows the scale. */
REF_EXPORT diopiError_t diopiAmpUpdateScaleInp(CTX, T current_scale,
                                               T growth_tracker, CT found_inf,
                                               double scale_growth_factor,
                                               double scale_backoff_factor,
                                               int32_t growth_interval) {
  const char *op = "diopiAmpUpdateScaleInp";
  update_task_t t;
  memset(&t, 0, sizeof t);
  t.growth = scale_growth_factor;
  t.backoff = scale_backoff_factor;
  t.interval = growth_interval;
  diopiError_t err =
      ref_view(ctx, op, "current_scale", current_scale, &t.scale);
  if (!err)
    err = ref_view(ctx, op, "growth_tracker", growth_tracker, &t.tracker);
  if (!err)
    err = ref_view(ctx, op, "found_inf", found_inf, &t.found_inf);
  if (!err &&
      (t.scale.numel != 1 || t.tracker.numel != 1 || t.found_inf.numel != 1))
    err = ref_fail(op, "current_scale, growth_tracker, found_inf: expected "
                       "one element each");
  if (!err && growth_interval < 1)
    err = ref_fail(op, "growth_interval: expected >= 1, got %d",
                   (int)growth_interval);
  return err ? err : ref_enqueue(ctx, op, run_update, &t, sizeof t);
}
