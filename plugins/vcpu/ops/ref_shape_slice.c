/* select and slice along a dim (copies of a narrowed view of input), their
 * backwards (zeros, then the gradient into the narrowed view) and their
 * scatters (input, then src into the narrowed view). Slice bounds follow
 * Python's: negative counts from the end, out of range clamps. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_elementwise.h"
#include "ref_error.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

static double zero_fn(const double *in, const double *p) {
  (void)in;
  (void)p;
  return 0;
}

/* The part of `v` along dim d: `count` elements from `start` by `step`;
 * `drop` removes the dim (select). */
static ref_view_t narrow(const ref_view_t *v, int d, int64_t start,
                         int64_t count, int64_t step, bool drop) {
  ref_view_t n = *v;
  n.data += start * v->strides[d] * (int64_t)ref_dtype_size(v->dtype);
  n.shape[d] = count;
  n.strides[d] *= step;
  n.numel = 1;
  for (int i = 0; i < v->ndim; i++)
    n.numel *= n.shape[i];
  if (drop) {
    memmove(&n.shape[d], &n.shape[d + 1],
            sizeof(int64_t) * (size_t)(v->ndim - d - 1));
    memmove(&n.strides[d], &n.strides[d + 1],
            sizeof(int64_t) * (size_t)(v->ndim - d - 1));
    n.ndim--;
  }
  return n;
}

/* Enqueues out = in (same shapes, checked), or out = 0 when in is NULL. */
static diopiError_t copy(CTX, const char *op, const char *arg,
                         const ref_view_t *out, const ref_view_t *in) {
  diopiError_t err = diopiSuccess;
  if (in && (err = ref_expect_shape(op, arg, in, out->shape, out->ndim)))
    return err;
  if (in && (err = ref_expect_no_partial_overlap(op, arg, out, in)))
    return err;
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = in ? 1 : 0;
  ew.fn = in ? ref_copy_fn : zero_fn;
  ew.f32 = in ? ref_copy_f32 : NULL;
  ew.out = *out;
  if (in)
    ew.in[0] = *in;
  return ref_ew_enqueue(ctx, op, &ew);
}

/* The narrowed part of a tensor shaped `sizes` along dim: a select
 * (step 0) or a slice [start, end) by step, bounds normalized. */
typedef struct part {
  int dim;
  int64_t start, count, step;
  bool select;
} part_t;

static diopiError_t plan_select(const char *op, const int64_t *sizes, int ndim,
                                int64_t dim, int64_t index, part_t *p) {
  diopiError_t err = ref_dim(op, "dim", dim, ndim, &p->dim);
  if (err)
    return err;
  if (ndim == 0)
    return ref_fail(op, "input: cannot select from a 0-dim tensor");
  int64_t n = sizes[p->dim];
  if (index < -n || index >= n)
    return ref_fail(op, "index: %lld out of range for size %lld",
                    (long long)index, (long long)n);
  p->start = index < 0 ? index + n : index;
  p->count = p->step = 1;
  p->select = true;
  return diopiSuccess;
}

static diopiError_t plan_slice(const char *op, const int64_t *sizes, int ndim,
                               int64_t dim, int64_t start, int64_t end,
                               int64_t step, part_t *p) {
  diopiError_t err = ref_dim(op, "dim", dim, ndim, &p->dim);
  if (err)
    return err;
  if (ndim == 0)
    return ref_fail(op, "input: cannot slice a 0-dim tensor");
  if (step < 1)
    return ref_fail(op, "step: expected >= 1, got %lld", (long long)step);
  int64_t n = sizes[p->dim];
  start += start < 0 ? n : 0;
  end += end < 0 ? n : 0;
  start = start < 0 ? 0 : start > n ? n : start;
  end = end < start ? start : end > n ? n : end;
  p->start = start;
  p->step = step;
  p->count = (end - start + step - 1) / step;
  p->select = false;
  return diopiSuccess;
}

static ref_view_t part_of(const ref_view_t *v, const part_t *p) {
  return narrow(v, p->dim, p->start, p->count, p->step, p->select);
}

/* out = input's part. */
static diopiError_t take(CTX, const char *op, const char *out_name, CT out,
                         const ref_view_t *in, const part_t *p) {
  ref_view_t o;
  diopiError_t err = ref_view(ctx, op, out_name, out, &o);
  if (err)
    return err;
  ref_view_t src = part_of(in, p);
  if ((err = ref_expect_shape(op, out_name, &o, src.shape, src.ndim)))
    return err;
  return copy(ctx, op, "input", &o, &src);
}

/* out (of `sizes`) = base (NULL: zeros), then out's part = src. */
static diopiError_t put(CTX, const char *op, const char *out_name, CT out,
                        const int64_t *sizes, int ndim, const char *base_name,
                        CT base, const char *src_name, CT src,
                        const part_t *p) {
  ref_view_t o, b, s;
  diopiError_t err = ref_view(ctx, op, out_name, out, &o);
  if (!err)
    err = ref_expect_shape(op, out_name, &o, sizes, ndim);
  if (!err && base)
    err = ref_view(ctx, op, base_name, base, &b);
  if (!err)
    err = ref_view(ctx, op, src_name, src, &s);
  if (err)
    return err;
  ref_view_t dst = part_of(&o, p);
  if ((err = ref_expect_shape(op, src_name, &s, dst.shape, dst.ndim)) ||
      (err = ref_expect_no_partial_overlap(op, src_name, &o, &s)))
    return err;
  if ((err = copy(ctx, op, base_name, &o, base ? &b : NULL)))
    return err;
  return copy(ctx, op, src_name, &dst, &s);
}

REF_EXPORT diopiError_t diopiSelect(CTX, T out, CT input, int64_t dim,
                                    int64_t index) {
  const char *op = "diopiSelect";
  ref_view_t in;
  part_t p;
  diopiError_t err = ref_view(ctx, op, "input", input, &in);
  if (!err)
    err = plan_select(op, in.shape, in.ndim, dim, index, &p);
  return err ? err : take(ctx, op, "out", out, &in, &p);
}
REF_EXPORT diopiError_t diopiSelectBackward(CTX, T grad_input, CT grad_output,
                                            diopiSize_t input_sizes,
                                            int64_t dim, int64_t index) {
  const char *op = "diopiSelectBackward";
  part_t p;
  if (input_sizes.len > REF_MAX_DIMS)
    return ref_fail(op, "input_sizes: %lld dims", (long long)input_sizes.len);
  diopiError_t err =
      plan_select(op, input_sizes.data, (int)input_sizes.len, dim, index, &p);
  return err ? err
             : put(ctx, op, "grad_input", grad_input, input_sizes.data,
                   (int)input_sizes.len, "zeros", NULL, "grad_output",
                   grad_output, &p);
}
REF_EXPORT diopiError_t diopiSelectScatter(CTX, T out, CT input, CT src,
                                           int64_t dim, int64_t index) {
  const char *op = "diopiSelectScatter";
  ref_view_t in;
  part_t p;
  diopiError_t err = ref_view(ctx, op, "input", input, &in);
  if (!err)
    err = plan_select(op, in.shape, in.ndim, dim, index, &p);
  return err ? err
             : put(ctx, op, "out", out, in.shape, in.ndim, "input", input,
                   "src", src, &p);
}
REF_EXPORT diopiError_t diopiSlice(CTX, T null_out, CT input, int64_t dim,
                                   int64_t start, int64_t end, int64_t step) {
  const char *op = "diopiSlice";
  ref_view_t in;
  part_t p;
  diopiError_t err = ref_view(ctx, op, "input", input, &in);
  if (!err)
    err = plan_slice(op, in.shape, in.ndim, dim, start, end, step, &p);
  return err ? err : take(ctx, op, "null_out", null_out, &in, &p);
}
REF_EXPORT diopiError_t diopiSliceBackward(CTX, T grad_input, CT grad_output,
                                           diopiSize_t input_sizes, int64_t dim,
                                           int64_t start, int64_t end,
                                           int64_t step) {
  const char *op = "diopiSliceBackward";
  part_t p;
  if (input_sizes.len > REF_MAX_DIMS)
    return ref_fail(op, "input_sizes: %lld dims", (long long)input_sizes.len);
  diopiError_t err = plan_slice(op, input_sizes.data, (int)input_sizes.len, dim,
                                start, end, step, &p);
  return err ? err
             : put(ctx, op, "grad_input", grad_input, input_sizes.data,
                   (int)input_sizes.len, "zeros", NULL, "grad_output",
                   grad_output, &p);
}
REF_EXPORT diopiError_t diopiSliceScatter(CTX, T out, CT input, CT src,
                                          int64_t dim, int64_t start,
                                          int64_t end, int64_t step) {
  const char *op = "diopiSliceScatter";
  ref_view_t in;
  part_t p;
  diopiError_t err = ref_view(ctx, op, "input", input, &in);
  if (!err)
    err = plan_slice(op, in.shape, in.ndim, dim, start, end, step, &p);
  return err ? err
             : put(ctx, op, "out", out, in.shape, in.ndim, "input", input,
                   "src", src, &p);
}
