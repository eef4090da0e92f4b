/* Order statistics along a dim, values and indices, with PyTorch's CPU
 * rules (torch 1.13), so that even ties give PyTorch's index:
 * - median: a line holding a NaN gives its first NaN; else the element of
 *   rank (n - 1) / 2 (the lower of the two middle ones) in the order by
 *   value, then position;
 * - nanmedian: the same among a line's numbers; a line of NaNs alone gives
 *   the NaN that libstdc++'s std::nth_element (PyTorch's) leaves first when
 *   no element compares less than another (first_of_equals);
 * - kthvalue: the k-th smallest (NaN above every number) as PyTorch's
 *   quickselect (quick_select_template: median-of-three pivot, Hoare
 *   partition) leaves it, which is what decides the index among ties;
 * - (nan)median over everything: the value alone (NaN for a NaN, no number
 *   or no element).
 * values and indices have input's shape with dim dropped or kept as 1
 * (keepdim). Any dtypes (compared in double: integers exact to 2^53) and
 * strides; lines split across the worker pool, each copied into scratch. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_elementwise.h"
#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_scratch.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

typedef struct pair {
  double value;
  int64_t position;
} pair_t;

typedef enum statistic { MEDIAN, NANMEDIAN, KTH } statistic_t;

typedef struct order_task {
  ref_view_t in, values, indices;
  /* One element per line, with each tensor's strides. */
  ref_view_t in_lines, values_lines, indices_lines;
  int64_t n, step; /* line length, input's stride along it */
  int64_t vstep;   /* values' stride along the dim (0 when dropped) */
  int64_t k;       /* KTH: 0-based rank */
  statistic_t statistic;
  bool flat;        /* every element as one line, in row-major order */
  bool has_indices; /* else values alone */
  pair_t *pairs;    /* scratch: n per line */
} order_task_t;

/* Ascending by value, then position (a total order). */
static int by_value_then_position(const void *a, const void *b) {
  const pair_t *x = a, *y = b;
  if (x->value != y->value)
    return x->value < y->value ? -1 : 1;
  return (x->position > y->position) - (x->position < y->position);
}

/* PyTorch's comparison in kthvalue: x above y, a NaN above a number. */
static inline bool above(double x, double y) {
  return (isnan(x) && !isnan(y)) || x > y;
}
static inline void swap(pair_t *p, int64_t i, int64_t j) {
  pair_t s = p[i];
  p[i] = p[j];
  p[j] = s;
}

/* PyTorch's quick_select_template (aten/src/ATen/native/SortingUtils.h)
 * step for step: p[k] ends up where it leaves it. */
static void quick_select(pair_t *p, int64_t n, int64_t k) {
  int64_t lo = 0, hi = n - 1;
  for (;;) {
    if (hi <= lo)
      return;
    if (hi == lo + 1) {
      if (above(p[lo].value, p[hi].value))
        swap(p, lo, hi);
      return;
    }
    swap(p, lo + (hi - lo) / 2, lo + 1);
    if (above(p[lo + 1].value, p[hi].value))
      swap(p, lo + 1, hi);
    if (above(p[lo].value, p[hi].value))
      swap(p, lo, hi);
    if (above(p[lo + 1].value, p[lo].value))
      swap(p, lo + 1, lo);
    int64_t i = lo + 1, j = hi;
    double pivot = p[lo].value;
    for (;;) {
      do
        i++;
      while (above(pivot, p[i].value));
      do
        j--;
      while (above(p[j].value, pivot));
      if (j < i)
        break;
      swap(p, i, j);
    }
    swap(p, lo, j);
    if (j <= k)
      lo = i;
    if (j >= k)
      hi = j - 1;
  }
}

/* What libstdc++'s std::nth_element(p, p, p + n) leaves at p[0] when no
 * element compares less than another, step for step: its introselect
 * moves the middle element first, partitions the rest by swapping pairs
 * from both ends inward, keeps the left part, and leaves 3 or fewer
 * elements as they are. */
static pair_t first_of_equals(pair_t *p, int64_t n) {
  int64_t last = n;
  while (last > 3) {
    swap(p, 0, last / 2);
    int64_t f = 1, l = last;
    for (l--; f < l; l--, f++)
      swap(p, f, l);
    last = f;
  }
  return p[0];
}

/* The chosen pair of a line copied into p[0, n), n >= 1. */
static pair_t select_line(const order_task_t *t, pair_t *p) {
  if (t->statistic == KTH) {
    quick_select(p, t->n, t->k);
    return p[t->k];
  }
  int64_t numbers = 0;
  for (int64_t i = 0; i < t->n; i++) {
    if (isnan(p[i].value) && t->statistic == MEDIAN)
      return p[i];
    if (!isnan(p[i].value))
      p[numbers++] = p[i]; /* numbers <= i: p[i] is read first */
  }
  if (numbers == 0)
    return first_of_equals(p, t->n);
  qsort(p, (size_t)numbers, sizeof *p, by_value_then_position);
  return p[(numbers - 1) / 2];
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const order_task_t *t = context;
  for (int64_t l = begin; l < end; l++) {
    pair_t *p = t->pairs + l * t->n;
    int64_t base = ref_offset(&t->in_lines, l);
    for (int64_t i = 0; i < t->n; i++) {
      int64_t at = t->flat ? ref_offset(&t->in, i) : base + i * t->step;
      p[i] = (pair_t){ref_load_at(&t->in, at), i};
    }
    pair_t chosen = select_line(t, p);
    ref_store_at(&t->values, ref_offset(&t->values_lines, l), chosen.value);
    if (t->has_indices)
      ref_store_at(&t->indices, ref_offset(&t->indices_lines, l),
                   (double)chosen.position);
  }
}

static void run(void *args) {
  order_task_t *t = args;
  ref_parallel_for(t->in_lines.numel, (1 << 12) / (t->n + 1) + 1, run_range, t);
}

/* Fails unless `v` has `in`'s shape with dim `d` dropped or kept as 1. */
static diopiError_t expect_reduced(const char *op, const char *arg,
                                   const ref_view_t *v, const ref_view_t *in,
                                   int d) {
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, in->shape, sizeof shape);
  if (v->ndim == in->ndim && in->ndim) {
    shape[d] = 1;
    return ref_expect_shape(op, arg, v, shape, in->ndim);
  }
  for (int i = d; i + 1 < in->ndim; i++)
    shape[i] = shape[i + 1];
  return ref_expect_shape(op, arg, v, shape, in->ndim ? in->ndim - 1 : 0);
}

/* The lines of a reduced output: one element per line of the input. */
static ref_view_t reduced_lines(const ref_view_t *v, const ref_view_t *in,
                                int d) {
  return v->ndim == in->ndim && in->ndim ? ref_lines_of(v, d) : *v;
}

/* Checks a reduction along dim d (k: KTH's 1-based rank, else NULL) and
 * sets up its lines. */
static diopiError_t dim_lines(const char *op, order_task_t *t, int d,
                              const int64_t *k) {
  t->n = t->in.ndim ? t->in.shape[d] : 1;
  t->step = t->in.ndim ? t->in.strides[d] : 0;
  if (k && (*k < 1 || *k > t->n))
    return ref_fail(op, "k: expected 1 <= k <= %lld, got %lld", (long long)t->n,
                    (long long)*k);
  if (t->n == 0)
    return ref_fail(op, "input: expected a nonempty dim %d, got size 0", d);
  t->k = k ? *k - 1 : 0;
  diopiError_t err;
  if ((err = expect_reduced(op, "values", &t->values, &t->in, d)) ||
      (err = expect_reduced(op, "indices", &t->indices, &t->in, d)))
    return err;
  if (!ref_is_integral(t->indices.dtype))
    return ref_fail(op, "indices: expected an integer dtype, got dtype %d",
                    (int)t->indices.dtype);
  t->in_lines = ref_lines_of(&t->in, t->in.ndim ? d : -1);
  t->values_lines = reduced_lines(&t->values, &t->in, d);
  t->indices_lines = reduced_lines(&t->indices, &t->in, d);
  return diopiSuccess;
}

/* `statistic` of input's lines; dim NULL: every element as one line,
 * values alone (none: NaN). */
static diopiError_t
launch(diopiContextHandle_t ctx, const char *op, statistic_t statistic,
       diopiConstTensorHandle_t values, diopiConstTensorHandle_t indices,
       diopiConstTensorHandle_t input, const int64_t *dim, const int64_t *k) {
  order_task_t task, *t = &task;
  memset(t, 0, sizeof *t);
  t->statistic = statistic;
  int d = 0;
  diopiError_t err = ref_view(ctx, op, "values", values, &t->values);
  if (!err && dim)
    err = ref_view(ctx, op, "indices", indices, &t->indices);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t->in);
  if (!err && dim)
    err = ref_dim(op, "dim", *dim, t->in.ndim, &d);
  if (err)
    return err;
  t->has_indices = dim != NULL;
  if (dim) {
    err = dim_lines(op, t, d, k);
  } else {
    err = ref_expect_shape(op, "values", &t->values, NULL, 0);
    if (!err && t->in.numel == 0)
      return ref_ew_fill(ctx, op, &t->values, NAN);
    t->flat = true;
    t->n = t->in.numel;
    t->in_lines = t->in;
    t->in_lines.ndim = 0;
    t->in_lines.numel = 1;
    t->values_lines = t->values;
  }
  if (err || t->in.numel == 0)
    return err;
  err = ref_scratch(ctx, op, (size_t)t->in.numel * sizeof(pair_t),
                    (void **)&t->pairs);
  return err ? err : ref_enqueue(ctx, op, run, t, sizeof *t);
}

REF_EXPORT diopiError_t diopiMedian(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t values,
                                    diopiTensorHandle_t indices,
                                    diopiConstTensorHandle_t input,
                                    int64_t dim) {
  return launch(ctx, "diopiMedian", MEDIAN, values, indices, input, &dim, NULL);
}
REF_EXPORT diopiError_t diopiMedianAll(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t input) {
  return launch(ctx, "diopiMedianAll", MEDIAN, out, NULL, input, NULL, NULL);
}
REF_EXPORT diopiError_t diopiNanmedian(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t values,
                                       diopiTensorHandle_t indices,
                                       diopiConstTensorHandle_t input,
                                       int64_t dim) {
  return launch(ctx, "diopiNanmedian", NANMEDIAN, values, indices, input, &dim,
                NULL);
}
REF_EXPORT diopiError_t diopiNanmedianAll(diopiContextHandle_t ctx,
                                          diopiTensorHandle_t out,
                                          diopiConstTensorHandle_t input) {
  return launch(ctx, "diopiNanmedianAll", NANMEDIAN, out, NULL, input, NULL,
                NULL);
}
REF_EXPORT diopiError_t diopiKthvalue(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t values,
                                      diopiTensorHandle_t indices,
                                      diopiConstTensorHandle_t input, int64_t k,
                                      int64_t dim) {
  return launch(ctx, "diopiKthvalue", KTH, values, indices, input, &dim, &k);
}
