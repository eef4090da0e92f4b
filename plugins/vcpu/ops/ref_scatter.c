/* Scatters along a dim: scatter (tensor or scalar source; replace, add or
 * multiply; in place or not), index_fill (a value at a 1-d index, scalar
 * or 0-dim tensor, in place or not), gather's backward (scatter-add of the
 * gradient into zeros), index_select's backward (slices of the gradient
 * added at a 1-d index) and sort's backward (the gradient put back at the
 * sorted positions). Element p of the iteration shape writes out at p
 * with its dim coordinate replaced by the index. Serial within each block
 * of the dims before dim (contiguous float32 runs blocks in parallel), so
 * repeated indices accumulate deterministically; an index out of range
 * (device data, read by the task) writes nothing, except that index_fill,
 * as PyTorch's, counts a negative index from the end. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_index_args.h"
#include "ref_pool.h"
#include "ref_tensor.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

typedef enum reduce { REPLACE, ADD, MULTIPLY } reduce_t;
typedef enum start { FROM_INPUT, FROM_ZERO, AS_IS } start_t;

typedef struct scatter_task {
  ref_view_t out, input;
  /* In the iteration shape: index (unless index_1d), src, and out's
   * offsets (with out's strides). */
  ref_view_t index, src, out_at;
  ref_view_t value_tensor; /* index_fill's 0-dim value, if has_value_tensor */
  bool has_src, index_1d, has_value_tensor;
  bool wraps; /* index_fill: a negative index counts from the end */
  start_t start;
  reduce_t reduce;
  double value;
  int64_t int_value; /* value when value_integral (exact) */
  bool value_integral;
  int dim;
  int64_t inner;  /* iteration elements after dim */
  int64_t slices; /* the float32 path: column slices of each block */
} scatter_task_t;

/* Whether the float32 path applies: out, src (in the iteration shape) and
 * the index contiguous, out's shape the iteration shape's off dim. */
static bool f32_direct(const scatter_task_t *t) {
  if (t->out.ndim == 0 || !t->has_src || !ref_f32_contiguous(&t->out) ||
      !ref_f32_contiguous(&t->src) || !ref_contiguous(&t->index))
    return false;
  for (int d = 0; d < t->out.ndim; d++)
    if (d != t->dim && t->out.shape[d] != t->out_at.shape[d])
      return false;
  return true;
}

/* out's elements [begin, end) as the op starts them: zeros, input's or
 * (AS_IS) as they are. */
static void start_range(const scatter_task_t *t, int64_t begin, int64_t end) {
  size_t elem = ref_dtype_size(t->out.dtype);
  char *at = t->out.data + begin * (int64_t)elem;
  if (t->start == FROM_ZERO && ref_contiguous(&t->out))
    memset(at, 0, (size_t)(end - begin) * elem);
  else if (t->start == FROM_INPUT && ref_contiguous(&t->out) &&
           t->input.dtype == t->out.dtype && ref_contiguous(&t->input))
    memcpy(at, t->input.data + begin * (int64_t)elem,
           (size_t)(end - begin) * elem);
  else if (t->start != AS_IS)
    for (int64_t i = begin; i < end; i++) {
      if (t->start == FROM_ZERO)
        ref_set(&t->out, i, 0);
      else
        ref_copy_element(&t->out, i, &t->input, i);
    }
}

/* x (op) v in float32: the double of the generic path rounded once gives
 * the same float for + and *. */
static inline __attribute__((always_inline)) float combine(float x, float v,
                                                           reduce_t reduce) {
  return reduce == ADD ? x + v : reduce == MULTIPLY ? x * v : v;
}

/* scatter_last's loop for one `reduce` (a constant once inlined): four
 * elements' indices and values are loaded before their four stores (the
 * stores' addresses come from loads; ahead of them, the next loads wait
 * less), and an index outside [0, len) stores to a sink, not out, without
 * a branch. The stores keep index order, so repeated indices combine in
 * order. */
static inline __attribute__((always_inline)) void
scatter_last_as(float *out, const float *src, const int64_t *index,
                int64_t extent, int64_t len, reduce_t reduce) {
  float sink = 0;
  int64_t c = 0;
  for (; c + 4 <= extent; c += 4) {
    float v0 = src[c], v1 = src[c + 1], v2 = src[c + 2], v3 = src[c + 3];
    uint64_t i0 = (uint64_t)index[c], i1 = (uint64_t)index[c + 1],
             i2 = (uint64_t)index[c + 2], i3 = (uint64_t)index[c + 3];
    float *d0 = i0 < (uint64_t)len ? out + i0 : &sink;
    float *d1 = i1 < (uint64_t)len ? out + i1 : &sink;
    float *d2 = i2 < (uint64_t)len ? out + i2 : &sink;
    float *d3 = i3 < (uint64_t)len ? out + i3 : &sink;
    *d0 = combine(*d0, v0, reduce);
    *d1 = combine(*d1, v1, reduce);
    *d2 = combine(*d2, v2, reduce);
    *d3 = combine(*d3, v3, reduce);
  }
  for (; c < extent; c++) {
    uint64_t at = (uint64_t)index[c];
    float *d = at < (uint64_t)len ? out + at : &sink;
    *d = combine(*d, src[c], reduce);
  }
}

/* One block's scatter along the last dim (inner 1): out[index[c]] (op)=
 * src[c] for c < extent, in order; an index outside [0, len) writes
 * nothing. */
static void scatter_last(const scatter_task_t *t, float *out, const float *src,
                         const int64_t *index, int64_t extent, int64_t len) {
  if (t->reduce == ADD)
    scatter_last_as(out, src, index, extent, len, ADD);
  else if (t->reduce == MULTIPLY)
    scatter_last_as(out, src, index, extent, len, MULTIPLY);
  else
    scatter_last_as(out, src, index, extent, len, REPLACE);
}

/* dst[i] (op)= src[i] for i < n, a whole slice of one index_1d row: float
 * arithmetic, which rounds as the double path does (see scatter_last).
 * Built per ISA. */
REF_ISA_BODY void combine_row_body(float *dst, const float *src, int64_t n,
                                   reduce_t reduce) {
  if (reduce == ADD)
    for (int64_t i = 0; i < n; i++)
      dst[i] = dst[i] + src[i];
  else if (reduce == MULTIPLY)
    for (int64_t i = 0; i < n; i++)
      dst[i] = dst[i] * src[i];
  else
    for (int64_t i = 0; i < n; i++)
      dst[i] = src[i];
}
REF_ISA_DISPATCH_VOID(static, combine_row,
                      (float *dst, const float *src, int64_t n,
                       reduce_t reduce),
                      (dst, src, n, reduce))

/* The float32 path over items [begin, end): column slice s of block o
 * (the dims before dim) for item o * slices + s. Each starts and writes
 * only its own columns of its own block of out, so items may run in
 * parallel and repeated indices still accumulate in order. */
static void run_f32_blocks(void *context, int64_t begin, int64_t end) {
  const scatter_task_t *t = context;
  int64_t len = t->out.shape[t->dim], extent = t->out_at.shape[t->dim];
  int64_t inner = t->inner;
  const float *src = (const float *)t->src.data;
  const int64_t *index64 = (const int64_t *)t->index.data;
  const int32_t *index32 = (const int32_t *)t->index.data;
  bool wide = t->index.dtype == diopi_dtype_int64;
  for (int64_t item = begin; item < end; item++) {
    int64_t o = item / t->slices, s = item % t->slices;
    int64_t i0 = inner * s / t->slices, i1 = inner * (s + 1) / t->slices;
    float *out = (float *)t->out.data + o * len * inner;
    if (t->slices == 1)
      start_range(t, o * len * inner, (o + 1) * len * inner);
    else
      for (int64_t at = 0; at < len; at++)
        start_range(t, (o * len + at) * inner + i0,
                    (o * len + at) * inner + i1);
    if (inner == 1 && wide && !t->index_1d) {
      scatter_last(t, out, src + o * extent, index64 + o * extent, extent, len);
      continue;
    }
    if (t->index_1d) { /* one index a row: whole slices */
      for (int64_t c = 0; c < extent; c++) {
        int64_t at = wide ? index64[c] : index32[c];
        if (at >= 0 && at < len)
          combine_row(out + at * inner + i0,
                      src + (o * extent + c) * inner + i0, i1 - i0, t->reduce);
      }
      continue;
    }
    for (int64_t c = 0; c < extent; c++) {
      int64_t p = (o * extent + c) * inner + i0, k = p;
      for (int64_t i = i0; i < i1; i++, p++) {
        int64_t at = wide ? index64[k + i - i0] : index32[k + i - i0];
        if (at < 0 || at >= len)
          continue;
        float *dst = out + at * inner + i;
        double v = src[p];
        if (t->reduce == ADD)
          v = (double)*dst + v;
        else if (t->reduce == MULTIPLY)
          v = (double)*dst * v;
        *dst = (float)v;
      }
    }
  }
}

static void run(void *args) {
  scatter_task_t *t = args;
  if (f32_direct(t) && t->out_at.numel) { /* items start their own out */
    int64_t outer = t->out_at.numel / (t->out_at.shape[t->dim] * t->inner);
    int64_t work = (t->out.numel + t->out_at.numel) / outer; /* a block's */
    /* Fewer blocks than threads: the columns of each split too, in slices
     * of 64 columns at least. */
    int64_t threads = ref_pool_threads();
    t->slices = outer >= threads ? 1 : threads;
    while (t->slices > 1 && t->inner / t->slices < 64)
      t->slices--;
    ref_parallel_for(outer * t->slices, (1 << 14) / (work / t->slices) + 1,
                     run_f32_blocks, t);
    return;
  }
  start_range(t, 0, t->out.numel);
  size_t elem = ref_dtype_size(t->out.dtype);
  double value = t->has_value_tensor ? ref_get(&t->value_tensor, 0) : t->value;
  /* Integers into an integral out: exact in int64, wrapping. */
  bool exact = ref_is_integral(t->out.dtype) &&
               (t->has_src            ? ref_is_integral(t->src.dtype)
                : t->has_value_tensor ? ref_is_integral(t->value_tensor.dtype)
                                      : t->value_integral);
  int64_t int_value = t->has_value_tensor && exact
                          ? ref_get_int(&t->value_tensor, 0)
                          : t->int_value;
  bool scalar = t->out.ndim == 0;
  int64_t len = scalar ? 1 : t->out.shape[t->dim];
  int64_t step = scalar ? 0 : t->out.strides[t->dim];
  int64_t extent = scalar ? 1 : t->out_at.shape[t->dim];
  for (int64_t p = 0; p < t->out_at.numel; p++) {
    int64_t c = p / t->inner % extent;
    int64_t at =
        (int64_t)(t->index_1d ? ref_get(&t->index, c) : ref_get(&t->index, p));
    if (at < 0 && t->wraps)
      at += len;
    if (at < 0 || at >= len)
      continue;
    char *dst = t->out.data +
                (ref_offset(&t->out_at, p) + (at - c) * step) * (int64_t)elem;
    if (exact) {
      int64_t iv = t->has_src ? ref_get_int(&t->src, p) : int_value;
      if (t->reduce != REPLACE) {
        uint64_t old = (uint64_t)ref_load_int(dst, t->out.dtype);
        iv = (int64_t)(t->reduce == ADD ? old + (uint64_t)iv
                                        : old * (uint64_t)iv);
      }
      ref_store_int(dst, t->out.dtype, iv);
      continue;
    }
    double v = t->has_src ? ref_get(&t->src, p) : value;
    if (t->reduce != REPLACE) {
      double old = ref_load(dst, t->out.dtype);
      v = t->reduce == ADD ? old + v : old * v;
    }
    ref_store(dst, t->out.dtype, v);
  }
}

/* `v` cut to `shape` (each dim no larger), keeping its strides; dims past
 * v's own (an empty index's iteration) have stride 0. */
static ref_view_t cut(const ref_view_t *v, const int64_t *shape, int ndim) {
  ref_view_t c = *v;
  c.ndim = ndim;
  c.numel = 1;
  for (int d = 0; d < ndim; d++) {
    c.shape[d] = shape[d];
    c.numel *= shape[d];
    if (d >= v->ndim)
      c.strides[d] = 0;
  }
  return c;
}

/* Fails unless `v` has `ndim` dims, each at least shape's (except `skip`,
 * -1 for none). */
static diopiError_t covers(const char *op, const char *arg, const ref_view_t *v,
                           const int64_t *shape, int ndim, int skip) {
  bool ok = v->ndim == ndim;
  for (int d = 0; ok && d < ndim; d++)
    ok = d == skip || v->shape[d] >= shape[d];
  if (ok)
    return diopiSuccess;
  char want[128], have[128];
  return ref_fail(op, "%s: shape %s does not cover the index's %s", arg,
                  ref_shape_text(v->shape, v->ndim, have, sizeof have),
                  ref_shape_text(shape, ndim, want, sizeof want));
}

/* Finishes t (out, dim, index viewed) for iteration over `iter` and
 * enqueues. */
static diopiError_t launch(CTX, const char *op, scatter_task_t *t,
                           const int64_t *iter, int ndim) {
  t->out_at = cut(&t->out, iter, ndim);
  if (t->has_src)
    t->src = cut(&t->src, iter, ndim);
  if (!t->index_1d)
    t->index = cut(&t->index, iter, ndim);
  t->inner = 1;
  for (int d = t->dim + 1; d < ndim; d++)
    t->inner *= iter[d];
  if (t->out.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, t, sizeof *t);
}

/* launch for an empty index: out only started (input's copy or zeros). */
static diopiError_t launch_empty(CTX, const char *op, scatter_task_t *t) {
  int64_t none[REF_MAX_DIMS] = {0};
  return launch(ctx, op, t, none, t->out.ndim ? t->out.ndim : 1);
}

static diopiError_t parse_reduce(const char *op, const char *reduce,
                                 reduce_t *out) {
  if (!reduce || !*reduce || !strcmp(reduce, "none"))
    *out = REPLACE;
  else if (!strcmp(reduce, "add"))
    *out = ADD;
  else if (!strcmp(reduce, "multiply"))
    *out = MULTIPLY;
  else
    return ref_fail(op, "reduce: expected add, multiply or none, got '%s'",
                    reduce);
  return diopiSuccess;
}

static diopiError_t scatter(CTX, const char *op, CT out, CT input, int64_t dim,
                            CT src, const diopiScalar_t *value, CT index,
                            const char *reduce) {
  scatter_task_t t;
  memset(&t, 0, sizeof t);
  t.start = out == input ? AS_IS : FROM_INPUT;
  t.has_src = src != NULL;
  t.value = ref_scalar(value, 0);
  t.int_value = ref_scalar_int(value, 0);
  t.value_integral = ref_scalar_is_integral(value);
  diopiError_t err = parse_reduce(op, reduce, &t.reduce);
  if (!err)
    err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "index", index, &t.index);
  if (!err)
    err = ref_expect_index(op, "index", &t.index);
  if (!err)
    err = ref_expect_shape(op, "out", &t.out, t.input.shape, t.input.ndim);
  if (!err)
    err = ref_dim(op, "dim", dim, t.out.ndim, &t.dim);
  if (!err && !src && !value)
    err = ref_fail(op, "value: scalar is NULL");
  if (!err && src)
    err = ref_view(ctx, op, "src", src, &t.src);
  if (!err && t.start != AS_IS)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input);
  if (err)
    return err;
  /* PyTorch checks an empty index no further: out is input. */
  if (t.index.numel == 0)
    return launch_empty(ctx, op, &t);
  ref_as_1d(&t.out);
  ref_as_1d(&t.input);
  ref_as_1d(&t.index);
  if (src)
    ref_as_1d(&t.src);
  if (t.index.ndim != t.out.ndim)
    return ref_fail(op, "index: %d dims, expected %d (input's)", t.index.ndim,
                    t.out.ndim);
  if ((src &&
       (err = covers(op, "src", &t.src, t.index.shape, t.index.ndim, -1))) ||
      (err = covers(op, "out", &t.out, t.index.shape, t.index.ndim, t.dim)))
    return err;
  int64_t iter[REF_MAX_DIMS];
  memcpy(iter, t.index.shape, sizeof iter);
  return launch(ctx, op, &t, iter, t.out.ndim);
}

REF_EXPORT diopiError_t diopiScatter(CTX, T out, CT input, int64_t dim, CT src,
                                     CT index, const char *reduce) {
  if (!src)
    return ref_fail("diopiScatter", "src: tensor is NULL");
  return scatter(ctx, "diopiScatter", out, input, dim, src, NULL, index,
                 reduce);
}
REF_EXPORT diopiError_t diopiScatterInp(CTX, T input, int64_t dim, CT src,
                                        CT index, const char *reduce) {
  if (!src)
    return ref_fail("diopiScatterInp", "src: tensor is NULL");
  return scatter(ctx, "diopiScatterInp", input, input, dim, src, NULL, index,
                 reduce);
}
REF_EXPORT diopiError_t diopiScatterScalar(CTX, T out, CT input, int64_t dim,
                                           const diopiScalar_t *value, CT index,
                                           const char *reduce) {
  return scatter(ctx, "diopiScatterScalar", out, input, dim, NULL, value, index,
                 reduce);
}
REF_EXPORT diopiError_t diopiScatterInpScalar(CTX, T input, int64_t dim,
                                              const diopiScalar_t *value,
                                              CT index, const char *reduce) {
  return scatter(ctx, "diopiScatterInpScalar", input, input, dim, NULL, value,
                 index, reduce);
}

/* grad_input (input's shape) = zeros, grad_output scatter-added at index. */
REF_EXPORT diopiError_t diopiGatherBackward(CTX, T grad_input, CT grad_output,
                                            CT input, int64_t dim, CT index) {
  const char *op = "diopiGatherBackward";
  scatter_task_t t;
  memset(&t, 0, sizeof t);
  t.start = FROM_ZERO;
  t.reduce = ADD;
  t.has_src = true;
  ref_view_t in;
  diopiError_t err = ref_view(ctx, op, "grad_input", grad_input, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &in);
  if (!err)
    err = ref_expect_shape(op, "grad_input", &t.out, in.shape, in.ndim);
  if (!err)
    err = ref_view(ctx, op, "index", index, &t.index);
  if (!err)
    err = ref_expect_index(op, "index", &t.index);
  if (!err)
    err = ref_dim(op, "dim", dim, t.out.ndim, &t.dim);
  if (!err)
    err = ref_view(ctx, op, "grad_output", grad_output, &t.src);
  if (!err)
    err = ref_expect_shape(op, "grad_output", &t.src, t.index.shape,
                           t.index.ndim);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "grad_output", &t.out, &t.src);
  if (err)
    return err;
  if (t.index.numel == 0) /* nothing was gathered: zeros */
    return launch_empty(ctx, op, &t);
  /* A 0-dim input or index is 1-d of one element; a 0-dim input was so
   * gathered once per index element, each adding its gradient. */
  ref_as_1d(&t.out);
  ref_as_1d(&t.index);
  ref_as_1d(&t.src);
  if ((err = covers(op, "grad_input", &t.out, t.index.shape, t.index.ndim,
                    t.dim)))
    return err;
  int64_t iter[REF_MAX_DIMS];
  memcpy(iter, t.index.shape, sizeof iter);
  return launch(ctx, op, &t, iter, t.out.ndim);
}

/* t->dim from `dim` (against out) and t->index from `index`, which must
 * be an int32/int64 tensor of at most 1 dim (index_select's and
 * index_fill's). */
static diopiError_t dim_and_1d_index(diopiContextHandle_t ctx, const char *op,
                                     scatter_task_t *t, int64_t dim,
                                     diopiConstTensorHandle_t index) {
  diopiError_t err = ref_dim(op, "dim", dim, t->out.ndim, &t->dim);
  if (!err)
    err = ref_view(ctx, op, "index", index, &t->index);
  if (!err)
    err = ref_expect_index(op, "index", &t->index);
  if (!err && t->index.ndim > 1)
    err = ref_fail(op, "index: expected 1 dim, got %d", t->index.ndim);
  return err;
}

/* out's shape with dim's extent the index's length into shape. */
static void along_index(const scatter_task_t *t, int64_t *shape) {
  memcpy(shape, t->out.shape, sizeof(int64_t) * REF_MAX_DIMS);
  if (t->out.ndim)
    shape[t->dim] = t->index.numel;
}

/* grad_input (input_sizes) = zeros, slice k of grad along dim added at
 * index[k]. */
REF_EXPORT diopiError_t diopiIndexSelectBackward(CTX, T grad_input, CT grad,
                                                 diopiSize_t input_sizes,
                                                 int64_t dim, CT index) {
  const char *op = "diopiIndexSelectBackward";
  scatter_task_t t;
  memset(&t, 0, sizeof t);
  t.start = FROM_ZERO;
  t.reduce = ADD;
  t.has_src = true;
  t.index_1d = true;
  diopiError_t err = ref_view(ctx, op, "grad_input", grad_input, &t.out);
  if (!err)
    err = ref_expect_shape(op, "grad_input", &t.out, input_sizes.data,
                           (int)input_sizes.len);
  if (!err)
    err = dim_and_1d_index(ctx, op, &t, dim, index);
  if (!err)
    err = ref_view(ctx, op, "grad", grad, &t.src);
  if (err)
    return err;
  int64_t shape[REF_MAX_DIMS];
  along_index(&t, shape);
  if ((err = ref_expect_shape(op, "grad", &t.src, shape, t.out.ndim)) ||
      (err = ref_expect_no_partial_overlap(op, "grad", &t.out, &t.src)))
    return err;
  return launch(ctx, op, &t, shape, t.out.ndim);
}

static diopiError_t index_fill(CTX, const char *op, CT out, CT input,
                               int64_t dim, CT index, CT value_tensor,
                               const diopiScalar_t *value) {
  scatter_task_t t;
  memset(&t, 0, sizeof t);
  t.start = out == input ? AS_IS : FROM_INPUT;
  t.index_1d = true;
  t.wraps = true;
  t.value = ref_scalar(value, 0);
  t.int_value = ref_scalar_int(value, 0);
  t.value_integral = ref_scalar_is_integral(value);
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_expect_shape(op, "out", &t.out, t.input.shape, t.input.ndim);
  if (!err)
    err = dim_and_1d_index(ctx, op, &t, dim, index);
  if (!err && value_tensor) {
    t.has_value_tensor = true;
    err = ref_view(ctx, op, "value", value_tensor, &t.value_tensor);
    if (!err && t.value_tensor.numel != 1)
      err = ref_fail(op, "value: expected one element, got %lld",
                     (long long)t.value_tensor.numel);
  } else if (!err && !value) {
    err = ref_fail(op, "value: scalar is NULL");
  }
  if (!err && t.start != AS_IS)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input);
  if (err)
    return err;
  int64_t iter[REF_MAX_DIMS];
  along_index(&t, iter);
  return launch(ctx, op, &t, iter, t.out.ndim);
}

REF_EXPORT diopiError_t diopiIndexFill(CTX, T out, CT input, int64_t dim,
                                       CT index, CT value) {
  if (!value)
    return ref_fail("diopiIndexFill", "value: tensor is NULL");
  return index_fill(ctx, "diopiIndexFill", out, input, dim, index, value, NULL);
}
REF_EXPORT diopiError_t diopiIndexFillInp(CTX, T input, int64_t dim, CT index,
                                          CT value) {
  if (!value)
    return ref_fail("diopiIndexFillInp", "value: tensor is NULL");
  return index_fill(ctx, "diopiIndexFillInp", input, input, dim, index, value,
                    NULL);
}
REF_EXPORT diopiError_t diopiIndexFillScalar(CTX, T out, CT input, int64_t dim,
                                             CT index,
                                             const diopiScalar_t *value) {
  return index_fill(ctx, "diopiIndexFillScalar", out, input, dim, index, NULL,
                    value);
}
REF_EXPORT diopiError_t diopiIndexFillInpScalar(CTX, T input, int64_t dim,
                                                CT index,
                                                const diopiScalar_t *value) {
  return index_fill(ctx, "diopiIndexFillInpScalar", input, input, dim, index,
                    NULL, value);
}

/* grad_input (sizes) = zeros with grad_output put at indices along dim;
 * without keepdim, indices and grad_output lack dim (a size-1 dim is put
 * back). */
REF_EXPORT diopiError_t diopiSortBackward(CTX, T grad_input, CT grad_output,
                                          int64_t dim, CT indices,
                                          diopiSize_t sizes, bool keepdim) {
  const char *op = "diopiSortBackward";
  scatter_task_t t;
  memset(&t, 0, sizeof t);
  t.start = FROM_ZERO;
  t.has_src = true;
  diopiError_t err = ref_view(ctx, op, "grad_input", grad_input, &t.out);
  if (!err)
    err =
        ref_expect_shape(op, "grad_input", &t.out, sizes.data, (int)sizes.len);
  if (!err)
    err = ref_dim(op, "dim", dim, t.out.ndim, &t.dim);
  if (!err)
    err = ref_view(ctx, op, "indices", indices, &t.index);
  if (!err)
    err = ref_expect_index(op, "indices", &t.index);
  if (!err)
    err = ref_view(ctx, op, "grad_output", grad_output, &t.src);
  if (!err)
    err = ref_expect_shape(op, "grad_output", &t.src, t.index.shape,
                           t.index.ndim);
  if (err)
    return err;
  if (!keepdim && t.index.ndim + 1 == t.out.ndim) {
    ref_view_t *views[2] = {&t.index, &t.src};
    for (int k = 0; k < 2; k++) {
      ref_view_t *v = views[k];
      for (int d = v->ndim; d > t.dim; d--) {
        v->shape[d] = v->shape[d - 1];
        v->strides[d] = v->strides[d - 1];
      }
      v->shape[t.dim] = 1;
      v->strides[t.dim] = 0;
      v->ndim++;
    }
  }
  if ((err = covers(op, "grad_input", &t.out, t.index.shape, t.index.ndim,
                    t.dim)) ||
      (err = ref_expect_no_partial_overlap(op, "grad_output", &t.out, &t.src)))
    return err;
  int64_t iter[REF_MAX_DIMS];
  memcpy(iter, t.index.shape, sizeof iter);
  return launch(ctx, op, &t, iter, t.out.ndim);
}
