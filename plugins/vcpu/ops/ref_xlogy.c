/* xlogy (x * log(y), 0 where x is 0) and its backward: extension ops
 * (DIOPI 1.0 declares none), as torch.xlogy: a NaN y gives NaN even where x
 * is 0, a NaN x gives NaN; tensors broadcast, integral inputs give a
 * floating out. The scalar forms take y (diopiXlogyScalar, PyTorch's
 * Scalar_Other) or x (diopiXlogyScalarSelf) as a number. */
#include <math.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_sum_to.h"

static double xlogy_of(double x, double y) {
  if (isnan(y))
    return y;
  return x == 0 ? 0 : x * log(y);
}

/* in = {x, y}. */
static double xlogy_fn(const double *in, const double *p) {
  (void)p;
  return xlogy_of(in[0], in[1]);
}
/* in = {x}; p[0] = y. */
static double xlogy_other_fn(const double *in, const double *p) {
  return xlogy_of(in[0], p[0]);
}
/* in = {y}; p[0] = x. */
static double xlogy_self_fn(const double *in, const double *p) {
  return xlogy_of(p[0], in[0]);
}

static const char *const both[2] = {"input", "other"};

REF_EXPORT diopiError_t diopiXlogy(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out,
                                   diopiConstTensorHandle_t input,
                                   diopiConstTensorHandle_t other) {
  diopiConstTensorHandle_t in[2] = {input, other};
  return ref_ew_call(ctx, "diopiXlogy", out, 2, in, both, xlogy_fn, NULL, NULL,
                     REF_OUT_FLOATING);
}

REF_EXPORT diopiError_t diopiXlogyInp(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t input,
                                      diopiConstTensorHandle_t other) {
  diopiConstTensorHandle_t in[2] = {input, other};
  return ref_ew_call(ctx, "diopiXlogyInp", input, 2, in, both, xlogy_fn, NULL,
                     NULL, REF_OUT_FLOATING);
}

/* A scalar operand `arg` of `op` as params, or a failure for a NULL one. */
static diopiError_t scalar_param(const char *op, const char *arg,
                                 const diopiScalar_t *s, double *params) {
  if (!s)
    return ref_fail(op, "%s: expected a scalar, got NULL", arg);
  params[0] = ref_scalar(s, 0);
  params[1] = params[2] = params[3] = 0;
  return diopiSuccess;
}

static diopiError_t xlogy_scalar_other(diopiContextHandle_t ctx, const char *op,
                                       diopiConstTensorHandle_t out,
                                       diopiConstTensorHandle_t input,
                                       const diopiScalar_t *other) {
  static const char *const names[1] = {"input"};
  double params[4];
  diopiError_t err = scalar_param(op, "other", other, params);
  return err ? err
             : ref_ew_call(ctx, op, out, 1, &input, names, xlogy_other_fn, NULL,
                           params, REF_OUT_FLOATING);
}

REF_EXPORT diopiError_t diopiXlogyScalar(diopiContextHandle_t ctx,
                                         diopiTensorHandle_t out,
                                         diopiConstTensorHandle_t input,
                                         const diopiScalar_t *other) {
  return xlogy_scalar_other(ctx, "diopiXlogyScalar", out, input, other);
}

REF_EXPORT diopiError_t diopiXlogyScalarInp(diopiContextHandle_t ctx,
                                            diopiTensorHandle_t input,
                                            const diopiScalar_t *other) {
  return xlogy_scalar_other(ctx, "diopiXlogyScalarInp", input, input, other);
}

REF_EXPORT diopiError_t diopiXlogyScalarSelf(diopiContextHandle_t ctx,
                                             diopiTensorHandle_t out,
                                             const diopiScalar_t *input,
                                             diopiConstTensorHandle_t other) {
  static const char *const names[1] = {"other"};
  const char *op = "diopiXlogyScalarSelf";
  double params[4];
  diopiError_t err = scalar_param(op, "input", input, params);
  return err ? err
             : ref_ew_call(ctx, op, out, 1, &other, names, xlogy_self_fn, NULL,
                           params, REF_OUT_FLOATING);
}

/* in = {grad_output, x, y}: d/dx = xlogy(grad, y), and 0 where x is 0 and
 * y <= 0 (PyTorch's choice there). */
static double grad_input_fn(const double *in, const double *p) {
  (void)p;
  return in[1] == 0 && in[2] <= 0 ? 0 : xlogy_of(in[0], in[2]);
}
/* d/dy = grad * x / y. */
static double grad_other_fn(const double *in, const double *p) {
  (void)p;
  return in[0] * in[1] / in[2];
}

/* Prepares *f to sum map(grad_output, x, y) (in[0..2], x and y broadcast
 * to grad_output's shape) into `grad`, which has `operand`'s shape. */
static diopiError_t prepare_grad(const char *op, const char *arg,
                                 const ref_view_t *grad,
                                 const ref_view_t *operand,
                                 const ref_view_t *in, ref_ew_fn_t map,
                                 ref_fold_t *f) {
  diopiError_t err =
      ref_expect_shape(op, arg, grad, operand->shape, operand->ndim);
  if (!err)
    err = ref_expect_kind(op, arg, grad, REF_OUT_FLOATING);
  if (!err)
    err = ref_sum_to_prepare(op, arg, grad, &in[0], f);
  if (err)
    return err;
  f->nin = 3;
  f->in[1] = in[1];
  f->in[2] = in[2];
  f->map = map;
  return diopiSuccess;
}

REF_EXPORT diopiError_t diopiXlogyBackward(diopiContextHandle_t ctx,
                                           diopiTensorHandle_t grad_input,
                                           diopiTensorHandle_t grad_other,
                                           diopiConstTensorHandle_t grad_output,
                                           diopiConstTensorHandle_t input,
                                           diopiConstTensorHandle_t other) {
  const char *op = "diopiXlogyBackward";
  ref_view_t gi, go, in[3], x, y;
  bool has_gi, has_go;
  ref_arg_t args[] = {
      {"grad_input", grad_input, &gi, &has_gi},
      {"grad_other", grad_other, &go, &has_go},
      {"grad_output", grad_output, &in[0], NULL},
      {"input", input, &x, NULL},
      {"other", other, &y, NULL},
  };
  diopiError_t err = ref_views(ctx, op, args, REF_COUNT(args));
  in[1] = x;
  in[2] = y;
  for (int k = 1; !err && k < 3; k++)
    err =
        ref_broadcast_to(op, args[k + 2].name, &in[k], in[0].shape, in[0].ndim);
  ref_fold_t fx, fy;
  if (!err && has_gi)
    err = prepare_grad(op, "grad_input", &gi, &x, in, grad_input_fn, &fx);
  if (!err && has_go)
    err = prepare_grad(op, "grad_other", &go, &y, in, grad_other_fn, &fy);
  if (!err && has_gi)
    err = ref_fold_launch(ctx, op, &fx);
  if (!err && has_go)
    err = ref_fold_launch(ctx, op, &fy);
  return err;
}
