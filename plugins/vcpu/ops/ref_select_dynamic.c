/* Ops whose output size depends on the data: masked_select (the input's
 * elements where the broadcast mask is true, in order) and nonzero (the
 * coordinates of nonzero elements, (count, ndim) int64); and their
 * in-order relatives of fixed size: masked_select's backward and
 * masked_scatter (input with source's elements, in order, where the mask
 * is true). The count needs the data: the op waits for the
 * context's stream (work enqueued before it), counts on the caller's
 * thread, requires its output from the context and enqueues the copy.
 * When the tested tensor (the mask; nonzero's input) is contiguous, and for
 * masked_select the input too, both passes run over PARTS chunks split
 * across the worker pool, each chunk's selection at its count's prefix, in
 * blocks whose selected positions are gathered without branches. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_elementwise.h" /* REF_EW_BY_WIDTH */
#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_settle.h"
#include "ref_tensor.h"

enum {
  PARTS = 64, /* chunks of the contiguous scan */
  SPAN = 256, /* positions a block gathers */
};

typedef enum dynamic_kind {
  MASKED_SELECT,
  NONZERO,
  MASKED_BACKWARD,
  MASKED_SCATTER
} dynamic_kind_t;

typedef struct dynamic_task {
  dynamic_kind_t kind;
  ref_view_t out, input, mask; /* input and mask broadcast to one shape */
  ref_view_t grad; /* backward: grad_output; masked_scatter: source */
  ref_view_t own;  /* backward: grad_input (out is it broadcast) */
  int64_t n;       /* positions scanned */
  /* The contiguous scan: the tested tensor's data and its test; each
   * chunk's selected count, then its first slot in out. */
  bool fast;
  const char *tested;
  diopiDtype_t tested_dtype;
  int64_t counts[PARTS];
} dynamic_task_t;

/* flags[j] = (element j of `data`, n of `dtype`, is nonzero): the stored
 * bits, less a floating type's sign bit (-0 is zero, NaN is not). */
static void nonzero_flags(const char *data, diopiDtype_t dtype, int64_t n,
                          uint8_t *flags) {
  bool floating = ref_is_floating(dtype);
#define FLAGS(type)                                                            \
  {                                                                            \
    type bits = (type) ~(type)0;                                               \
    if (floating)                                                              \
      bits >>= 1;                                                              \
    const type *x = (const type *)data;                                        \
    for (int64_t j = 0; j < n; j++)                                            \
      flags[j] = (x[j] & bits) != 0;                                           \
  }
  REF_EW_BY_WIDTH(dtype, FLAGS)
#undef FLAGS
}

/* One chunk's positions [lo, hi) of the contiguous scan. */
static void chunk_bounds(const dynamic_task_t *t, int64_t part, int64_t *lo,
                         int64_t *hi) {
  *lo = t->n * part / PARTS;
  *hi = t->n * (part + 1) / PARTS;
}

static void count_parts(void *context, int64_t begin, int64_t end) {
  dynamic_task_t *t = context;
  size_t elem = ref_dtype_size(t->tested_dtype);
  uint8_t flags[SPAN];
  for (int64_t part = begin; part < end; part++) {
    int64_t lo, hi, count = 0;
    chunk_bounds(t, part, &lo, &hi);
    for (int64_t i = lo; i < hi; i += SPAN) {
      int64_t n = hi - i < SPAN ? hi - i : SPAN;
      nonzero_flags(t->tested + i * (int64_t)elem, t->tested_dtype, n, flags);
      for (int64_t j = 0; j < n; j++)
        count += flags[j];
    }
    t->counts[part] = count;
  }
}

/* at[k] = the k-th selected j < n; returns how many (no branch per j). */
static int64_t selected(const uint8_t *flags, int64_t n, int16_t *at) {
  int64_t k = 0;
  for (int64_t j = 0; j < n; j++) {
    at[k] = (int16_t)j;
    k += flags[j];
  }
  return k;
}

/* masked_select: out[first...] = the chunk's selected input elements. */
static void select_chunk(const dynamic_task_t *t, int64_t lo, int64_t hi,
                         int64_t first) {
  size_t tested = ref_dtype_size(t->tested_dtype);
  uint8_t flags[SPAN];
  int16_t at[SPAN + 1];
  for (int64_t i = lo; i < hi; i += SPAN) {
    int64_t n = hi - i < SPAN ? hi - i : SPAN;
    nonzero_flags(t->tested + i * (int64_t)tested, t->tested_dtype, n, flags);
    int64_t k = selected(flags, n, at);
#define SELECT(type)                                                           \
  {                                                                            \
    const type *x = (const type *)t->input.data + i;                           \
    type *y = (type *)t->out.data + first;                                     \
    for (int64_t c = 0; c < k; c++)                                            \
      y[c] = x[at[c]];                                                         \
  }
    REF_EW_BY_WIDTH(t->input.dtype, SELECT)
#undef SELECT
    first += k;
  }
}

/* nonzero: the chunk's coordinates from row `first`, the outer ones kept
 * by an odometer, the last one the position in its row. */
static void nonzero_chunk(const dynamic_task_t *t, int64_t lo, int64_t hi,
                          int64_t first) {
  int nd = t->input.ndim, inner = nd - 1;
  int64_t row = t->input.shape[inner], idx[REF_MAX_DIMS];
  int64_t rest = lo;
  for (int d = nd; d-- > 0;) {
    idx[d] = rest % t->input.shape[d];
    rest /= t->input.shape[d];
  }
  size_t elem = ref_dtype_size(t->tested_dtype);
  uint8_t flags[SPAN];
  int16_t at[SPAN + 1];
  int64_t *y = (int64_t *)t->out.data + first * nd;
  for (int64_t i = lo; i < hi;) {
    int64_t n = row - idx[inner];
    n = n < hi - i ? n : hi - i;
    n = n < SPAN ? n : SPAN;
    nonzero_flags(t->tested + i * (int64_t)elem, t->tested_dtype, n, flags);
    int64_t k = selected(flags, n, at);
    for (int64_t c = 0; c < k; c++, y += nd) {
      for (int d = 0; d < inner; d++)
        y[d] = idx[d];
      y[inner] = idx[inner] + at[c];
    }
    i += n;
    idx[inner] += n;
    for (int d = inner; d > 0 && idx[d] == t->input.shape[d]; d--) {
      idx[d] = 0;
      idx[d - 1]++;
    }
  }
}

static void scan_parts(void *context, int64_t begin, int64_t end) {
  const dynamic_task_t *t = context;
  for (int64_t part = begin; part < end; part++) {
    int64_t lo, hi;
    chunk_bounds(t, part, &lo, &hi);
    if (t->kind == MASKED_SELECT)
      select_chunk(t, lo, hi, t->counts[part]);
    else
      nonzero_chunk(t, lo, hi, t->counts[part]);
  }
}

/* Prepares the contiguous scan when `tested` (and for masked_select the
 * input) qualify, and counts the selected positions. */
static int64_t count_selected(dynamic_task_t *t, const ref_view_t *tested) {
  size_t elem = ref_dtype_size(tested->dtype);
  t->fast = ref_contiguous(tested) && elem > 0 &&
            (t->kind == NONZERO ||
             (ref_contiguous(&t->input) && ref_dtype_size(t->input.dtype) > 0));
  int64_t count = 0;
  if (!t->fast) {
    for (int64_t i = 0; i < tested->numel; i++)
      count += ref_get(tested, i) != 0;
    return count;
  }
  t->tested = tested->data;
  t->tested_dtype = tested->dtype;
  ref_parallel_for(PARTS, t->n >= (1 << 16) ? 1 : PARTS, count_parts, t);
  for (int part = 0; part < PARTS; part++) { /* counts to first slots */
    int64_t own = t->counts[part];
    t->counts[part] = count;
    count += own;
  }
  return count;
}

static void run(void *args) {
  dynamic_task_t *t = args;
  if (t->fast) {
    ref_parallel_for(PARTS, t->n >= (1 << 16) ? 1 : PARTS, scan_parts, t);
    return;
  }
  int64_t k = 0;
  for (int64_t i = 0; t->kind == MASKED_BACKWARD && i < t->own.numel; i++)
    ref_set(&t->own, i, 0);
  for (int64_t i = 0; i < t->n; i++) {
    bool selected = t->kind == NONZERO ? ref_get(&t->input, i) != 0
                                       : ref_get(&t->mask, i) != 0;
    if (t->kind == MASKED_BACKWARD || t->kind == MASKED_SCATTER) {
      selected = selected && k < t->grad.numel; /* a short source stops */
      if (t->kind == MASKED_SCATTER)
        ref_set(&t->out, i,
                selected ? ref_get(&t->grad, k) : ref_get(&t->input, i));
      else if (selected) /* summed where the input was broadcast */
        ref_set(&t->out, i, ref_get(&t->out, i) + ref_get(&t->grad, k));
      k += selected;
      continue;
    }
    if (!selected)
      continue;
    if (t->kind == MASKED_SELECT) {
      ref_set(&t->out, k++, ref_get(&t->input, i));
      continue;
    }
    int64_t rest = i; /* coordinates, last dim fastest */
    for (int d = t->input.ndim; d-- > 0;) {
      ref_set(&t->out, k * t->input.ndim + d,
              (double)(rest % t->input.shape[d]));
      rest /= t->input.shape[d];
    }
    k++;
  }
}

/* input and mask (bool or uint8) broadcast to their common shape. */
static diopiError_t broadcast_pair(const char *op, ref_view_t *input,
                                   ref_view_t *mask) {
  if (mask->dtype != diopi_dtype_bool && mask->dtype != diopi_dtype_uint8)
    return ref_fail(op, "mask: expected dtype bool or uint8, got dtype %d",
                    (int)mask->dtype);
  int nd = input->ndim > mask->ndim ? input->ndim : mask->ndim;
  int64_t shape[REF_MAX_DIMS];
  for (int d = 0; d < nd; d++) {
    int64_t a =
        d - (nd - input->ndim) >= 0 ? input->shape[d - (nd - input->ndim)] : 1;
    int64_t b =
        d - (nd - mask->ndim) >= 0 ? mask->shape[d - (nd - mask->ndim)] : 1;
    shape[d] = a == 1 ? b : a;
  }
  diopiError_t err = ref_broadcast_to(op, "input", input, shape, nd);
  return err ? err : ref_broadcast_to(op, "mask", mask, shape, nd);
}

/* Requires a (count) or (count, ndim) tensor of `dtype` into *out. */
static diopiError_t require(diopiContextHandle_t ctx, const char *op,
                            diopiConstTensorHandle_t like, int64_t count,
                            int64_t columns, bool two_dims, diopiDtype_t dtype,
                            diopiTensorHandle_t *out) {
  diopiDevice_t device;
  int64_t shape[2] = {count, columns};
  diopiSize_t size = {shape, two_dims ? 2 : 1};
  if (diopiGetTensorDevice(like, &device) ||
      diopiRequireTensor(ctx, out, &size, NULL, dtype, device))
    return ref_fail(op, "out: the context cannot allocate %lld elements",
                    (long long)(count * (two_dims ? columns : 1)));
  return diopiSuccess;
}

REF_EXPORT diopiError_t diopiMaskedSelect(diopiContextHandle_t ctx,
                                          diopiTensorHandle_t *out,
                                          diopiConstTensorHandle_t input,
                                          diopiConstTensorHandle_t mask) {
  const char *op = "diopiMaskedSelect";
  dynamic_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = MASKED_SELECT;
  if (!out)
    return ref_fail(op, "out: NULL");
  diopiError_t err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "mask", mask, &t.mask);
  if (!err)
    err = broadcast_pair(op, &t.input, &t.mask);
  if (!err)
    err = ref_settle(ctx, op);
  if (err)
    return err;
  diopiTensorHandle_t result;
  t.n = t.mask.numel;
  int64_t count = count_selected(&t, &t.mask);
  err = require(ctx, op, input, count, 0, false, t.input.dtype, &result);
  if (!err)
    err = ref_view(ctx, op, "out", result, &t.out);
  if (!err && count)
    err = ref_enqueue(ctx, op, run, &t, sizeof t);
  if (!err)
    *out = result;
  return err;
}

REF_EXPORT diopiError_t diopiNonzero(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t *out,
                                     diopiConstTensorHandle_t input) {
  const char *op = "diopiNonzero";
  dynamic_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = NONZERO;
  if (!out)
    return ref_fail(op, "out: NULL");
  diopiError_t err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_settle(ctx, op);
  if (err)
    return err;
  diopiTensorHandle_t result;
  t.n = t.input.numel;
  int64_t count = count_selected(&t, &t.input);
  err = require(ctx, op, input, count, t.input.ndim, true, diopi_dtype_int64,
                &result);
  if (!err)
    err = ref_view(ctx, op, "out", result, &t.out);
  if (!err && count && t.input.ndim)
    err = ref_enqueue(ctx, op, run, &t, sizeof t);
  if (!err)
    *out = result;
  return err;
}

/* grad_input (input's shape): grad_output's k-th element at the k-th
 * selected position of input and mask's broadcast shape, 0 elsewhere, and
 * summed onto the input's element where the mask broadcast it (PyTorch's
 * gradient reduced to the input's shape). */
REF_EXPORT diopiError_t diopiMaskedSelectBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t mask) {
  const char *op = "diopiMaskedSelectBackward";
  dynamic_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = MASKED_BACKWARD;
  ref_view_t in;
  diopiError_t err = ref_view(ctx, op, "input", input, &in);
  if (!err)
    err = ref_view(ctx, op, "grad_input", grad_input, &t.own);
  if (!err)
    err = ref_expect_shape(op, "grad_input", &t.own, in.shape, in.ndim);
  if (!err)
    err = ref_view(ctx, op, "mask", mask, &t.mask);
  if (!err)
    err = broadcast_pair(op, &in, &t.mask);
  t.out = t.own;
  if (!err)
    err = ref_broadcast_to(op, "grad_input", &t.out, in.shape, in.ndim);
  if (!err)
    err = ref_view(ctx, op, "grad_output", grad_output, &t.grad);
  if (!err && t.grad.ndim != 1)
    err = ref_fail(op, "grad_output: expected 1 dim, got %d", t.grad.ndim);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "grad_output", &t.own, &t.grad);
  if (err)
    return err;
  t.n = in.numel;
  return t.own.numel ? ref_enqueue(ctx, op, run, &t, sizeof t) : diopiSuccess;
}

REF_EXPORT diopiError_t diopiMaskedScatter(diopiContextHandle_t ctx,
                                           diopiTensorHandle_t out,
                                           diopiConstTensorHandle_t input,
                                           diopiConstTensorHandle_t mask,
                                           diopiConstTensorHandle_t source) {
  const char *op = "diopiMaskedScatter";
  dynamic_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = MASKED_SCATTER;
  diopiError_t err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "mask", mask, &t.mask);
  if (!err)
    err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_expect_shape(op, "out", &t.out, t.input.shape, t.input.ndim);
  if (!err)
    err = ref_broadcast_to(op, "mask", &t.mask, t.input.shape, t.input.ndim);
  if (!err && t.mask.dtype != diopi_dtype_bool &&
      t.mask.dtype != diopi_dtype_uint8)
    err = ref_fail(op, "mask: expected dtype bool or uint8, got dtype %d",
                   (int)t.mask.dtype);
  if (!err)
    err = ref_view(ctx, op, "source", source, &t.grad);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "source", &t.out, &t.grad);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input);
  if (err)
    return err;
  t.n = t.input.numel;
  return t.n ? ref_enqueue(ctx, op, run, &t, sizeof t) : diopiSuccess;
}
