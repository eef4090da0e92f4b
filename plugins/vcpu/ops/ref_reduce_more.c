/* prod, any, all over one dim or everything (prod also over several dims,
 * diopiProdDims); norm and linalg vector_norm over dims (p = 0, 1, 2,
 * inf, -inf or any other) and its backward; std over dims with a
 * correction (Welford's running mean and M2). Built on the fold engine:
 * accumulation in double (prod of float32 rows: pairs of elements
 * multiplied in float first, see ref_f32_prod; of integers into an integral
 * out, in int64). */
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

static double value_of(const ref_fold_state_t *s, int64_t count,
                       const double *p) {
  (void)count;
  (void)p;
  return s->a;
}

static void prod_step(ref_fold_state_t *s, double v, int64_t r,
                      const double *p) {
  (void)r;
  (void)p;
  s->a *= v;
}
/* prod into an integral out of a floating input: PyTorch casts each element
 * to out's dtype first (1.5 * 1.5 is 1). */
static void prod_truncated_step(ref_fold_state_t *s, double v, int64_t r,
                                const double *p) {
  (void)r;
  (void)p;
  s->a *= trunc(v);
}
/* prod of integral input into an integral out: in int64, wrapping as
 * PyTorch's (from ia = 1). */
static void prod_step_int(ref_fold_state_t *s, int64_t v, int64_t r,
                          const double *p) {
  (void)r;
  (void)p;
  s->ia = (int64_t)((uint64_t)s->ia * (uint64_t)v);
}
static int64_t prod_value_int(const ref_fold_state_t *s) {
  return s->ia;
}
static bool prod_truncates(CT out, CT input) {
  diopiDtype_t out_dtype, in_dtype;
  if (!out || !input || diopiGetTensorDtype(out, &out_dtype) ||
      diopiGetTensorDtype(input, &in_dtype))
    return false; /* fold reports the bad handle */
  return ref_is_integral(out_dtype) && ref_is_floating(in_dtype);
}
/* any (p[0] = 0) starts false, all (p[0] = 1) true. */
static void any_step(ref_fold_state_t *s, double v, int64_t r,
                     const double *p) {
  (void)r;
  (void)p;
  s->a = s->a != 0 || v != 0;
}
static void all_step(ref_fold_state_t *s, double v, int64_t r,
                     const double *p) {
  (void)r;
  (void)p;
  s->a = s->a != 0 && v != 0;
}

/* norm: p[0] the order. a: the sum of |v|^p (0: the nonzero count; inf,
 * -inf: the extreme |v|). */
static void norm_step(ref_fold_state_t *s, double v, int64_t r,
                      const double *p) {
  (void)r;
  double x = fabs(v), order = p[0];
  if (isinf(order)) { /* the first NaN stays */
    bool first = s->n++ == 0;
    if (first ||
        (!isnan(s->a) && (isnan(x) || (order > 0 ? x > s->a : x < s->a))))
      s->a = x;
  } else if (order == 0) {
    s->a += v != 0;
  } else if (order == 1) {
    s->a += x;
  } else if (order == 2) {
    s->a += x * x;
  } else {
    s->a += pow(x, order);
  }
}
static double norm_finish(const ref_fold_state_t *s, int64_t count,
                          const double *p) {
  double order = p[0];
  if (isinf(order))
    return count ? s->a : (order > 0 ? 0 : INFINITY);
  if (order == 0 || order == 1)
    return s->a;
  return order == 2 ? sqrt(s->a) : pow(s->a, 1.0 / order);
}

/* std after ref_fold_welford_step; p[0] the correction. */
static double std_finish(const ref_fold_state_t *s, int64_t count,
                         const double *p) {
  double dof = (double)count - p[0];
  return sqrt(s->b / (dof > 0 ? dof : 0)); /* no dof: NaN or inf, as PyTorch */
}

/* The float32 runs (ref_fold_t's f32_run) of prod, norm (orders 1, 2 and
 * +-inf; others through the steps) and std: sums in double over float SIMD
 * blocks, std in two passes. */
static double prod_f32(const float *x, int64_t n, int64_t *index,
                       const double *p) {
  (void)index;
  (void)p;
  return ref_f32_prod(x, n);
}
static double norm_f32(const float *x, int64_t n, int64_t *index,
                       const double *p) {
  double order = p[0];
  if (order == 1)
    return ref_f32_abs_sum(x, n);
  if (order == 2)
    return sqrt(ref_f32_sum_sq_dev(x, n, 0.0f));
  (void)index; /* +-inf: the extreme |x|, a NaN winning */
  return ref_f32_abs_extreme(x, n, order > 0 ? 1 : -1);
}
static double std_f32(const float *x, int64_t n, int64_t *index,
                      const double *p) {
  (void)index;
  double mean = ref_f32_sum(x, n) / (double)n;
  double dof = (double)n - p[0];
  return sqrt(ref_f32_sum_sq_dev(x, n, (float)mean) / (dof > 0 ? dof : 0));
}

/* any and all of bool or uint8 runs, from their nonzero counts. */
static double any_of(int64_t nonzero, int64_t n) {
  (void)n;
  return nonzero > 0;
}
static double all_of(int64_t nonzero, int64_t n) {
  return nonzero == n;
}

/* A fold of input into out over `dims` (NULL or empty: all); f32_run,
 * nonzero_run and int_step (prod's integer form, with ia from 1) may be
 * NULL. */
static diopiError_t
fold(CTX, const char *op, CT out, CT input, const int64_t *dims, int64_t ndims,
     ref_fold_step_t step, ref_fold_finish_t finish,
     double (*f32_run)(const float *, int64_t, int64_t *, const double *),
     double (*nonzero_run)(int64_t, int64_t), ref_fold_int_step_t int_step,
     double init, double param, ref_out_kind_t kind) {
  ref_fold_t f;
  memset(&f, 0, sizeof f);
  f.nin = 1;
  f.int_step = int_step;
  f.int_finish = prod_value_int;
  f.int_init = 1;
  f.f32_run = f32_run;
  f.nonzero_run = nonzero_run;
  f.step = step;
  f.finish = finish;
  f.init = init;
  f.params[0] = param;
  diopiError_t err = ref_view(ctx, op, "out", out, &f.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &f.in[0]);
  if (!err)
    err = ref_expect_kind(op, "out", &f.out, kind);
  if (!err)
    err = ref_fold_dims(op, "dim", &f, dims, ndims);
  return err ? err : ref_fold_launch(ctx, op, &f);
}

/* norm_f32 for the orders it takes, else NULL. */
static double (*norm_f32_for(double order))(const float *, int64_t, int64_t *,
                                            const double *) {
  return order == 1 || order == 2 || isinf(order) ? norm_f32 : NULL;
}

REF_EXPORT diopiError_t diopiProd(CTX, T out, CT input, const int64_t *dim) {
  bool truncates = prod_truncates(out, input);
  return fold(ctx, "diopiProd", out, input, dim, dim ? 1 : 0,
              truncates ? prod_truncated_step : prod_step, value_of,
              truncates ? NULL : prod_f32, NULL, prod_step_int, 1, 0,
              REF_OUT_ANY);
}
/* Extension: prod over several dims (every dim when dim is empty); out's
 * shape says whether they are kept. */
REF_EXPORT diopiError_t diopiProdDims(CTX, T out, CT input, diopiSize_t dim) {
  bool truncates = prod_truncates(out, input);
  return fold(ctx, "diopiProdDims", out, input, dim.data, dim.len,
              truncates ? prod_truncated_step : prod_step, value_of,
              truncates ? NULL : prod_f32, NULL, prod_step_int, 1, 0,
              REF_OUT_ANY);
}
REF_EXPORT diopiError_t diopiAny(CTX, T out, CT input, const int64_t *dim) {
  return fold(ctx, "diopiAny", out, input, dim, dim ? 1 : 0, any_step, value_of,
              NULL, any_of, NULL, 0, 0, REF_OUT_ANY);
}
REF_EXPORT diopiError_t diopiAll(CTX, T out, CT input, const int64_t *dim) {
  return fold(ctx, "diopiAll", out, input, dim, dim ? 1 : 0, all_step, value_of,
              NULL, all_of, NULL, 1, 0, REF_OUT_ANY);
}
REF_EXPORT diopiError_t diopiNorm(CTX, T out, CT input, S p, diopiSize_t dim) {
  return fold(ctx, "diopiNorm", out, input, dim.data, dim.len, norm_step,
              norm_finish, norm_f32_for(ref_scalar(p, 2)), NULL, NULL, 0,
              ref_scalar(p, 2), REF_OUT_FLOATING);
}
/* keepdim: out's shape says it. */
REF_EXPORT diopiError_t diopiLinalgVecNorm(CTX, T out, CT input,
                                           diopiScalar_t *ord, diopiSize_t dim,
                                           bool keepdim) {
  (void)keepdim;
  return fold(ctx, "diopiLinalgVecNorm", out, input, dim.data, dim.len,
              norm_step, norm_finish, norm_f32_for(ref_scalar(ord, 2)), NULL,
              NULL, 0, ref_scalar(ord, 2), REF_OUT_FLOATING);
}
/* correction NULL: 1 (Bessel's). */
REF_EXPORT diopiError_t diopiStd(CTX, T out, CT input, diopiSize_t dim,
                                 S correction) {
  return fold(ctx, "diopiStd", out, input, dim.data, dim.len,
              ref_fold_welford_step, std_finish, std_f32, NULL, NULL, 0,
              ref_scalar(correction, 1), REF_OUT_FLOATING);
}

/* d norm / dx = sign(x) |x|^(p-1) / norm^(p-1): p = 1 sign(x); p = 2
 * x / norm; 0 where the norm is 0. in = {grad_output, self, norm}. */
static double norm_grad_fn(const double *in, const double *p) {
  double g = in[0], x = in[1], norm = in[2], order = p[0];
  if (order == 0)
    return 0;
  if (order == 1)
    return g * ((x > 0) - (x < 0));
  if (norm == 0)
    return 0;
  if (order == 2)
    return g * x / norm;
  return g * ((x > 0) - (x < 0)) * pow(fabs(x), order - 1) /
         pow(norm, order - 1);
}

/* The infinity norms' backward, as PyTorch 1.13 takes it: the gradient
 * splits evenly among the elements whose |x| is the norm (or NaN), sign(x)
 * each. in = {grad_output / that count, self, norm}. */
static bool attains(double x, double norm) {
  return fabs(x) == norm || isnan(x);
}
static double norm_inf_grad_fn(const double *in, const double *p) {
  (void)p;
  double x = in[1];
  if (!attains(x, in[2]))
    return 0;
  return in[0] * (isnan(x) ? x : (double)((x > 0) - (x < 0)));
}
/* in = {self, norm}. */
static double attains_fn(const double *in, const double *p) {
  (void)p;
  return attains(in[0], in[1]);
}
static void count_step(ref_fold_state_t *s, double v, int64_t r,
                       const double *p) {
  (void)r;
  (void)p;
  s->a += v;
}
static double quotient_fn(const double *in, const double *p) {
  (void)p;
  return in[0] / in[1];
}

/* `v` (an output of the reduction, dims kept or dropped) as a view of
 * shape `shape` with the reduced dims broadcast. */
static diopiError_t spread(const char *op, const char *arg, ref_view_t *v,
                           const bool *reduced, const int64_t *shape,
                           int ndim) {
  if (v->ndim != ndim) {
    ref_view_t kept = *v;
    kept.ndim = ndim;
    for (int d = 0, k = 0; d < ndim; d++) {
      bool keep = !reduced[d] && k < v->ndim;
      kept.shape[d] = keep ? v->shape[k] : 1;
      kept.strides[d] = keep ? v->strides[k++] : 0;
    }
    *v = kept;
  }
  return ref_broadcast_to(op, arg, v, shape, ndim);
}

/* For the infinity norms: *grad_output (dims kept or dropped) becomes a
 * scratch view, dims kept, of each output's share, grad_output over the
 * count of self's elements that attain the norm. f marks the reduced dims
 * (its other fields are overwritten); the folds run in stream order. */
static diopiError_t share_among_ties(CTX, const char *op, ref_fold_t *f,
                                     ref_view_t *grad_output,
                                     const ref_view_t *self,
                                     const ref_view_t *norm) {
  f->nin = 2;
  f->in[0] = *self;
  f->in[1] = *norm;
  f->map = attains_fn;
  f->step = count_step;
  f->finish = value_of;
  ref_view_t *count = &f->out;
  count->dtype = diopi_dtype_float64;
  count->ndim = self->ndim;
  count->numel = 1;
  for (int d = count->ndim; d-- > 0;) {
    count->shape[d] = f->reduced[d] ? 1 : self->shape[d];
    count->strides[d] = count->numel;
    count->numel *= count->shape[d];
  }
  diopiError_t err =
      spread(op, "norm", &f->in[1], f->reduced, self->shape, self->ndim);
  if (!err)
    err = ref_scratch(ctx, op, (size_t)count->numel * sizeof(double),
                      (void **)&count->data);
  if (!err)
    err = ref_fold_launch(ctx, op, f);
  ref_ew_t share;
  memset(&share, 0, sizeof share);
  share.nin = 2;
  share.fn = quotient_fn;
  share.out = *count;
  share.in[0] = *grad_output;
  share.in[1] = *count;
  if (!err)
    err = spread(op, "grad_output", &share.in[0], f->reduced, count->shape,
                 count->ndim);
  if (!err)
    err = ref_ew_enqueue(ctx, op, &share);
  if (!err)
    *grad_output = *count;
  return err;
}

REF_EXPORT diopiError_t diopiNormBackward(CTX, T grad_input, CT grad_output,
                                          CT self, CT norm, diopiSize_t dim,
                                          S p) {
  const char *op = "diopiNormBackward";
  double order = ref_scalar(p, 2);
  ref_fold_t f; /* its dim marking; for inf and -inf, the tie count */
  memset(&f, 0, sizeof f);
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 3;
  ew.fn = norm_grad_fn;
  ew.params[0] = order;
  diopiError_t err = ref_view(ctx, op, "grad_input", grad_input, &ew.out);
  if (!err)
    err = ref_view(ctx, op, "self", self, &ew.in[1]);
  if (!err)
    err = ref_view(ctx, op, "grad_output", grad_output, &ew.in[0]);
  if (!err)
    err = ref_view(ctx, op, "norm", norm, &ew.in[2]);
  if (!err)
    err = ref_expect_shape(op, "grad_input", &ew.out, ew.in[1].shape,
                           ew.in[1].ndim);
  f.in[0] = ew.in[1];
  if (!err)
    err = ref_fold_dims(op, "dim", &f, dim.data, dim.len);
  if (!err && isinf(order)) {
    ew.fn = norm_inf_grad_fn;
    err = share_among_ties(ctx, op, &f, &ew.in[0], &ew.in[1], &ew.in[2]);
  }
  if (!err)
    err = spread(op, "grad_output", &ew.in[0], f.reduced, ew.out.shape,
                 ew.out.ndim);
  if (!err)
    err = spread(op, "norm", &ew.in[2], f.reduced, ew.out.shape, ew.out.ndim);
  for (int k = 0; !err && k < 3; k++)
    err = ref_expect_no_partial_overlap(op, "inputs", &ew.out, &ew.in[k]);
  return err ? err : ref_ew_enqueue(ctx, op, &ew);
}
