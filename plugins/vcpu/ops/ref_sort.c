/* sort, argsort and topk along a dim: each line's (sort key, position) pairs
 * sorted, integers exactly, NaN above every number (last ascending, first
 * descending, as PyTorch), equal values in their original order (so every
 * sort is stable).
 * topk of a few from a long line keeps only the first k while it reads
 * (float32: as 64-bit words of sort key and position, screened a block of
 * keys at a time).
 * Lines split across the worker pool; the pairs live in scratch from the
 * context. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_isa.h"
#include "ref_pool.h"
#include "ref_scratch.h"
#include "ref_tensor.h"
#include "ref_view_more.h"

/* An element's sort key (key_of) and its position along the line. */
typedef struct pair {
  uint64_t key;
  int64_t position;
} pair_t;

typedef struct sort_task {
  ref_view_t input, values, indices;
  /* One element per line (the dim dropped), with each tensor's strides. */
  ref_view_t input_lines, values_lines, indices_lines;
  int dim;
  int64_t n, k;                /* line length, elements written per line */
  bool descending, has_values; /* argsort: indices only */
  pair_t *pairs;               /* scratch: n per line */
} sort_task_t;

/* The sort key of the element `offset` elements into v: unsigned order is
 * the sort order (integers exactly, in int64; floating values as doubles,
 * -0 as +0, every NaN last ascending and first descending), inverted for
 * descending. */
static uint64_t key_of(const ref_view_t *v, int64_t offset, bool descending) {
  uint64_t key;
  if (ref_is_integral(v->dtype)) {
    const char *p = v->data + offset * (int64_t)ref_dtype_size(v->dtype);
    key = (uint64_t)ref_load_int(p, v->dtype) ^ (UINT64_C(1) << 63);
  } else {
    double x = ref_load_at(v, offset);
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits = x == 0 ? 0 : bits;
    key = bits >> 63 ? ~bits : bits | UINT64_C(1) << 63;
    key = x != x ? UINT64_MAX : key;
  }
  return descending ? ~key : key;
}

/* Sort order: by key, ties by position (so every sort is stable). */
static int by_key(const void *a, const void *b) {
  const pair_t *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return (x->position > y->position) - (x->position < y->position);
}

static int64_t step_of(const ref_view_t *v, int d) {
  return v->ndim ? v->strides[d] : 0;
}

/* The line's first k pairs in sort order into p[0, k), k >= 1: each pair
 * whose key is below the k-th's so far is inserted in order. A later pair
 * never beats an equal earlier one, so the result is the sorted line's
 * first k. */
static void select_first_k(const sort_task_t *t, int64_t base, pair_t *p) {
  int64_t step = step_of(&t->input, t->dim), count = 0;
  for (int64_t i = 0; i < t->n; i++) {
    pair_t c = {key_of(&t->input, base + i * step, t->descending), i};
    if (count == t->k && c.key >= p[count - 1].key)
      continue;
    int64_t j = count < t->k ? count++ : count - 1;
    for (; j > 0 && by_key(&c, &p[j - 1]) < 0; j--)
      p[j] = p[j - 1];
    p[j] = c;
  }
}

/* dst's element `to` = src's element `from` (offsets in elements): exact
 * between integral dtypes. */
static void copy_at(const ref_view_t *dst, int64_t to, const ref_view_t *src,
                    int64_t from) {
  if (ref_is_integral(dst->dtype) && ref_is_integral(src->dtype))
    ref_store_int(
        dst->data + to * (int64_t)ref_dtype_size(dst->dtype), dst->dtype,
        ref_load_int(src->data + from * (int64_t)ref_dtype_size(src->dtype),
                     src->dtype));
  else
    ref_store_at(dst, to, ref_load_at(src, from));
}

/* The sort key of a float32: its bits mapped so that unsigned order is
 * the ascending order of key_of (-0 as +0, every NaN last),
 * inverted for descending. */
static inline uint32_t sort_key(float v, bool descending) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  bits = v == 0 ? 0 : bits;
  uint32_t key = bits & 0x80000000u ? ~bits : bits | 0x80000000u;
  key = v != v ? 0xffffffffu : key;
  return descending ? ~key : key;
}

/* A float32 line's positions in sort order: an LSD radix sort of its keys,
 * a byte a pass (stable, so ties keep their positions, as by_key
 * order them), passes whose byte is one value skipped. `room` holds 4 n
 * 32-bit words; returns where the order ends up. */
static const uint32_t *radix_order(const float *x, int64_t step, int64_t n,
                                   bool descending, uint32_t *room) {
  uint32_t *key = room, *key2 = room + n, *order = room + 2 * n,
           *order2 = room + 3 * n;
  for (int64_t i = 0; i < n; i++) {
    key[i] = sort_key(x[i * step], descending);
    order[i] = (uint32_t)i;
  }
  for (int shift = 0; shift < 32; shift += 8) {
    int64_t count[256] = {0};
    for (int64_t i = 0; i < n; i++)
      count[(key[i] >> shift) & 255]++;
    if (count[(key[0] >> shift) & 255] == n)
      continue;
    for (int64_t d = 0, at = 0; d < 256; d++) {
      int64_t c = count[d];
      count[d] = at;
      at += c;
    }
    for (int64_t i = 0; i < n; i++) {
      int64_t at = count[(key[i] >> shift) & 255]++;
      key2[at] = key[i];
      order2[at] = order[i];
    }
    uint32_t *swap = key;
    key = key2;
    key2 = swap;
    swap = order;
    order = order2;
    order2 = swap;
  }
  return order;
}

enum { TOPK_BLOCK = 16 }; /* keys a float32 topk screens at once */

/* The first k (1 <= k <= n <= INT32_MAX) of a float32 line x (elements
 * `step` apart) into top[0, k): each element as its sort key above its
 * position, one 64-bit word whose unsigned order is by_key's (ties
 * by position), so a candidate enters when its word is below the k-th's.
 * The keys (room for n in `keys`) come first, in one vector pass; then a
 * block of keys none of which reaches the k-th's key is skipped whole,
 * which is most blocks of a long line. Built per ISA. */
REF_ISA_BODY void first_k_f32_body(const float *x, int64_t step, int64_t n,
                                   int64_t k, bool descending, uint32_t *keys,
                                   uint64_t *top) {
  if (step == 1)
    for (int64_t i = 0; i < n; i++)
      keys[i] = sort_key(x[i], descending);
  else
    for (int64_t i = 0; i < n; i++)
      keys[i] = sort_key(x[i * step], descending);
  int64_t count = 0;
  uint64_t worst = UINT64_MAX; /* anything enters until k are in */
  for (int64_t i0 = 0; i0 < n; i0 += TOPK_BLOCK) {
    int64_t m = n - i0 < TOPK_BLOCK ? n - i0 : TOPK_BLOCK;
    uint32_t bound = (uint32_t)(worst >> 32);
    int hit = 0;
    if (m == TOPK_BLOCK)
      for (int64_t j = 0; j < TOPK_BLOCK; j++)
        hit |= keys[i0 + j] <= bound;
    else
      hit = 1;
    if (!hit)
      continue;
    for (int64_t j = i0; j < i0 + m; j++) {
      uint64_t c = (uint64_t)keys[j] << 32 | (uint64_t)j;
      if (c >= worst)
        continue;
      int64_t at = count < k ? count++ : k - 1;
      for (; at > 0 && top[at - 1] > c; at--)
        top[at] = top[at - 1];
      top[at] = c;
      if (count == k)
        worst = top[k - 1];
    }
  }
}
REF_ISA_DISPATCH_VOID(static, first_k_f32,
                      (const float *x, int64_t step, int64_t n, int64_t k,
                       bool descending, uint32_t *keys, uint64_t *top),
                      (x, step, n, k, descending, keys, top))

/* A float32 line's first k through first_k_f32 (its top words, then its
 * keys, in the line's n pairs of scratch), stored. */
static void topk_line_f32(const sort_task_t *t, int64_t l, int64_t base) {
  int64_t step = step_of(&t->input, t->dim);
  const float *x = (const float *)t->input.data + base;
  uint64_t *top = (uint64_t *)(t->pairs + l * t->n);
  first_k_f32(x, step, t->n, t->k, t->descending, (uint32_t *)(top + t->k),
              top);
  int64_t vb = ref_offset(&t->values_lines, l);
  int64_t ib = ref_offset(&t->indices_lines, l);
  int64_t vs = step_of(&t->values, t->dim), is = step_of(&t->indices, t->dim);
  for (int64_t i = 0; i < t->k; i++) {
    int64_t at = (int64_t)(top[i] & UINT32_MAX);
    if (t->has_values && t->values.dtype == diopi_dtype_float32)
      ((float *)t->values.data)[vb + i * vs] = x[at * step];
    else if (t->has_values)
      ref_store_at(&t->values, vb + i * vs, x[at * step]);
    if (t->indices.dtype == diopi_dtype_int64)
      ((int64_t *)t->indices.data)[ib + i * is] = at;
    else
      ref_store_at(&t->indices, ib + i * is, (double)at);
  }
}

/* Sorts a float32 line through radix_order and stores its first k. */
static void sort_line_f32(const sort_task_t *t, int64_t l, int64_t base) {
  int64_t step = step_of(&t->input, t->dim);
  const float *x = (const float *)t->input.data + base;
  const uint32_t *order = radix_order(x, step, t->n, t->descending,
                                      (uint32_t *)(t->pairs + l * t->n));
  int64_t vb = ref_offset(&t->values_lines, l);
  int64_t ib = ref_offset(&t->indices_lines, l);
  int64_t vs = step_of(&t->values, t->dim), is = step_of(&t->indices, t->dim);
  if (t->has_values && t->values.dtype == diopi_dtype_float32) {
    float *values = (float *)t->values.data + vb;
    for (int64_t i = 0; i < t->k; i++)
      values[i * vs] = x[order[i] * step];
  } else if (t->has_values) {
    for (int64_t i = 0; i < t->k; i++)
      ref_store_at(&t->values, vb + i * vs, x[order[i] * step]);
  }
  if (t->indices.dtype == diopi_dtype_int64) {
    int64_t *indices = (int64_t *)t->indices.data + ib;
    for (int64_t i = 0; i < t->k; i++)
      indices[i * is] = order[i];
  } else {
    for (int64_t i = 0; i < t->k; i++)
      ref_store_at(&t->indices, ib + i * is, (double)order[i]);
  }
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const sort_task_t *t = context;
  for (int64_t l = begin; l < end; l++) {
    pair_t *p = t->pairs + l * t->n;
    int64_t base = ref_offset(&t->input_lines, l);
    bool few = t->k >= 1 && t->k * 16 <= t->n;
    bool f32 = t->input.dtype == diopi_dtype_float32 && t->n <= INT32_MAX;
    if (f32) {
      if (few)
        topk_line_f32(t, l, base);
      else
        sort_line_f32(t, l, base);
      continue;
    }
    int64_t step = step_of(&t->input, t->dim);
    if (few) { /* a few of a long line */
      select_first_k(t, base, p);
    } else {
      for (int64_t i = 0; i < t->n; i++)
        p[i] = (pair_t){key_of(&t->input, base + i * step, t->descending), i};
      qsort(p, (size_t)t->n, sizeof *p, by_key);
    }
    int64_t vb = ref_offset(&t->values_lines, l);
    int64_t ib = ref_offset(&t->indices_lines, l);
    for (int64_t i = 0; i < t->k; i++) {
      if (t->has_values)
        copy_at(&t->values, vb + i * step_of(&t->values, t->dim), &t->input,
                base + p[i].position * step);
      ref_store_at(&t->indices, ib + i * step_of(&t->indices, t->dim),
                   (double)p[i].position);
    }
  }
}

static void run(void *args) {
  sort_task_t *t = args;
  ref_parallel_for(t->input_lines.numel, (1 << 12) / (t->n + 1) + 1, run_range,
                   t);
}

/* values (NULL: argsort's none) and indices: input's shape with k along
 * dim. */
static diopiError_t launch(diopiContextHandle_t ctx, const char *op,
                           sort_task_t *t, diopiConstTensorHandle_t values,
                           const char *indices_name,
                           diopiConstTensorHandle_t indices,
                           diopiConstTensorHandle_t input, int64_t dim,
                           int64_t k) {
  t->has_values = values != NULL;
  diopiError_t err = ref_view(ctx, op, indices_name, indices, &t->indices);
  if (!err)
    err = t->has_values ? ref_view(ctx, op, "values", values, &t->values)
                        : ref_view(ctx, op, indices_name, indices, &t->values);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t->input);
  if (!err)
    err = ref_dim(op, "dim", dim, t->input.ndim, &t->dim);
  if (err)
    return err;
  t->n = t->input.ndim ? t->input.shape[t->dim] : 1;
  if (k < 0 || k > t->n)
    return ref_fail(op, "k: %lld is outside [0, %lld]", (long long)k,
                    (long long)t->n);
  t->k = k;
  int64_t shape[REF_MAX_DIMS];
  memcpy(shape, t->input.shape, sizeof shape);
  if (t->input.ndim)
    shape[t->dim] = k;
  if ((err =
           ref_expect_shape(op, "values", &t->values, shape, t->input.ndim)) ||
      (err = ref_expect_shape(op, indices_name, &t->indices, shape,
                              t->input.ndim)) ||
      (err = ref_expect_no_partial_overlap(op, "input", &t->values, &t->input)))
    return err;
  if (ref_is_floating(t->indices.dtype))
    return ref_fail(op, "%s: expected an integer dtype, got dtype %d",
                    indices_name, (int)t->indices.dtype);
  int line_dim = t->input.ndim ? t->dim : -1;
  t->input_lines = ref_lines_of(&t->input, line_dim);
  t->values_lines = ref_lines_of(&t->values, line_dim);
  t->indices_lines = ref_lines_of(&t->indices, line_dim);
  if (t->input.numel == 0 || k == 0)
    return diopiSuccess;
  err = ref_scratch(ctx, op, (size_t)t->input.numel * sizeof(pair_t),
                    (void **)&t->pairs);
  return err ? err : ref_enqueue(ctx, op, run, t, sizeof *t);
}

/* stable: NULL or either value gives the same (stable) order. */
REF_EXPORT diopiError_t diopiSort(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t values,
                                  diopiTensorHandle_t indices,
                                  diopiConstTensorHandle_t input, int64_t dim,
                                  bool descending, const bool *pStable) {
  (void)pStable;
  sort_task_t t;
  memset(&t, 0, sizeof t);
  t.descending = descending;
  ref_view_t in;
  diopiError_t err = ref_view(ctx, "diopiSort", "input", input, &in);
  if (err)
    return err;
  int d = 0;
  if ((err = ref_dim("diopiSort", "dim", dim, in.ndim, &d)))
    return err;
  return launch(ctx, "diopiSort", &t, values, "indices", indices, input, dim,
                in.ndim ? in.shape[d] : 1);
}

/* The k largest (or smallest) along dim, in order (sorted or not). */
REF_EXPORT diopiError_t diopiTopk(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t values,
                                  diopiTensorHandle_t indices,
                                  diopiConstTensorHandle_t input, int64_t k,
                                  int64_t dim, bool largest, bool sorted) {
  (void)sorted;
  sort_task_t t;
  memset(&t, 0, sizeof t);
  t.descending = largest;
  return launch(ctx, "diopiTopk", &t, values, "indices", indices, input, dim,
                k);
}

/* dim NULL: the last; every sort here is stable. */
REF_EXPORT diopiError_t diopiArgsort(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiConstTensorHandle_t input,
                                     bool stable, const int64_t *dim,
                                     bool descending) {
  const char *op = "diopiArgsort";
  (void)stable;
  sort_task_t t;
  memset(&t, 0, sizeof t);
  t.descending = descending;
  ref_view_t in;
  diopiError_t err = ref_view(ctx, op, "input", input, &in);
  int d = 0;
  if (!err)
    err = ref_dim(op, "dim", dim ? *dim : -1, in.ndim, &d);
  return err ? err
             : launch(ctx, op, &t, NULL, "out", out, input, dim ? *dim : -1,
                      in.ndim ? in.shape[d] : 1);
}
