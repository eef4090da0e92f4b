/* unfold (windows of `size` elements every `step` along a dim, as a new
 * last dim: a strided copy) and its backward (each window's gradient added
 * back; windows may overlap, so one serial task), and cdist (p-norm
 * distances between the rows of two batched matrices, batch dims
 * broadcast). */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_cdist.h"
#include "ref_elementwise.h"
#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_view_more.h"

/* `v` (dims d0..dn-1) seen as its windows: dim d of length
 * (n - size) / step + 1 striding step elements, and a last dim of `size`
 * striding one element of d. */
static ref_view_t windows(const ref_view_t *v, int d, int64_t size,
                          int64_t step) {
  ref_view_t w = *v;
  bool scalar = v->ndim == 0;
  int64_t n = scalar ? 1 : v->shape[d], stride = scalar ? 0 : v->strides[d];
  if (!scalar) {
    w.shape[d] = (n - size) / step + 1;
    w.strides[d] = stride * step;
  }
  w.shape[w.ndim] = size;
  w.strides[w.ndim++] = stride;
  w.numel = 1;
  for (int i = 0; i < w.ndim; i++)
    w.numel *= w.shape[i];
  return w;
}

static diopiError_t check_window(const char *op, const int64_t *shape, int ndim,
                                 int64_t dim, int64_t size, int64_t step,
                                 int *d) {
  diopiError_t err = ref_dim(op, "dim", dim, ndim, d);
  if (err)
    return err;
  if (ndim + 1 > REF_MAX_DIMS)
    return ref_fail(op, "input: %d dims, at most %d", ndim, REF_MAX_DIMS - 1);
  int64_t n = ndim ? shape[*d] : 1;
  if (size < 0 || size > n)
    return ref_fail(op, "size: %lld is outside [0, %lld]", (long long)size,
                    (long long)n);
  if (step < 1)
    return ref_fail(op, "step: expected >= 1, got %lld", (long long)step);
  return diopiSuccess;
}

REF_EXPORT diopiError_t diopiUnfold(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    diopiConstTensorHandle_t input, int64_t dim,
                                    int64_t size, int64_t step) {
  const char *op = "diopiUnfold";
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  int d = 0;
  diopiError_t err = ref_view(ctx, op, "input", input, &ew.in[0]);
  if (!err)
    err = check_window(op, ew.in[0].shape, ew.in[0].ndim, dim, size, step, &d);
  if (!err)
    err = ref_view(ctx, op, "out", out, &ew.out);
  if (err)
    return err;
  ew.in[0] = windows(&ew.in[0], d, size, step);
  if ((err = ref_expect_shape(op, "out", &ew.out, ew.in[0].shape,
                              ew.in[0].ndim)) ||
      (err = ref_expect_no_partial_overlap(op, "input", &ew.out, &ew.in[0])))
    return err;
  ew.nin = 1;
  ew.fn = ref_copy_fn;
  ew.f32 = ref_copy_f32;
  return ref_ew_enqueue(ctx, op, &ew);
}

typedef struct fold_back_task {
  ref_view_t grad_input, grad_output, grad_windows; /* grad_input's windows */
} fold_back_task_t;

static void run_fold_back(void *args) {
  const fold_back_task_t *t = args;
  for (int64_t i = 0; i < t->grad_input.numel; i++)
    ref_set(&t->grad_input, i, 0);
  for (int64_t i = 0; i < t->grad_output.numel; i++) {
    int64_t at = ref_offset(&t->grad_windows, i);
    ref_store_at(&t->grad_input, at,
                 ref_load_at(&t->grad_input, at) + ref_get(&t->grad_output, i));
  }
}

REF_EXPORT diopiError_t diopiUnfoldBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiSize_t input_sizes, int64_t dim,
    int64_t size, int64_t step) {
  const char *op = "diopiUnfoldBackward";
  fold_back_task_t t;
  memset(&t, 0, sizeof t);
  int d = 0;
  diopiError_t err = ref_view(ctx, op, "grad_input", grad_input, &t.grad_input);
  if (!err)
    err = ref_expect_shape(op, "grad_input", &t.grad_input, input_sizes.data,
                           (int)input_sizes.len);
  if (!err)
    err = check_window(op, t.grad_input.shape, t.grad_input.ndim, dim, size,
                       step, &d);
  if (!err)
    err = ref_view(ctx, op, "grad_output", grad_output, &t.grad_output);
  if (err)
    return err;
  t.grad_windows = windows(&t.grad_input, d, size, step);
  if ((err = ref_expect_shape(op, "grad_output", &t.grad_output,
                              t.grad_windows.shape, t.grad_windows.ndim)) ||
      (err = ref_expect_no_partial_overlap(op, "grad_output", &t.grad_input,
                                           &t.grad_output)))
    return err;
  return t.grad_input.numel ? ref_enqueue(ctx, op, run_fold_back, &t, sizeof t)
                            : diopiSuccess;
}

typedef struct cdist_task {
  ref_view_t out, x1, x2;  /* [B1, P, M], [B2, R, M], out [B, P, R] */
  ref_cdist_batch_t batch; /* B: B1 and B2 broadcast */
  int64_t p_rows, r_rows, m;
  double p;
} cdist_task_t;

static void cdist_range(void *context, int64_t begin, int64_t end) {
  const cdist_task_t *t = context;
  for (int64_t o = begin; o < end; o++) {
    int64_t j = o % t->r_rows, i = o / t->r_rows % t->p_rows,
            b = o / t->r_rows / t->p_rows;
    int64_t b1 = ref_cdist_batch_of(&t->batch, &t->x1, b),
            b2 = ref_cdist_batch_of(&t->batch, &t->x2, b);
    double acc = 0;
    for (int64_t c = 0; c < t->m; c++) {
      double diff = fabs(ref_get(&t->x1, (b1 * t->p_rows + i) * t->m + c) -
                         ref_get(&t->x2, (b2 * t->r_rows + j) * t->m + c));
      acc = isinf(t->p) ? (diff > acc ? diff : acc)
            : t->p == 0 ? acc + (diff != 0)
            : t->p == 1 ? acc + diff
            : t->p == 2 ? acc + diff * diff
                        : acc + pow(diff, t->p);
    }
    acc = isinf(t->p) || t->p == 0 || t->p == 1 ? acc
          : t->p == 2                           ? sqrt(acc)
                                                : pow(acc, 1 / t->p);
    ref_set(&t->out, o, acc);
  }
}
static void run_cdist(void *args) {
  cdist_task_t *t = args;
  ref_parallel_for(t->out.numel, (1 << 14) / (t->m + 1) + 1, cdist_range, t);
}

/* x1 [..., P, M], x2 [..., R, M], their batch dims broadcast
 * (ref_cdist.h); compute_mode (the matrix-product shortcut) makes no
 * difference here. */
REF_EXPORT diopiError_t diopiCdist(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out,
                                   diopiConstTensorHandle_t input1,
                                   diopiConstTensorHandle_t input2, double p,
                                   const int64_t *compute_mode) {
  const char *op = "diopiCdist";
  (void)compute_mode;
  cdist_task_t t;
  memset(&t, 0, sizeof t);
  t.p = p;
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input1", input1, &t.x1);
  if (!err)
    err = ref_view(ctx, op, "input2", input2, &t.x2);
  int nd = 0;
  int64_t shape[REF_MAX_DIMS];
  if (!err)
    err = ref_cdist_shape(op, &t.x1, &t.x2, p, &t.batch, shape, &nd);
  if (err)
    return err;
  t.p_rows = t.x1.shape[t.x1.ndim - 2];
  t.r_rows = t.x2.shape[t.x2.ndim - 2];
  t.m = t.x1.shape[t.x1.ndim - 1];
  if ((err = ref_expect_shape(op, "out", &t.out, shape, nd)))
    return err;
  return t.out.numel ? ref_enqueue(ctx, op, run_cdist, &t, sizeof t)
                     : diopiSuccess;
}
