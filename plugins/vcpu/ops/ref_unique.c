/* unique (DIOPI's diopiUnique): the distinct elements of the input (dim
 * NULL), or its distinct slices along *dim, in ascending lexicographic
 * order (a slice's elements read as PyTorch reads them: the input with dims
 * 0 and *dim swapped), as PyTorch's torch.unique; sorted or not, the result is
 * sorted (the order of an unsorted unique is unspecified). Optional: the
 * inverse
 * (`indices`, int64, the input's shape, or dim's length: each element's or
 * slice's position in the result) and the counts (return_counts, int64).
 * The result's size depends on the data: the op waits for the context's
 * stream, orders the elements on the caller's thread, requires out (and
 * counts) from the context and writes them there, with the inverse: the
 * stream has run everything enqueued before, and out and counts are new.
 * Any dtype; NaNs are distinct from each other and sort last. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_settle.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* The input as `count` slices of `width` elements: slice j's element k at
 * ref_offset(&slices, j) + ref_offset(&within, k). */
typedef struct order {
  ref_view_t x, slices, within;
  int64_t count, width;
  bool integral;
} order_t;

static int compare_values(const order_t *o, int64_t a, int64_t b) {
  for (int64_t k = 0; k < o->width; k++) {
    int64_t ka = ref_offset(&o->slices, a) + ref_offset(&o->within, k),
            kb = ref_offset(&o->slices, b) + ref_offset(&o->within, k);
    size_t elem = ref_dtype_size(o->x.dtype);
    if (o->integral) {
      int64_t va = ref_load_int(o->x.data + ka * (int64_t)elem, o->x.dtype),
              vb = ref_load_int(o->x.data + kb * (int64_t)elem, o->x.dtype);
      if (va != vb)
        return va < vb ? -1 : 1;
      continue;
    }
    double va = ref_load_at(&o->x, ka), vb = ref_load_at(&o->x, kb);
    if (isnan(va) || isnan(vb)) /* NaN last, and unequal to every value */
      return isnan(va) && isnan(vb) ? 2 : isnan(va) ? 1 : -1;
    if (va != vb)
      return va < vb ? -1 : 1;
  }
  return 0;
}

/* Whether slice a goes after slice b: larger, or equal (NaN slices
 * included) and later; a stable order. */
static bool after(const order_t *o, int64_t a, int64_t b) {
  int c = compare_values(o, a, b);
  return c == 1 || c == -1 ? c == 1 : a > b;
}

/* Sorts v[0, n) by `after`, stably (merge sort through tmp). */
static void sort_slices(const order_t *o, int64_t *v, int64_t *tmp, int64_t n) {
  if (n < 2)
    return;
  int64_t h = n / 2, i = 0, j = h, k = 0;
  sort_slices(o, v, tmp, h);
  sort_slices(o, v + h, tmp, n - h);
  while (i < h || j < n)
    tmp[k++] = j >= n || (i < h && !after(o, v[i], v[j])) ? v[i++] : v[j++];
  memcpy(v, tmp, (size_t)n * sizeof *v);
}

/* The dtype-agnostic copy of slice `from` of x into slice `to` of y. */
static void copy_slice(const order_t *o, const ref_view_t *y,
                       const ref_view_t *y_slices, const ref_view_t *y_within,
                       int64_t to, int64_t from) {
  for (int64_t k = 0; k < o->width; k++) {
    ref_view_t dst = *y, src = o->x;
    dst.data += (ref_offset(y_slices, to) + ref_offset(y_within, k)) *
                (int64_t)ref_dtype_size(y->dtype);
    src.data += (ref_offset(&o->slices, from) + ref_offset(&o->within, k)) *
                (int64_t)ref_dtype_size(o->x.dtype);
    dst.ndim = src.ndim = 0;
    dst.numel = src.numel = 1;
    ref_copy_element(&dst, 0, &src, 0);
  }
}

/* The input split along `d` (-1: every element a slice of one). */
static void split(order_t *o, int d) {
  if (d < 0) {
    o->slices = o->x;
    o->within = o->x;
    o->within.ndim = 0;
    o->within.numel = 1;
  } else {
    o->slices = o->x;
    o->slices.ndim = 1;
    o->slices.shape[0] = o->x.shape[d];
    o->slices.strides[0] = o->x.strides[d];
    o->slices.numel = o->x.shape[d];
    /* within a slice, PyTorch's order: x with dims 0 and d swapped */
    ref_view_t swapped = o->x;
    swapped.shape[0] = o->x.shape[d];
    swapped.strides[0] = o->x.strides[d];
    swapped.shape[d] = o->x.shape[0];
    swapped.strides[d] = o->x.strides[0];
    o->within = ref_lines_of(&swapped, 0);
  }
  o->count = o->slices.numel;
  o->width = o->within.numel;
}

static diopiError_t require(CTX, const char *op, const char *arg, T *out,
                            const int64_t *shape, int ndim, diopiDtype_t dtype,
                            CT like) {
  diopiDevice_t device;
  diopiSize_t size = {shape, ndim};
  if (!out)
    return ref_fail(op, "%s: pointer is NULL", arg);
  if (diopiGetTensorDevice(like, &device) ||
      diopiRequireTensor(ctx, out, &size, NULL, dtype, device))
    return ref_fail(op, "%s: the context cannot allocate its %d-dim result",
                    arg, ndim);
  return diopiSuccess;
}

REF_EXPORT diopiError_t diopiUnique(CTX, T *out, CT input, const int64_t *dim,
                                    bool sorted, bool return_counts, T indices,
                                    T *counts) {
  const char *op = "diopiUnique";
  (void)sorted; /* always sorted: see the top */
  order_t o;
  memset(&o, 0, sizeof o);
  ref_view_t inv;
  bool has_inverse;
  diopiError_t err = ref_view(ctx, op, "input", input, &o.x);
  if (!err)
    err = ref_view_optional(ctx, op, "indices", indices, &inv, &has_inverse);
  if (!err && return_counts && !counts)
    err = ref_fail(op, "counts: pointer is NULL, expected one with "
                       "return_counts");
  int d = -1;
  if (!err && dim)
    err = ref_dim(op, "dim", *dim, o.x.ndim, &d);
  if (err)
    return err;
  o.integral = ref_is_integral(o.x.dtype);
  split(&o, d);
  if (has_inverse) {
    int64_t want = o.count;
    err = d < 0 ? ref_expect_shape(op, "indices", &inv, o.x.shape, o.x.ndim)
                : ref_expect_shape(op, "indices", &inv, &want, 1);
    if (!err && inv.dtype != diopi_dtype_int64)
      err =
          ref_fail(op, "indices: expected int64, got dtype %d", (int)inv.dtype);
    if (err)
      return err;
  }
  if ((err = ref_settle(ctx, op)))
    return err;
  size_t room = (size_t)(o.count ? o.count : 1) * sizeof(int64_t);
  int64_t *order = malloc(room), *first = malloc(room);
  if (!order || !first) {
    free(order);
    free(first);
    return ref_fail(op, "input: no host memory to order %lld slices",
                    (long long)o.count);
  }
  for (int64_t j = 0; j < o.count; j++)
    order[j] = j;
  sort_slices(&o, order, first, o.count); /* first: the merge's room */
  /* first[u]: the position in `order` where distinct slice u starts */
  int64_t distinct = 0;
  for (int64_t j = 0; j < o.count; j++)
    if (j == 0 || compare_values(&o, order[j - 1], order[j]) != 0)
      first[distinct++] = j;
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, o.x.shape, sizeof shape);
  int ndim = d < 0 ? 1 : o.x.ndim;
  shape[d < 0 ? 0 : d] = distinct;
  err = require(ctx, op, "out", out, shape, ndim, o.x.dtype, input);
  ref_view_t y, cnt;
  if (!err)
    err = ref_view(ctx, op, "out", *out, &y);
  if (!err && return_counts)
    err = require(ctx, op, "counts", counts, &distinct, 1, diopi_dtype_int64,
                  input);
  if (!err && return_counts)
    err = ref_view(ctx, op, "counts", *counts, &cnt);
  if (!err) {
    order_t yo = o;
    yo.x = y;
    split(&yo, d);
    for (int64_t u = 0; u < distinct; u++) {
      int64_t end = u + 1 < distinct ? first[u + 1] : o.count;
      copy_slice(&o, &y, &yo.slices, &yo.within, u, order[first[u]]);
      if (return_counts)
        ref_set_int(&cnt, u, end - first[u]);
      for (int64_t j = first[u]; has_inverse && j < end; j++)
        ref_set_int(&inv, order[j], u);
    }
  }
  free(order);
  free(first);
  return err;
}
