/* var over dims with a correction (Bessel's 1 by default: PyTorch's
 * unbiased=True; 0 is unbiased=False) and logsumexp over dims, with their
 * backwards: extension ops (DIOPI 1.0 declares neither). The forwards run
 * on the fold engine (values in double; float32 runs through the float
 * SIMD sums); the backwards on the elementwise engine, the reduced
 * operands broadcast back over the reduced dims. Any floating dtype, any
 * strides; out's shape says whether the reduced dims are kept. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"
#include "ref_fold.h"
#include "ref_scratch.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t
#define S const diopiScalar_t *

/* var after ref_fold_welford_step; p[0] the correction. */
static double var_finish(const ref_fold_state_t *s, int64_t count,
                         const double *p) {
  double dof = (double)count - p[0];
  return s->b / (dof > 0 ? dof : 0); /* no dof: NaN or inf, as PyTorch */
}
static double var_f32(const float *x, int64_t n, int64_t *index,
                      const double *p) {
  (void)index;
  double mean = ref_f32_sum(x, n) / (double)n;
  double dof = (double)n - p[0];
  return ref_f32_sum_sq_dev(x, n, (float)mean) / (dof > 0 ? dof : 0);
}

/* mean: the sum (a) over the count; for var's backward. */
static void sum_step(ref_fold_state_t *s, double v, int64_t r,
                     const double *p) {
  (void)r;
  (void)p;
  s->a += v;
}
static double mean_finish(const ref_fold_state_t *s, int64_t count,
                          const double *p) {
  (void)p;
  return s->a / (double)count;
}

/* logsumexp, streaming: a the running max, b the sum of exp(v - a); a NaN
 * makes the result NaN, an infinite max is the result (PyTorch's). */
static void lse_step(ref_fold_state_t *s, double v, int64_t r,
                     const double *p) {
  (void)r;
  (void)p;
  if (isnan(v) || isnan(s->a)) {
    s->a = NAN;
  } else if (v > s->a) {
    s->b = s->b * exp(s->a - v) + 1;
    s->a = v;
  } else if (v == s->a) {
    s->b += 1;
  } else {
    s->b += exp(v - s->a);
  }
}
static double lse_finish(const ref_fold_state_t *s, int64_t count,
                         const double *p) {
  (void)count;
  (void)p;
  return isinf(s->a) ? s->a : s->a + log(s->b);
}
static double lse_f32(const float *x, int64_t n, int64_t *index,
                      const double *p) {
  (void)index;
  (void)p;
  float m = ref_f32_max(x, n); /* NaNs skipped: they reach the sum */
  if (isinf(m)) {              /* the result, unless a NaN is there too */
    for (int64_t i = 0; i < n; i++)
      if (isnan(x[i]))
        return NAN;
    return m;
  }
  float block[REF_F32_BLOCK];
  double sum = 0;
  for (int64_t b = 0; b < n; b += REF_F32_BLOCK) {
    int64_t len = n - b < REF_F32_BLOCK ? n - b : REF_F32_BLOCK;
    ref_f32_exp(block, x + b, len, m);
    sum += ref_f32_sum(block, len);
  }
  return m + log(sum);
}

/* Views out and input into f and marks the reduced dims. */
static diopiError_t fold_setup(CTX, const char *op, ref_fold_t *f, CT out,
                               CT input, diopiSize_t dim) {
  memset(f, 0, sizeof *f);
  f->nin = 1;
  diopiError_t err = ref_view(ctx, op, "out", out, &f->out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &f->in[0]);
  if (!err)
    err = ref_expect_kind(op, "out", &f->out, REF_OUT_FLOATING);
  if (!err)
    err = ref_expect_kind(op, "input", &f->in[0], REF_OUT_FLOATING);
  return err ? err : ref_fold_dims(op, "dim", f, dim.data, dim.len);
}

/* correction NULL: 1 (Bessel's). */
REF_EXPORT diopiError_t diopiVar(CTX, T out, CT input, diopiSize_t dim,
                                 S correction) {
  const char *op = "diopiVar";
  ref_fold_t f;
  diopiError_t err = fold_setup(ctx, op, &f, out, input, dim);
  f.step = ref_fold_welford_step;
  f.finish = var_finish;
  f.f32_run = var_f32;
  f.params[0] = ref_scalar(correction, 1);
  return err ? err : ref_fold_launch(ctx, op, &f);
}

REF_EXPORT diopiError_t diopiLogsumexp(CTX, T out, CT input, diopiSize_t dim) {
  const char *op = "diopiLogsumexp";
  ref_fold_t f;
  diopiError_t err = fold_setup(ctx, op, &f, out, input, dim);
  f.step = lse_step;
  f.finish = lse_finish;
  f.f32_run = lse_f32;
  f.init = -INFINITY;
  return err ? err : ref_fold_launch(ctx, op, &f);
}

/* `v` (a result of the reduction, its dims kept or dropped) as a view of
 * `shape` with the reduced dims broadcast; fails naming `arg` unless its
 * shape is the reduced one. */
static diopiError_t spread(const char *op, const char *arg, ref_view_t *v,
                           const bool *reduced, const int64_t *shape,
                           int ndim) {
  int64_t kept[REF_MAX_DIMS] = {0}, dropped[REF_MAX_DIMS] = {0};
  int ndropped = 0;
  for (int d = 0; d < ndim; d++) {
    kept[d] = reduced[d] ? 1 : shape[d];
    if (!reduced[d])
      dropped[ndropped++] = shape[d];
  }
  bool keepdim = v->ndim == ndim && ndim > 0;
  diopiError_t err = keepdim ? ref_expect_shape(op, arg, v, kept, ndim)
                             : ref_expect_shape(op, arg, v, dropped, ndropped);
  if (err)
    return err;
  if (!keepdim) {
    ref_view_t full = *v;
    full.ndim = ndim;
    for (int d = 0, k = 0; d < ndim; d++) {
      full.shape[d] = reduced[d] ? 1 : v->shape[k];
      full.strides[d] = reduced[d] ? 0 : v->strides[k++];
    }
    *v = full;
  }
  return ref_broadcast_to(op, arg, v, shape, ndim);
}

/* The backward's common part: grad_input (input's shape, floating) and
 * input into ew->out and ew->in[1], grad_output spread into ew->in[0],
 * the reduced dims into f (whose in[0] is input). */
static diopiError_t backward_setup(CTX, const char *op, ref_ew_t *ew,
                                   ref_fold_t *f, CT grad_input, CT grad_output,
                                   CT input, diopiSize_t dim) {
  memset(ew, 0, sizeof *ew);
  memset(f, 0, sizeof *f);
  diopiError_t err = ref_view(ctx, op, "grad_input", grad_input, &ew->out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &ew->in[1]);
  if (!err)
    err = ref_view(ctx, op, "grad_output", grad_output, &ew->in[0]);
  if (!err)
    err = ref_expect_kind(op, "grad_input", &ew->out, REF_OUT_FLOATING);
  if (!err)
    err = ref_expect_shape(op, "grad_input", &ew->out, ew->in[1].shape,
                           ew->in[1].ndim);
  f->in[0] = ew->in[1];
  if (!err)
    err = ref_fold_dims(op, "dim", f, dim.data, dim.len);
  if (!err)
    err = spread(op, "grad_output", &ew->in[0], f->reduced, ew->out.shape,
                 ew->out.ndim);
  return err;
}

static diopiError_t enqueue_backward(CTX, const char *op, ref_ew_t *ew) {
  diopiError_t err = diopiSuccess;
  for (int k = 0; !err && k < ew->nin; k++)
    err = ref_expect_no_partial_overlap(op, "inputs", &ew->out, &ew->in[k]);
  if (err || ew->out.numel == 0)
    return err;
  return ref_ew_enqueue(ctx, op, ew);
}

/* in = {grad_output, input, mean}; p[0] = 2 / (count - correction). */
static double var_grad_fn(const double *in, const double *p) {
  return in[0] * p[0] * (in[1] - in[2]);
}
/* in = {grad_output, input, result}. */
static double lse_grad_fn(const double *in, const double *p) {
  (void)p;
  return in[0] * exp(in[1] - in[2]);
}

REF_EXPORT diopiError_t diopiVarBackward(CTX, T grad_input, CT grad_output,
                                         CT input, diopiSize_t dim,
                                         S correction) {
  const char *op = "diopiVarBackward";
  ref_ew_t ew;
  ref_fold_t f;
  diopiError_t err =
      backward_setup(ctx, op, &ew, &f, grad_input, grad_output, input, dim);
  if (err || ew.out.numel == 0)
    return err;
  /* The means, kept dims as 1, in float64 scratch, by a fold enqueued
   * before the gradient on the same stream. */
  ref_fold_t mean = f;
  mean.nin = 1;
  mean.step = sum_step;
  mean.finish = mean_finish;
  mean.out.data = NULL;
  mean.out.dtype = diopi_dtype_float64;
  mean.out.ndim = f.in[0].ndim;
  mean.out.numel = 1;
  int64_t count = 1;
  for (int d = mean.out.ndim; d-- > 0;) {
    mean.out.shape[d] = f.reduced[d] ? 1 : f.in[0].shape[d];
    mean.out.strides[d] = mean.out.numel;
    mean.out.numel *= mean.out.shape[d];
    count *= f.reduced[d] ? f.in[0].shape[d] : 1;
  }
  err = ref_scratch(ctx, op, (size_t)mean.out.numel * sizeof(double),
                    (void **)&mean.out.data);
  if (!err)
    err = ref_fold_launch(ctx, op, &mean);
  if (err)
    return err;
  ew.in[2] = mean.out;
  err = ref_broadcast_to(op, "input", &ew.in[2], ew.out.shape, ew.out.ndim);
  double dof = (double)count - ref_scalar(correction, 1);
  ew.nin = 3;
  ew.fn = var_grad_fn;
  ew.params[0] = 2.0 / (dof > 0 ? dof : 0);
  return err ? err : enqueue_backward(ctx, op, &ew);
}

REF_EXPORT diopiError_t diopiLogsumexpBackward(CTX, T grad_input,
                                               CT grad_output, CT input,
                                               CT result, diopiSize_t dim) {
  const char *op = "diopiLogsumexpBackward";
  ref_ew_t ew;
  ref_fold_t f;
  diopiError_t err =
      backward_setup(ctx, op, &ew, &f, grad_input, grad_output, input, dim);
  if (!err)
    err = ref_view(ctx, op, "result", result, &ew.in[2]);
  if (!err)
    err = spread(op, "result", &ew.in[2], f.reduced, ew.out.shape, ew.out.ndim);
  ew.nin = 3;
  ew.fn = lse_grad_fn;
  return err ? err : enqueue_backward(ctx, op, &ew);
}
