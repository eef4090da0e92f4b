/* group_norm and rms_norm, forward and backward: their argument checks, on
 * the row-normalization engine (ref_norm_rows.h). group_norm's rows are
 * (image, group), its elements the group's channels x spatial; rms_norm's
 * rows are the leading dims, its elements normalized_shape. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_norm_rows.h"
#include "ref_scratch.h"
#include "ref_tensor.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* group_norm's checks: input (N, C, ...) with C divisible by num_groups;
 * weight, bias (C); mean, rstd (N, G). */
static diopiError_t group_setup(diopiContextHandle_t ctx, const char *op,
                                ref_norm_task_t *t, CT input,
                                int64_t num_groups, CT weight, CT bias,
                                const char *mean_name, CT mean,
                                const char *rstd_name, CT rstd) {
  ref_view_t x;
  diopiError_t err = ref_view(ctx, op, "input", input, &x);
  if (!err && x.ndim < 2)
    err = ref_fail(op, "input: expected (N, C, ...), got %d dims", x.ndim);
  if (!err && (num_groups < 1 || x.shape[1] % num_groups))
    err = ref_fail(op, "num_groups: %lld does not divide the %lld channels",
                   (long long)num_groups, (long long)x.shape[1]);
  if (err)
    return err;
  int64_t c = x.shape[1], stat_shape[2] = {x.shape[0], num_groups};
  t->has_y = t->has_stats = true;
  t->channels = c;
  t->per_group = c / num_groups;
  t->spatial = 1; /* from the dims, not numel: N or C may be 0 */
  for (int d = 2; d < x.ndim; d++)
    t->spatial *= x.shape[d];
  t->x = ref_norm_groups_of(&x, num_groups);
  t->rows = t->x.outer.numel;
  t->count = t->x.inner.numel;
  err = ref_norm_parameter(ctx, op, "weight", weight, &t->weight,
                           &t->has_weight, &c, 1);
  if (!err)
    err = ref_norm_parameter(ctx, op, "bias", bias, &t->bias, &t->has_bias, &c,
                             1);
  if (!err)
    err = ref_view(ctx, op, mean_name, mean, &t->stat_a);
  if (!err)
    err = ref_expect_shape(op, mean_name, &t->stat_a, stat_shape, 2);
  if (!err)
    err = ref_view(ctx, op, rstd_name, rstd, &t->stat_b);
  if (!err)
    err = ref_expect_shape(op, rstd_name, &t->stat_b, stat_shape, 2);
  return err;
}

/* A tensor of input's shape (out, grad_input, grad_output) as rows. */
static diopiError_t like_input(diopiContextHandle_t ctx, const char *op,
                               const char *arg, CT h, CT input,
                               ref_norm_rows_t *rows, const ref_norm_task_t *t,
                               int64_t num_groups, int at) {
  ref_view_t v, x;
  diopiError_t err = ref_view(ctx, op, arg, h, &v);
  if (!err)
    err = ref_view(ctx, op, "input", input, &x);
  if (!err)
    err = ref_expect_shape(op, arg, &v, x.shape, x.ndim);
  if (!err)
    *rows =
        t->rms ? ref_norm_split_at(&v, at) : ref_norm_groups_of(&v, num_groups);
  return err;
}

REF_EXPORT diopiError_t diopiGroupNorm(CTX, T out, T save_mean, T save_invstd,
                                       CT input, CT weight, CT bias,
                                       int64_t num_groups, double eps) {
  const char *op = "diopiGroupNorm";
  ref_norm_task_t t;
  memset(&t, 0, sizeof t);
  t.eps = eps;
  diopiError_t err =
      group_setup(ctx, op, &t, input, num_groups, weight, bias, "save_mean",
                  save_mean, "save_invstd", save_invstd);
  if (!err)
    err = like_input(ctx, op, "out", out, input, &t.y, &t, num_groups, 0);
  return err ? err : ref_norm_enqueue(ctx, op, &t);
}

REF_EXPORT diopiError_t diopiGroupNormBackward(CTX, T grad_input, T grad_weight,
                                               T grad_bias, CT grad_output,
                                               CT input, CT weight, CT mean,
                                               CT rstd, int64_t num_groups) {
  const char *op = "diopiGroupNormBackward";
  ref_norm_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  diopiError_t err = group_setup(ctx, op, &t, input, num_groups, weight, NULL,
                                 "mean", mean, "rstd", rstd);
  if (!err)
    err = like_input(ctx, op, "grad_input", grad_input, input, &t.y, &t,
                     num_groups, 0);
  if (!err)
    err = like_input(ctx, op, "grad_output", grad_output, input, &t.dy, &t,
                     num_groups, 0);
  if (!err)
    err = ref_norm_parameter(ctx, op, "grad_weight", grad_weight, &t.grad_w,
                             &t.has_grad_w, &t.channels, 1);
  if (!err)
    err = ref_norm_parameter(ctx, op, "grad_bias", grad_bias, &t.grad_b,
                             &t.has_grad_b, &t.channels, 1);
  if (!err && (t.stat_a.dtype == diopi_dtype_float16 ||
               t.stat_a.dtype == diopi_dtype_bfloat16))
    err = ref_scratch(ctx, op, (size_t)t.rows * sizeof(double),
                      (void **)&t.means);
  return err ? err : ref_norm_enqueue(ctx, op, &t);
}

/* rms_norm's checks: input's trailing dims are normalized_shape; weight
 * and bias (optional) of that shape; inv_rms one value per row. */
static diopiError_t rms_setup(diopiContextHandle_t ctx, const char *op,
                              ref_norm_task_t *t, CT input,
                              diopiSize_t normalized_shape, CT weight, CT bias,
                              CT inv_rms, int *at) {
  ref_view_t x;
  diopiError_t err = ref_view(ctx, op, "input", input, &x);
  if (!err && (normalized_shape.len < 1 || normalized_shape.len > x.ndim))
    err = ref_fail(op, "normalized_shape: %lld dims for an input of %d",
                   (long long)normalized_shape.len, x.ndim);
  if (err)
    return err;
  *at = x.ndim - (int)normalized_shape.len;
  for (int d = *at; d < x.ndim; d++)
    if (x.shape[d] != normalized_shape.data[d - *at]) {
      char want[128], have[128];
      return ref_fail(op,
                      "normalized_shape: %s is not the trailing dims of "
                      "input %s",
                      ref_shape_text(normalized_shape.data,
                                     (int)normalized_shape.len, want,
                                     sizeof want),
                      ref_shape_text(x.shape, x.ndim, have, sizeof have));
    }
  t->rms = t->has_y = t->has_stats = true;
  t->x = ref_norm_split_at(&x, *at);
  t->rows = t->x.outer.numel;
  t->count = t->x.inner.numel;
  err =
      ref_norm_parameter(ctx, op, "weight", weight, &t->weight, &t->has_weight,
                         normalized_shape.data, (int)normalized_shape.len);
  if (!err)
    err = ref_norm_parameter(ctx, op, "bias", bias, &t->bias, &t->has_bias,
                             normalized_shape.data, (int)normalized_shape.len);
  if (!err)
    err = ref_view(ctx, op, "inv_rms", inv_rms, &t->stat_a);
  if (!err && t->stat_a.numel != t->rows)
    err = ref_fail(op,
                   "inv_rms: expected %lld elements (one per row), got "
                   "%lld",
                   (long long)t->rows, (long long)t->stat_a.numel);
  return err;
}

REF_EXPORT diopiError_t diopiRMSNorm(CTX, T out, T inv_rms, CT input,
                                     diopiSize_t normalized_shape, CT weight,
                                     CT bias, double eps) {
  const char *op = "diopiRMSNorm";
  ref_norm_task_t t;
  memset(&t, 0, sizeof t);
  t.eps = eps;
  int at = 0;
  diopiError_t err = rms_setup(ctx, op, &t, input, normalized_shape, weight,
                               bias, inv_rms, &at);
  if (!err)
    err = like_input(ctx, op, "out", out, input, &t.y, &t, 0, at);
  return err ? err : ref_norm_enqueue(ctx, op, &t);
}

REF_EXPORT diopiError_t diopiRMSNormBackward(
    CTX, T grad_input, T grad_weight, T grad_bias, CT grad_output, CT input,
    CT weight, CT bias, CT inv_rms, diopiSize_t normalized_shape, double eps) {
  const char *op = "diopiRMSNormBackward";
  (void)eps; /* inv_rms holds it */
  ref_norm_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  int at = 0;
  diopiError_t err = rms_setup(ctx, op, &t, input, normalized_shape, weight,
                               bias, inv_rms, &at);
  if (!err)
    err = like_input(ctx, op, "grad_input", grad_input, input, &t.y, &t, 0, at);
  if (!err)
    err = like_input(ctx, op, "grad_output", grad_output, input, &t.dy, &t, 0,
                     at);
  if (!err)
    err = ref_norm_parameter(ctx, op, "grad_weight", grad_weight, &t.grad_w,
                             &t.has_grad_w, normalized_shape.data,
                             (int)normalized_shape.len);
  if (!err)
    err = ref_norm_parameter(ctx, op, "grad_bias", grad_bias, &t.grad_b,
                             &t.has_grad_b, normalized_shape.data,
                             (int)normalized_shape.len);
  return err ? err : ref_norm_enqueue(ctx, op, &t);
}
