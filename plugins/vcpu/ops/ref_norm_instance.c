/* instance_norm (DIOPI's diopiInstanceNorm and its backward) over
 * (N, C, spatial...) strided views of any floating dtype, in double: each
 * (image, channel) row is normalized by its own mean and biased variance,
 * then scaled and shifted by its channel's scale and bias (optional), as
 * PyTorch's instance_norm with input statistics. The backward takes no
 * saved statistics: it recomputes each row's. It is group_norm with one
 * group per channel, on group_norm's row engine (ref_norm_rows.h): rows
 * (n, c), elements the spatial ones. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_norm_rows.h"
#include "ref_scratch.h"
#include "ref_tensor.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* A tensor of input's shape as rows (required unless `present`). */
static diopiError_t like_input(CTX, const char *op, const char *arg, CT h,
                               const ref_view_t *x, ref_norm_rows_t *rows,
                               bool *present) {
  ref_view_t v;
  diopiError_t err = present ? ref_view_optional(ctx, op, arg, h, &v, present)
                             : ref_view(ctx, op, arg, h, &v);
  if (err || (present && !*present))
    return err;
  err = ref_expect_shape(op, arg, &v, x->shape, x->ndim);
  if (!err)
    *rows = ref_norm_split_at(&v, 2);
  return err;
}

/* The checks both directions share: input (N, C, spatial...) of a
 * floating dtype with a non-empty spatial extent, axis, scale and bias. */
static diopiError_t setup(CTX, const char *op, ref_norm_task_t *t,
                          ref_view_t *x, CT input, int64_t axis, CT scale,
                          CT bias) {
  diopiError_t err = ref_view(ctx, op, "input", input, x);
  if (err)
    return err;
  if (!ref_is_floating(x->dtype))
    return ref_fail(op, "input: expected a floating dtype, got dtype %d",
                    (int)x->dtype);
  if (x->ndim < 3)
    return ref_fail(op, "input: expected (N, C, spatial...), got %d dims",
                    x->ndim);
  /* The channel dim (1) and the first normalized dim (2) both name
   * PyTorch's layout. */
  if (axis != 1 && axis != 2)
    return ref_fail(op,
                    "axis: expected 1 (the channel dim) or 2 (the first "
                    "normalized dim) of (N, C, spatial...), got %lld",
                    (long long)axis);
  t->channels = x->shape[1];
  t->per_group = 1;
  t->x = ref_norm_split_at(x, 2); /* rows (n, c) */
  t->rows = t->x.outer.numel;
  t->count = t->spatial = t->x.inner.numel;
  if (t->count == 0 && t->rows > 0)
    return ref_fail(op, "input: expected spatial elements, got shape %s",
                    ref_shape_text(x->shape, x->ndim, (char[128]){0}, 128));
  err = ref_norm_parameter(ctx, op, "scale", scale, &t->weight, &t->has_weight,
                           &t->channels, 1);
  if (!err)
    err = ref_norm_parameter(ctx, op, "bias", bias, &t->bias, &t->has_bias,
                             &t->channels, 1);
  return err;
}

REF_EXPORT diopiError_t diopiInstanceNorm(CTX, T output, CT input,
                                          const int64_t axis, CT scale, CT bias,
                                          const double eps) {
  const char *op = "diopiInstanceNorm";
  ref_norm_task_t t;
  memset(&t, 0, sizeof t);
  t.eps = eps;
  ref_view_t x;
  diopiError_t err = setup(ctx, op, &t, &x, input, axis, scale, bias);
  if (!err)
    err = like_input(ctx, op, "output", output, &x, &t.y, NULL);
  return err ? err : ref_norm_enqueue(ctx, op, &t);
}

REF_EXPORT diopiError_t diopiInstanceNormBackward(
    CTX, T grad_input, T grad_scale, T grad_bias, CT grad_output, CT input,
    CT scale, CT bias, const int64_t axis, const double eps) {
  const char *op = "diopiInstanceNormBackward";
  ref_norm_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  t.eps = eps;
  ref_view_t x;
  diopiError_t err = setup(ctx, op, &t, &x, input, axis, scale, bias);
  if (!err)
    err = like_input(ctx, op, "grad_output", grad_output, &x, &t.dy, NULL);
  if (!err)
    err = like_input(ctx, op, "grad_input", grad_input, &x, &t.y, &t.has_y);
  if (!err)
    err = ref_norm_parameter(ctx, op, "grad_scale", grad_scale, &t.grad_w,
                             &t.has_grad_w, &t.channels, 1);
  if (!err)
    err = ref_norm_parameter(ctx, op, "grad_bias", grad_bias, &t.grad_b,
                             &t.has_grad_b, &t.channels, 1);
  if (err || (!t.has_y && !t.has_grad_w && !t.has_grad_b))
    return err;
  /* the rows' statistics, recomputed before the gradients */
  if (t.rows > 0)
    err = ref_scratch(ctx, op, 2 * (size_t)t.rows * sizeof(double),
                      (void **)&t.means);
  if (err)
    return err;
  t.rstds = t.means ? t.means + t.rows : NULL;
  return ref_norm_enqueue(ctx, op, &t);
}
