/* normalize (DIOPI's diopiNormalize and its backward): each line of the
 * input along `axis` divided by max(its p-norm, eps), PyTorch's
 * F.normalize, in double over strided views of any floating dtype. p > 0,
 * infinity included (the largest magnitude). The backward differentiates
 * through the norm only where it is at least eps (PyTorch's clamp_min);
 * the infinity norm's gradient is shared among the elements of largest
 * magnitude, as PyTorch shares it. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

typedef struct normalize_task {
  bool backward;
  ref_view_t x, y, dy; /* y: output or grad_input; dy: grad_output */
  ref_view_t x_lines, y_lines, dy_lines; /* their lines along dim */
  int dim;
  int64_t length; /* of a line */
  double p, eps;
} normalize_task_t;

static double at(const ref_view_t *v, const ref_view_t *lines, int dim,
                 int64_t line, int64_t k) {
  return ref_load_at(v, ref_offset(lines, line) + k * v->strides[dim]);
}

/* The p-norm of line l of x, and (infinity norm) how many elements reach
 * it. */
static double line_norm(const normalize_task_t *t, int64_t l, double *ties) {
  double acc = 0;
  *ties = 0;
  for (int64_t k = 0; k < t->length; k++) {
    double a = fabs(at(&t->x, &t->x_lines, t->dim, l, k));
    if (isinf(t->p))
      acc = a > acc || isnan(a) ? a : acc;
    else
      acc += t->p == 1 ? a : t->p == 2 ? a * a : pow(a, t->p);
  }
  if (isinf(t->p)) {
    for (int64_t k = 0; k < t->length; k++)
      *ties += fabs(at(&t->x, &t->x_lines, t->dim, l, k)) == acc;
    return acc;
  }
  return t->p == 1 ? acc : t->p == 2 ? sqrt(acc) : pow(acc, 1.0 / t->p);
}

/* d norm / d x for an element x of a line of norm `norm` (> 0). */
static double norm_slope(const normalize_task_t *t, double x, double norm,
                         double ties) {
  double sign = (x > 0) - (x < 0);
  if (isinf(t->p))
    return fabs(x) == norm ? sign / ties : 0;
  if (t->p == 1)
    return sign;
  if (t->p == 2)
    return x / norm;
  return sign * pow(fabs(x) / norm, t->p - 1);
}

static void line(const normalize_task_t *t, int64_t l) {
  double ties, norm = line_norm(t, l, &ties);
  double denom = norm >= t->eps ? norm : t->eps;
  const ref_view_t *y = &t->y;
  if (!t->backward) {
    for (int64_t k = 0; k < t->length; k++)
      ref_store_at(y, ref_offset(&t->y_lines, l) + k * y->strides[t->dim],
                   at(&t->x, &t->x_lines, t->dim, l, k) / denom);
    return;
  }
  /* y = x / d: dx = dy / d - (sum dy x) / d^2 * d d / dx. */
  double dot = 0;
  for (int64_t k = 0; k < t->length; k++)
    dot += at(&t->dy, &t->dy_lines, t->dim, l, k) *
           at(&t->x, &t->x_lines, t->dim, l, k);
  bool through = norm >= t->eps && norm > 0;
  for (int64_t k = 0; k < t->length; k++) {
    double x = at(&t->x, &t->x_lines, t->dim, l, k);
    double g = at(&t->dy, &t->dy_lines, t->dim, l, k) / denom;
    if (through)
      g -= dot / (denom * denom) * norm_slope(t, x, norm, ties);
    ref_store_at(y, ref_offset(&t->y_lines, l) + k * y->strides[t->dim], g);
  }
}

static void lines_range(void *context, int64_t begin, int64_t end) {
  for (int64_t l = begin; l < end; l++)
    line(context, l);
}

static void run(void *args) {
  normalize_task_t *t = args;
  int64_t grain = (1 << 14) / (t->length ? t->length : 1) + 1;
  ref_parallel_for(t->x_lines.numel, grain, lines_range, t);
}

/* The checks both directions share; `y_arg`/`y`: the output (out or
 * grad_input), dy (backward's grad_output) NULL in the forward. */
static diopiError_t launch(CTX, const char *op, normalize_task_t *t,
                           const char *y_arg, T y, CT dy, CT input, float p,
                           int64_t axis, double eps) {
  diopiError_t err = ref_view(ctx, op, "input", input, &t->x);
  if (!err && !ref_is_floating(t->x.dtype))
    err = ref_fail(op, "input: expected a floating dtype, got dtype %d",
                   (int)t->x.dtype);
  if (!err && !(p > 0))
    err = ref_fail(op, "p: expected a norm order above 0, got %g", (double)p);
  if (err)
    return err;
  int dim;
  err = ref_dim(op, "axis", axis, t->x.ndim, &dim);
  if (!err)
    err = ref_view(ctx, op, y_arg, y, &t->y);
  if (!err && dy)
    err = ref_view(ctx, op, "grad_output", dy, &t->dy);
  if (err)
    return err;
  err = ref_expect_shape(op, y_arg, &t->y, t->x.shape, t->x.ndim);
  if (!err && dy)
    err = ref_expect_shape(op, "grad_output", &t->dy, t->x.shape, t->x.ndim);
  if (err)
    return err;
  t->dim = dim;
  t->length = t->x.shape[dim];
  t->p = isinf(p) ? INFINITY : (double)p;
  t->eps = eps;
  t->x_lines = ref_lines_of(&t->x, dim);
  t->y_lines = ref_lines_of(&t->y, dim);
  if (dy)
    t->dy_lines = ref_lines_of(&t->dy, dim);
  if (t->x.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, t, sizeof *t);
}

REF_EXPORT diopiError_t diopiNormalize(CTX, T output, CT input, const float p,
                                       const int64_t axis, const double eps) {
  normalize_task_t t;
  memset(&t, 0, sizeof t);
  return launch(ctx, "diopiNormalize", &t, "output", output, NULL, input, p,
                axis, eps);
}

REF_EXPORT diopiError_t diopiNormalizeBackward(CTX, T grad_input,
                                               CT grad_output, CT input,
                                               const float p,
                                               const int64_t axis,
                                               const double eps) {
  normalize_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = true;
  return launch(ctx, "diopiNormalizeBackward", &t, "grad_input", grad_input,
                grad_output, input, p, axis, eps);
}
