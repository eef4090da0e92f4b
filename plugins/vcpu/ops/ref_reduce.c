/* sum and mean over a set of dims (empty: all), max with indices and argmax
 * over one dim (argmax: or over everything). Accumulation in double, in
 * int64 for integral input and out (max and argmax: integral input). The
 * caller's out shape says whether reduced dims are kept (as 1) or dropped.
 * sum and mean of contiguous float32 over one run of adjacent dims
 * (outer x length x inner) take a fast path split across the worker pool:
 * rows read in memory order, summed in float a few rows at a time and in
 * double beyond. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_scratch.h"
#include "ref_tensor.h"

typedef enum reduce_kind { SUM, MEAN, MAX, ARGMAX } reduce_kind_t;

typedef struct reduce_task {
  reduce_kind_t kind;
  ref_view_t input, out, indices; /* indices: MAX only */
  bool reduced[REF_MAX_DIMS];
  int64_t out_numel, count; /* elements folded into each output */
  double *acc; /* scratch: out_numel (generic), or the column partials */
  int64_t *best;
  bool *seen;
  /* The fast path's split of the input: outer x length x inner; column
   * sums split each slab's rows into `slices` (partials in acc). */
  bool fast;
  int64_t outer, length, inner, slices;
} reduce_task_t;

/* The output position of input linear index i (reduced dims dropped). */
static int64_t out_index(const reduce_task_t *t, int64_t i) {
  int64_t o = 0, scale = 1;
  for (int d = t->input.ndim; d-- > 0;) {
    int64_t n = t->input.shape[d], k = i % n;
    i /= n;
    if (!t->reduced[d]) {
      o += k * scale;
      scale *= n;
    }
  }
  return o;
}

/* The index along the reduced dim (MAX/ARGMAX over one dim), or the flat
 * index (ARGMAX over all). */
static int64_t along(const reduce_task_t *t, int64_t i) {
  int reduced = 0;
  for (int d = 0; d < t->input.ndim; d++)
    reduced += t->reduced[d];
  if (reduced != 1)
    return i;
  for (int d = t->input.ndim; d-- > 0;) {
    if (t->reduced[d])
      return i % t->input.shape[d];
    i /= t->input.shape[d];
  }
  return i;
}

/* Plans the float32 fast path: contiguous float32 input (and out, for sum
 * and mean), the reduced dims (ignoring size-1 dims) adjacent, and for max
 * and argmax the last ones (each output's elements one run). */
static void plan_f32(reduce_task_t *t) {
  bool sum = t->kind == SUM || t->kind == MEAN;
  if (t->input.numel == 0 || !ref_f32_contiguous(&t->input) ||
      (sum && !ref_f32_contiguous(&t->out)))
    return;
  int first = -1, last = -1;
  for (int d = 0; d < t->input.ndim; d++)
    if (t->reduced[d] && t->input.shape[d] > 1) {
      if (first < 0)
        first = d;
      last = d;
    }
  t->outer = t->length = t->inner = 1;
  for (int d = 0; d < t->input.ndim; d++) {
    int64_t n = t->input.shape[d];
    if (first >= 0 && d >= first && d <= last) {
      if (!t->reduced[d] && n > 1)
        return; /* a kept dim between reduced ones */
      t->length *= n;
    } else if (first >= 0 && d > last) {
      t->inner *= n;
    } else {
      t->outer *= n;
    }
  }
  t->fast = sum || t->inner == 1;
}

/* Row sums (inner 1): one output per row, rows split across the pool. */
static void row_sums_f32(void *context, int64_t begin, int64_t end) {
  const reduce_task_t *t = context;
  const float *x = (const float *)t->input.data;
  float *out = (float *)t->out.data;
  double count = t->kind == MEAN ? (double)t->count : 1.0;
  for (int64_t o = begin; o < end; o++)
    out[o] = (float)(ref_f32_sum(x + o * t->length, t->length) / count);
}

/* Row sums of a few long rows (inner 1, slices > 1): item (o, s) sums
 * slice s of row o into t->acc[item]. */
static void row_partials_f32(void *context, int64_t begin, int64_t end) {
  const reduce_task_t *t = context;
  const float *x = (const float *)t->input.data;
  for (int64_t item = begin; item < end; item++) {
    int64_t o = item / t->slices, s = item % t->slices;
    int64_t lo = s * t->length / t->slices;
    int64_t hi = (s + 1) * t->length / t->slices;
    t->acc[item] = ref_f32_sum(x + o * t->length + lo, hi - lo);
  }
}

/* Column sums (inner > 1): item (o, s) adds slice s of slab o's `length`
 * rows (all inner columns, reading rows in order) into its own double
 * partials t->acc[item * inner ...]: runs of RUN_ROWS rows in float, whose
 * adds vectorize, then into the doubles. */
enum { RUN_ROWS = 32, RUN_COLUMNS = 1024 };
REF_ISA_BODY void column_partials_f32_body(void *context, int64_t begin,
                                           int64_t end) {
  const reduce_task_t *t = context;
  float run[RUN_COLUMNS];
  for (int64_t item = begin; item < end; item++) {
    int64_t o = item / t->slices, s = item % t->slices;
    int64_t r0 = s * t->length / t->slices;
    int64_t r1 = (s + 1) * t->length / t->slices;
    double *acc = t->acc + item * t->inner;
    memset(acc, 0, (size_t)t->inner * sizeof *acc);
    for (int64_t c0 = 0; c0 < t->inner; c0 += RUN_COLUMNS) {
      int64_t n = t->inner - c0 < RUN_COLUMNS ? t->inner - c0 : RUN_COLUMNS;
      const float *x =
          (const float *)t->input.data + (o * t->length + r0) * t->inner + c0;
      for (int64_t r = r0; r < r1; r += RUN_ROWS) {
        int64_t rows = r1 - r < RUN_ROWS ? r1 - r : RUN_ROWS;
        memset(run, 0, (size_t)n * sizeof *run);
        int64_t rr = 0, ld = t->inner;
        for (; rr + 4 <= rows; rr += 4, x += 4 * ld) /* 4 rows a pass */
          for (int64_t k = 0; k < n; k++)
            run[k] += (x[k] + x[k + ld]) + (x[k + 2 * ld] + x[k + 3 * ld]);
        for (; rr < rows; rr++, x += ld)
          for (int64_t k = 0; k < n; k++)
            run[k] += x[k];
        for (int64_t k = 0; k < n; k++)
          acc[c0 + k] += (double)run[k];
      }
    }
  }
}
REF_ISA_DISPATCH_VOID(static, column_partials_f32,
                      (void *context, int64_t begin, int64_t end),
                      (context, begin, end))

/* out = the sum of each output's slices' partials (over count for mean). */
static void column_finish_f32(const reduce_task_t *t) {
  float *out = (float *)t->out.data;
  double count = t->kind == MEAN ? (double)t->count : 1.0;
  for (int64_t o = 0; o < t->outer; o++)
    for (int64_t c = 0; c < t->inner; c++) {
      double sum = 0;
      for (int64_t s = 0; s < t->slices; s++)
        sum += t->acc[(o * t->slices + s) * t->inner + c];
      out[o * t->inner + c] = (float)(sum / count);
    }
}

static void set_exact(const ref_view_t *v, int64_t i, int64_t value) {
  if (ref_is_integral(v->dtype))
    ref_set_int(v, i, value);
  else
    ref_set(v, i, (double)value);
}

/* max and argmax of integral input, compared and kept in int64 (exact
 * beyond 2^53); the first of equal maxima wins. acc holds int64 here. */
static void run_int_max(const reduce_task_t *t) {
  int64_t *acc = (int64_t *)t->acc, *best = t->best;
  bool *seen = t->seen;
  memset(seen, 0, (size_t)t->out_numel * sizeof *seen);
  for (int64_t i = 0; i < t->input.numel; i++) {
    int64_t o = out_index(t, i), v = ref_get_int(&t->input, i);
    if (!seen[o] || v > acc[o]) {
      acc[o] = v;
      best[o] = along(t, i);
      seen[o] = true;
    }
  }
  for (int64_t o = 0; o < t->out_numel; o++) {
    if (t->kind == ARGMAX) {
      set_exact(&t->out, o, best[o]);
      continue;
    }
    set_exact(&t->out, o, acc[o]);
    set_exact(&t->indices, o, best[o]);
  }
}

/* sum of integral input into an integral out, in int64 wrapping as
 * PyTorch's (exact beyond 2^53). acc holds int64 here. */
static void run_int_sum(const reduce_task_t *t) {
  uint64_t *acc = (uint64_t *)t->acc;
  memset(acc, 0, (size_t)t->out_numel * sizeof *acc);
  for (int64_t i = 0; i < t->input.numel; i++)
    acc[out_index(t, i)] += (uint64_t)ref_get_int(&t->input, i);
  for (int64_t o = 0; o < t->out_numel; o++)
    ref_set_int(&t->out, o, (int64_t)acc[o]);
}

/* max and argmax of contiguous float32 rows: one output per row. */
static void row_best_f32(void *context, int64_t begin, int64_t end) {
  const reduce_task_t *t = context;
  const float *x = (const float *)t->input.data;
  for (int64_t o = begin; o < end; o++) {
    int64_t index;
    float v = ref_f32_best(x + o * t->length, t->length, 1, &index);
    if (t->kind == ARGMAX) {
      set_exact(&t->out, o, index);
      continue;
    }
    ref_set(&t->out, o, v);
    set_exact(&t->indices, o, index);
  }
}

static void run(void *args) {
  reduce_task_t *t = args;
  if (t->fast && (t->kind == MAX || t->kind == ARGMAX)) {
    ref_parallel_for(t->outer, (1 << 15) / t->length + 1, row_best_f32, t);
    return;
  }
  if (t->fast && t->inner == 1 && t->slices > 1) {
    ref_parallel_for(t->outer * t->slices, 1, row_partials_f32, t);
    column_finish_f32(t);
    return;
  }
  if (t->fast && t->inner == 1) {
    ref_parallel_for(t->outer, (1 << 15) / t->length + 1, row_sums_f32, t);
    return;
  }
  if (t->fast) {
    int64_t per_item = t->length * t->inner / t->slices;
    ref_parallel_for(t->outer * t->slices, (1 << 15) / per_item + 1,
                     column_partials_f32, t);
    column_finish_f32(t);
    return;
  }
  double *acc = t->acc;
  int64_t *best = t->best;
  bool *seen = t->seen;
  memset(acc, 0, (size_t)t->out_numel * sizeof *acc);
  memset(best, 0, (size_t)t->out_numel * sizeof *best);
  memset(seen, 0, (size_t)t->out_numel * sizeof *seen);
  if (t->kind != SUM && t->kind != MEAN && ref_is_integral(t->input.dtype)) {
    run_int_max(t);
    return;
  }
  if (t->kind == SUM && ref_is_integral(t->input.dtype) &&
      ref_is_integral(t->out.dtype)) {
    run_int_sum(t);
    return;
  }
  for (int64_t i = 0; i < t->input.numel; i++) {
    int64_t o = out_index(t, i);
    double v = ref_get(&t->input, i);
    if (t->kind == SUM || t->kind == MEAN) {
      acc[o] += v;
    } else if (!seen[o] || v > acc[o] || (isnan(v) && !isnan(acc[o]))) {
      if (!seen[o] || !isnan(acc[o])) {
        acc[o] = v;
        best[o] = along(t, i);
      }
      seen[o] = true;
    }
  }
  for (int64_t o = 0; o < t->out_numel; o++) {
    if (t->kind == ARGMAX)
      ref_set(&t->out, o, (double)best[o]);
    else
      ref_set(&t->out, o, t->kind == MEAN ? acc[o] / (double)t->count : acc[o]);
    if (t->kind == MAX)
      ref_set(&t->indices, o, (double)best[o]);
  }
}

/* The fast path: sums get their slices and partials' scratch. Both cores
 * share the rows of a slab (or a row) when there are fewer slabs than
 * threads and enough elements (at least 2^15 a slice). */
static diopiError_t launch_f32(diopiContextHandle_t ctx, const char *op,
                               reduce_task_t *t) {
  if (t->kind == SUM || t->kind == MEAN) {
    int64_t threads = ref_pool_threads(), elements = t->length * t->inner;
    t->slices = t->outer >= threads ? 1 : threads;
    while (t->slices > 1 && elements / t->slices < (1 << 15))
      t->slices--;
    if (t->inner == 1 && t->slices == 1)
      return ref_enqueue(ctx, op, run, t, sizeof *t); /* whole rows */
    size_t bytes = (size_t)(t->outer * t->slices * t->inner) * sizeof(double);
    diopiError_t err = ref_scratch(ctx, op, bytes, (void **)&t->acc);
    if (err)
      return err;
  }
  return ref_enqueue(ctx, op, run, t, sizeof *t);
}

/* Marks the dims, checks out's shape (kept or dropped dims) and enqueues. */
static diopiError_t launch(diopiContextHandle_t ctx, const char *op,
                           reduce_task_t *t, const int64_t *dims, int ndims) {
  for (int k = 0; k < ndims; k++) {
    int d;
    diopiError_t err = ref_dim(op, "dim", dims[k], t->input.ndim, &d);
    if (err)
      return err;
    if (t->input.ndim)
      t->reduced[d] = true;
  }
  if (ndims == 0)
    for (int d = 0; d < t->input.ndim; d++)
      t->reduced[d] = true;
  int64_t kept[REF_MAX_DIMS], dropped[REF_MAX_DIMS];
  int ndropped = 0;
  t->count = 1;
  for (int d = 0; d < t->input.ndim; d++) {
    kept[d] = t->reduced[d] ? 1 : t->input.shape[d];
    if (!t->reduced[d])
      dropped[ndropped++] = t->input.shape[d];
    else
      t->count *= t->input.shape[d];
  }
  bool is_kept = t->out.ndim == t->input.ndim && t->input.ndim > 0;
  diopiError_t err =
      is_kept ? ref_expect_shape(op, "out", &t->out, kept, t->input.ndim)
              : ref_expect_shape(op, "out", &t->out, dropped, ndropped);
  if (err)
    return err;
  if ((t->kind == MAX || t->kind == ARGMAX) && t->count == 0)
    return ref_fail(op, "input: cannot take the max of an empty dim");
  t->out_numel = t->out.numel;
  if (t->out_numel == 0)
    return diopiSuccess;
  plan_f32(t);
  if (t->fast)
    return launch_f32(ctx, op, t);
  size_t n = (size_t)t->out_numel;
  char *scratch;
  if ((err = ref_scratch(ctx, op, n * (sizeof(double) + sizeof(int64_t) + 1),
                         (void **)&scratch)))
    return err;
  t->acc = (double *)scratch;
  t->best = (int64_t *)(scratch + n * sizeof(double));
  t->seen = (bool *)(scratch + n * (sizeof(double) + sizeof(int64_t)));
  return ref_enqueue(ctx, op, run, t, sizeof *t);
}

static diopiError_t sum_or_mean(diopiContextHandle_t ctx, const char *op,
                                reduce_kind_t kind,
                                diopiConstTensorHandle_t out,
                                diopiConstTensorHandle_t input,
                                diopiSize_t dim) {
  reduce_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = kind;
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (!err && dim.len > REF_MAX_DIMS)
    err = ref_fail(op, "dim: %lld dims given", (long long)dim.len);
  return err ? err : launch(ctx, op, &t, dim.data, (int)dim.len);
}

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

REF_EXPORT diopiError_t diopiSum(CTX, T out, CT input, diopiSize_t dim) {
  return sum_or_mean(ctx, "diopiSum", SUM, out, input, dim);
}
REF_EXPORT diopiError_t diopiMean(CTX, T out, CT input, diopiSize_t dim) {
  return sum_or_mean(ctx, "diopiMean", MEAN, out, input, dim);
}

REF_EXPORT diopiError_t diopiMax(CTX, T max, T max_indices, CT input,
                                 int64_t dim) {
  const char *op = "diopiMax";
  reduce_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = MAX;
  diopiError_t err = ref_view(ctx, op, "max", max, &t.out);
  if (!err)
    err = ref_view(ctx, op, "max_indices", max_indices, &t.indices);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_expect_shape(op, "max_indices", &t.indices, t.out.shape,
                           t.out.ndim);
  return err ? err : launch(ctx, op, &t, &dim, 1);
}

REF_EXPORT diopiError_t diopiArgmax(CTX, T out, CT input, const int64_t *dim,
                                    bool keepdim) {
  const char *op = "diopiArgmax";
  reduce_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = ARGMAX;
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (err)
    return err;
  (void)keepdim; /* out's shape says it */
  return launch(ctx, op, &t, dim, dim ? 1 : 0);
}
