/* Indexing: embedding (and backward), index_select and gather. Index
 * tensors are int32 or int64. An index out of range is an error, as in
 * PyTorch: every value is checked on the stream, once earlier work has
 * written it, before the op's work runs; a bad one skips the work and
 * leaves a sticky stream error naming the op (ref_enqueue_checked). */
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_index_args.h"
#include "ref_isa.h"
#include "ref_pool.h"
#include "ref_scratch.h"
#include "ref_tensor.h"

typedef struct index_task {
  ref_view_t out, input, index, grad;
  int dim;
  int64_t outer, inner, span; /* out = outer x index-length x inner */
  int64_t padding_idx;
  bool scale_grad_byfreq;
  /* embedding backward: row r's index positions are order[first[r],
   * first[r + 1]) (scratch: span + 1, then index.numel, int64s) */
  int64_t *first, *order;
  const char *op, *index_arg; /* for the range check's message */
  int64_t bound;              /* every index in [0, bound) */
} index_task_t;

static diopiError_t check_indices(const void *args) {
  const index_task_t *t = args;
  return ref_expect_indices_below(t->op, t->index_arg, &t->index, t->bound,
                                  false, 0);
}

/* Enqueues `fn` behind the check that every index of `t->index` (named
 * `arg`) is in [0, bound). */
static diopiError_t enqueue_in_range(diopiContextHandle_t ctx, const char *op,
                                     index_task_t *t, const char *arg,
                                     int64_t bound, ref_task_fn_t fn) {
  t->op = op;
  t->index_arg = arg;
  t->bound = bound;
  return ref_enqueue_checked(ctx, op, t->index.numel ? check_indices : NULL, fn,
                             t, sizeof *t);
}

/* Index i of a contiguous int32 or int64 index tensor, else through
 * ref_get. */
static int64_t index_at(const ref_view_t *index, int64_t i) {
  if (ref_contiguous(index))
    return index->dtype == diopi_dtype_int64
               ? ((const int64_t *)index->data)[i]
               : ((const int32_t *)index->data)[i];
  return (int64_t)ref_get(index, i);
}

/* Whether out and input are contiguous with one dtype: elements move as
 * bytes. */
static bool same_contiguous(const index_task_t *t) {
  return t->out.dtype == t->input.dtype && ref_contiguous(&t->out) &&
         ref_contiguous(&t->input);
}

/* index_select and embedding forward: out[o][k][s] = input[o][index[k]][s]
 * with `span` rows of the input along the indexed dim. */
static void select_rows(void *context, int64_t begin, int64_t end) {
  const index_task_t *t = context;
  int64_t k_len = t->index.numel;
  if (same_contiguous(t)) { /* whole rows of inner elements */
    size_t row_bytes = (size_t)t->inner * ref_dtype_size(t->out.dtype);
    for (int64_t r = begin; r < end; r++) {
      int64_t o = r / k_len, row = index_at(&t->index, r % k_len);
      char *to = t->out.data + (size_t)r * row_bytes;
      if (row >= 0 && row < t->span)
        memcpy(to, t->input.data + (size_t)(o * t->span + row) * row_bytes,
               row_bytes);
      else
        memset(to, 0, row_bytes);
    }
    return;
  }
  for (int64_t r = begin; r < end; r++) {
    int64_t o = r / k_len, k = r % k_len;
    int64_t row = (int64_t)ref_get(&t->index, k);
    bool valid = row >= 0 && row < t->span;
    for (int64_t s = 0; s < t->inner; s++)
      if (valid)
        ref_copy_element(&t->out, r * t->inner + s, &t->input,
                         (o * t->span + row) * t->inner + s);
      else
        ref_set(&t->out, r * t->inner + s, 0.0);
  }
}

static void run_select(void *args) {
  index_task_t *t = args;
  ref_parallel_for(t->outer * t->index.numel, (1 << 14) / (t->inner + 1) + 1,
                   select_rows, t);
}

REF_EXPORT diopiError_t diopiIndexSelect(diopiContextHandle_t ctx,
                                         diopiTensorHandle_t out,
                                         diopiConstTensorHandle_t input,
                                         int64_t dim,
                                         diopiConstTensorHandle_t index) {
  const char *op = "diopiIndexSelect";
  index_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "index", index, &t.index);
  if (!err)
    err = ref_expect_index(op, "index", &t.index);
  if (!err && t.index.ndim > 1)
    err = ref_fail(op, "index: %d dims, expected 0 or 1", t.index.ndim);
  if (!err)
    err = ref_dim(op, "dim", dim, t.input.ndim, &t.dim);
  if (err)
    return err;
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, t.input.shape, sizeof shape);
  if (t.input.ndim)
    shape[t.dim] = t.index.numel;
  if ((err = ref_expect_shape(op, "out", &t.out, shape, t.input.ndim)) ||
      (err = ref_expect_dtype(op, "out", &t.out, t.input.dtype)) ||
      (err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input)))
    return err;
  t.outer = t.inner = 1;
  for (int i = 0; i < t.dim; i++)
    t.outer *= t.input.shape[i];
  for (int i = t.dim + 1; i < t.input.ndim; i++)
    t.inner *= t.input.shape[i];
  t.span = t.input.ndim ? t.input.shape[t.dim] : 1;
  return enqueue_in_range(ctx, op, &t, "index", t.span, run_select);
}

REF_EXPORT diopiError_t diopiEmbedding(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t weight,
                                       diopiConstTensorHandle_t indices,
                                       int64_t padding_idx,
                                       bool scale_grad_byfreq, bool sparse) {
  const char *op = "diopiEmbedding";
  (void)padding_idx; /* forward rows are copied regardless */
  (void)scale_grad_byfreq;
  index_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "weight", weight, &t.input);
  if (!err)
    err = ref_view(ctx, op, "indices", indices, &t.index);
  if (!err)
    err = ref_expect_index(op, "indices", &t.index);
  if (!err && sparse)
    err = ref_fail(op, "sparse: sparse gradients are not supported");
  if (!err && t.input.ndim != 2)
    err = ref_fail(op, "weight: %d dims, expected (num_weights, dim)",
                   t.input.ndim);
  if (!err && t.index.ndim + 1 > REF_MAX_DIMS)
    err = ref_fail(op, "indices: %d dims, at most %d", t.index.ndim,
                   REF_MAX_DIMS - 1);
  if (err)
    return err;
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, t.index.shape, sizeof(int64_t) * (size_t)t.index.ndim);
  shape[t.index.ndim] = t.input.shape[1];
  if ((err = ref_expect_shape(op, "out", &t.out, shape, t.index.ndim + 1)) ||
      (err = ref_expect_dtype(op, "out", &t.out, t.input.dtype)))
    return err;
  t.outer = 1;
  t.span = t.input.shape[0];
  t.inner = t.input.shape[1];
  return enqueue_in_range(ctx, op, &t, "indices", t.span, run_select);
}

enum { GRAD_BLOCK = 256 }; /* columns one row's sums hold at once */

/* out rows [begin, end): each the sum of its index positions' grad rows,
 * in double, rounded once (16-bit gradients would lose the small terms
 * one at a time); times 1 / count with scale_grad_byfreq; padding_idx's
 * row and unnamed rows 0. */
static void embedding_grad_rows(void *context, int64_t begin, int64_t end) {
  const index_task_t *t = context;
  for (int64_t r = begin; r < end; r++) {
    int64_t lo = t->first[r], hi = r == t->padding_idx ? lo : t->first[r + 1];
    double scale =
        t->scale_grad_byfreq && hi > lo ? 1.0 / (double)(hi - lo) : 1.0;
    for (int64_t s0 = 0; s0 < t->inner; s0 += GRAD_BLOCK) {
      int64_t w = t->inner - s0 < GRAD_BLOCK ? t->inner - s0 : GRAD_BLOCK;
      double sum[GRAD_BLOCK] = {0};
      for (int64_t j = lo; j < hi; j++) {
        int64_t at = t->order[j] * t->inner + s0;
        for (int64_t s = 0; s < w; s++)
          sum[s] += ref_get(&t->grad, at + s);
      }
      for (int64_t s = 0; s < w; s++)
        ref_set(&t->out, r * t->inner + s0 + s, sum[s] * scale);
    }
  }
}

/* out (num_weights, dim): the index positions sorted by row (counting
 * sort, in order within a row), then each row summed on its own. */
static void run_embedding_backward(void *args) {
  index_task_t *t = args;
  int64_t n = t->index.numel, rows = t->span;
  memset(t->first, 0, (size_t)(rows + 1) * sizeof *t->first);
  for (int64_t k = 0; k < n; k++) /* row r's count into first[r + 1] */
    t->first[index_at(&t->index, k) + 1]++;
  for (int64_t r = 1; r <= rows; r++)
    t->first[r] += t->first[r - 1];
  for (int64_t k = 0; k < n; k++) /* first[r] advances to row r's end */
    t->order[t->first[index_at(&t->index, k)]++] = k;
  for (int64_t r = rows; r > 0; r--)
    t->first[r] = t->first[r - 1];
  t->first[0] = 0;
  ref_parallel_for(rows, (1 << 14) / (t->inner + 1) + 1, embedding_grad_rows,
                   t);
}

REF_EXPORT diopiError_t diopiEmbeddingBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiConstTensorHandle_t grad, diopiConstTensorHandle_t indices,
    int64_t num_weights, int64_t padding_idx, bool scale_grad_byfreq,
    bool sparse) {
  const char *op = "diopiEmbeddingBackward";
  index_task_t t;
  memset(&t, 0, sizeof t);
  t.padding_idx = padding_idx;
  t.scale_grad_byfreq = scale_grad_byfreq;
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "grad", grad, &t.grad);
  if (!err)
    err = ref_view(ctx, op, "indices", indices, &t.index);
  if (!err)
    err = ref_expect_index(op, "indices", &t.index);
  if (!err && sparse)
    err = ref_fail(op, "sparse: sparse gradients are not supported");
  if (!err && t.out.ndim != 2)
    err = ref_fail(op, "out: %d dims, expected (num_weights, dim)", t.out.ndim);
  if (err)
    return err;
  int64_t want_out[2] = {num_weights, t.out.shape[1]};
  int64_t want_grad[REF_MAX_DIMS];
  if (t.index.ndim + 1 > REF_MAX_DIMS)
    return ref_fail(op, "indices: %d dims, at most %d", t.index.ndim,
                    REF_MAX_DIMS - 1);
  memcpy(want_grad, t.index.shape, sizeof(int64_t) * (size_t)t.index.ndim);
  want_grad[t.index.ndim] = t.out.shape[1];
  if ((err = ref_expect_shape(op, "out", &t.out, want_out, 2)) ||
      (err =
           ref_expect_shape(op, "grad", &t.grad, want_grad, t.index.ndim + 1)))
    return err;
  t.span = num_weights;
  t.inner = t.out.shape[1];
  if ((err = ref_scratch(
           ctx, op, (size_t)(num_weights + 1 + t.index.numel) * sizeof(int64_t),
           (void **)&t.first)))
    return err;
  t.order = t.first + num_weights + 1;
  return enqueue_in_range(ctx, op, &t, "indices", num_weights,
                          run_embedding_backward);
}

/* out[i] = row[index[i]] for i < n, 4-byte elements along the last dim: an
 * index outside [0, li) (unreachable behind the range check) reads row 0
 * and stores 0, without a branch. */
REF_ISA_BODY void gather_last_body(uint32_t *out, const uint32_t *row,
                                   const int64_t *index, int64_t n,
                                   int64_t li) {
  for (int64_t i = 0; i < n; i++) {
    bool inside = (uint64_t)index[i] < (uint64_t)li;
    uint32_t v = row[inside ? index[i] : 0];
    out[i] = inside ? v : 0;
  }
}
#ifdef REF_ISA_MULTIVERSION
/* AVX2's hardware gathers, on AVX-512 CPUs too: their 16-lane gathers ran
 * slower than the SSE2 loop in `backplane bench ops` (AMD EPYC). */
REF_TARGET_AVX2 static void gather_last_avx2(uint32_t *out, const uint32_t *row,
                                             const int64_t *index, int64_t n,
                                             int64_t li) {
  gather_last_body(out, row, index, n, li);
}
static void gather_last_sse2(uint32_t *out, const uint32_t *row,
                             const int64_t *index, int64_t n, int64_t li) {
  gather_last_body(out, row, index, n, li);
}
static void gather_last(uint32_t *out, const uint32_t *row,
                        const int64_t *index, int64_t n, int64_t li) {
  if (ref_isa() >= REF_ISA_AVX2)
    gather_last_avx2(out, row, index, n, li);
  else
    gather_last_sse2(out, row, index, n, li);
}
#else
static void gather_last(uint32_t *out, const uint32_t *row,
                        const int64_t *index, int64_t n, int64_t li) {
  gather_last_body(out, row, index, n, li);
}
#endif

/* gather_range for contiguous tensors of one dtype whose shapes agree
 * off `dim`: element i sits in block i / (lo * inner) of out (lo rows along
 * dim) and of input (li rows), at column i % inner. */
static void gather_contiguous(const index_task_t *t, int64_t begin,
                              int64_t end) {
  int64_t lo = t->out.shape[t->dim], li = t->input.shape[t->dim], inner = 1;
  for (int d = t->dim + 1; d < t->out.ndim; d++)
    inner *= t->out.shape[d];
  size_t elem = ref_dtype_size(t->out.dtype);
  const int64_t *index64 = (const int64_t *)t->index.data;
  const int32_t *index32 = (const int32_t *)t->index.data;
  bool wide = t->index.dtype == diopi_dtype_int64;
  int64_t i = begin;
  while (i < end) { /* one block of lo * inner elements at a time */
    int64_t block = i / (lo * inner), first = block * lo * inner;
    int64_t stop = first + lo * inner < end ? first + lo * inner : end;
    const char *from = t->input.data + block * li * inner * (int64_t)elem;
    char *to = t->out.data;
    if (inner == 1 && elem == 4 && wide) {
      gather_last((uint32_t *)to + i, (const uint32_t *)from, index64 + i,
                  stop - i, li);
      i = stop;
      continue;
    }
    for (int64_t c = (i - first) % inner; i < stop; i++) {
      int64_t row = wide ? index64[i] : index32[i];
      if (row < 0 || row >= li) /* unreachable behind the range check */
        memset(to + i * (int64_t)elem, 0, elem);
      else if (elem == 4)
        ((uint32_t *)to)[i] = ((const uint32_t *)from)[row * inner + c];
      else
        memcpy(to + i * (int64_t)elem, from + (row * inner + c) * (int64_t)elem,
               elem);
      if (++c == inner)
        c = 0;
    }
  }
}

static bool gather_shapes_agree(const index_task_t *t) {
  if (t->out.ndim != t->input.ndim || !same_contiguous(t) ||
      !ref_contiguous(&t->index))
    return false;
  for (int d = 0; d < t->out.ndim; d++)
    if (d != t->dim && t->out.shape[d] != t->input.shape[d])
      return false;
  return true;
}

/* out[c] = input[c with c[dim] = index[c]], c over index's (= out's) shape. */
static void gather_range(void *context, int64_t begin, int64_t end) {
  const index_task_t *t = context;
  if (gather_shapes_agree(t)) {
    gather_contiguous(t, begin, end);
    return;
  }
  for (int64_t i = begin; i < end; i++) {
    int64_t rest = i, in_linear = 0, scale = 1, row = 0;
    bool valid = true;
    for (int d = t->out.ndim; d-- > 0;) {
      int64_t c = rest % t->out.shape[d];
      rest /= t->out.shape[d];
      if (d == t->dim) {
        row = (int64_t)ref_get(&t->index, i);
        valid = row >= 0 && row < t->input.shape[d];
        c = row;
      }
      in_linear += c * scale;
      scale *= t->input.shape[d];
    }
    if (valid)
      ref_copy_element(&t->out, i, &t->input, in_linear);
    else
      ref_set(&t->out, i, 0.0);
  }
}

static void run_gather(void *args) {
  index_task_t *t = args;
  ref_parallel_for(t->out.numel, 1 << 14, gather_range, t);
}

REF_EXPORT diopiError_t diopiGather(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    diopiConstTensorHandle_t input, int64_t dim,
                                    diopiConstTensorHandle_t index) {
  const char *op = "diopiGather";
  index_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "index", index, &t.index);
  if (!err)
    err = ref_expect_index(op, "index", &t.index);
  if (!err)
    err = ref_dim(op, "dim", dim, t.input.ndim, &t.dim);
  if (!err)
    err = ref_expect_shape(op, "out", &t.out, t.index.shape, t.index.ndim);
  if (!err && t.index.numel == 0) /* PyTorch checks an empty index no more */
    return ref_expect_dtype(op, "out", &t.out, t.input.dtype);
  if (!err && t.input.ndim <= 1 && t.index.ndim <= 1) {
    /* As torch.gather: a 0-d input or index is 1-d of one element. */
    ref_as_1d(&t.input);
    ref_as_1d(&t.index);
    ref_as_1d(&t.out);
  }
  if (!err && t.index.ndim != t.input.ndim)
    err = ref_fail(op, "index: %d dims, input has %d", t.index.ndim,
                   t.input.ndim);
  for (int d = 0; !err && d < t.input.ndim; d++)
    if (d != t.dim && t.index.shape[d] > t.input.shape[d])
      err =
          ref_fail(op, "index: size %lld at dim %d exceeds input's %lld",
                   (long long)t.index.shape[d], d, (long long)t.input.shape[d]);
  if (!err)
    err = ref_expect_dtype(op, "out", &t.out, t.input.dtype);
  if (!err)
    err = ref_expect_no_partial_overlap(op, "input", &t.out, &t.input);
  if (err)
    return err;
  return enqueue_in_range(ctx, op, &t, "index",
                          t.input.ndim ? t.input.shape[t.dim] : 1, run_gather);
}
