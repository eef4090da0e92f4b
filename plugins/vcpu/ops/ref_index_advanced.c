/* Advanced indexing: index (out = input[..., i0[b], i1[b], ..., ...] over
 * the broadcast index positions b) and its backward, and index_put (+ in
 * place, accumulate or not: out = input, then out[...] = values or +=). The
 * index tensors cover one run of adjacent dims (NULL entries before or after
 * it keep those dims whole) or, as in PyTorch, dims with whole ones between
 * them, whose broadcast index dims then come first in the iteration (the
 * indexed tensor is viewed with its indexed dims moved to the front),
 * integer (negative counts from the end) or bool
 * masks, each over as many dims as it has. A lone mask over the leading dims
 * gives (takes) values' k-th slice at its k-th true position; any other mask
 * stands for its true positions' coordinates, one integer index per dim
 * (PyTorch's nonzero), which the task writes first. index with a mask sizes
 * its output by the data, and a mask beside other indices needs its count:
 * the op waits for the stream and counts. One serial task, so accumulation is
 * deterministic; an index out of range (device data, read by the task) writes
 * (reads) nothing. */
#include <stdio.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_index_args.h"
#include "ref_scratch.h"
#include "ref_settle.h"
#include "ref_tensor.h"

/* A mask beside other indices: the coordinates of its `count` true
 * positions, (count, mask.ndim) int64 in row-major order, written into
 * scratch by the task. */
typedef struct mask_coords {
  ref_view_t mask;
  int64_t *coords;
  int64_t count;
} mask_coords_t;

/* out: the indexed tensor (index: its input); values: the iteration's
 * values (index: its result). */
typedef struct index_put_task {
  ref_view_t out, input, values;     /* values broadcast to the iteration */
  ref_view_t index[REF_MAX_DIMS];    /* broadcast to b_shape */
  ref_view_t rest;                   /* out over the unindexed dims */
  bool copy, accumulate, mask, read; /* read: index, values = out[...] */
  int first, run; /* the indexed dims: [first, first + run) */
  int64_t b_numel, post_numel;
  mask_coords_t coords[REF_MAX_DIMS]; /* the masks behind index views */
  int masks;
} index_put_task_t;

static void write_coords(const mask_coords_t *m) {
  int nd = m->mask.ndim;
  int64_t k = 0;
  for (int64_t i = 0; i < m->mask.numel && k < m->count; i++) {
    if (ref_get(&m->mask, i) == 0)
      continue;
    int64_t rest = i; /* coordinates, last dim fastest */
    for (int d = nd; d-- > 0;) {
      m->coords[k * nd + d] = rest % m->mask.shape[d];
      rest /= m->mask.shape[d];
    }
    k++;
  }
}

/* Element `offset` of out and element p of values: the one into the
 * other (between integral dtypes exact in int64, accumulating wrapped). */
static void move(const index_put_task_t *t, int64_t offset, int64_t p) {
  char *at = t->out.data + offset * (int64_t)ref_dtype_size(t->out.dtype);
  bool exact =
      ref_is_integral(t->out.dtype) && ref_is_integral(t->values.dtype);
  if (t->read && exact) {
    ref_set_int(&t->values, p, ref_load_int(at, t->out.dtype));
    return;
  }
  if (t->read) {
    ref_set(&t->values, p, ref_load(at, t->out.dtype));
    return;
  }
  if (exact) {
    int64_t v = ref_get_int(&t->values, p);
    ref_store_int(
        at, t->out.dtype,
        t->accumulate
            ? (int64_t)((uint64_t)ref_load_int(at, t->out.dtype) + (uint64_t)v)
            : v);
    return;
  }
  double v = ref_get(&t->values, p);
  ref_store(at, t->out.dtype,
            t->accumulate ? ref_load(at, t->out.dtype) + v : v);
}

/* move over q in [0, n) at out's `offset` + q and values' p + q, both
 * contiguous float32: the same double arithmetic, read directly. */
static void move_f32_row(const index_put_task_t *t, int64_t offset, int64_t p,
                         int64_t n) {
  float *at = (float *)t->out.data + offset;
  float *values = (float *)t->values.data + p;
  for (int64_t q = 0; q < n; q++)
    if (t->read)
      values[q] = at[q];
    else
      at[q] = t->accumulate ? (float)((double)at[q] + (double)values[q])
                            : values[q];
}

static void run(void *args) {
  const index_put_task_t *t = args;
  for (int j = 0; j < t->masks; j++)
    write_coords(&t->coords[j]);
  if (t->copy && t->input.dtype == t->out.dtype && ref_contiguous(&t->out) &&
      ref_contiguous(&t->input))
    memcpy(t->out.data, t->input.data,
           (size_t)t->out.numel * ref_dtype_size(t->out.dtype));
  else if (t->copy)
    for (int64_t i = 0; i < t->out.numel; i++)
      ref_copy_element(&t->out, i, &t->input, i);
  /* rows of post elements are contiguous on both sides */
  bool f32_rows = ref_f32_contiguous(&t->out) && ref_f32_contiguous(&t->values);
  if (t->mask) { /* values: (K or 1) x post */
    int64_t k = 0, kn = t->values.shape[0];
    for (int64_t b = 0; b < t->b_numel; b++) {
      if (ref_get(&t->index[0], b) == 0)
        continue;
      if (kn != 1 && k >= kn)
        break;
      for (int64_t q = 0; q < t->post_numel; q++)
        move(t, ref_offset(&t->out, b * t->post_numel + q),
             (kn == 1 ? 0 : k) * t->post_numel + q);
      k++;
    }
    return;
  }
  int64_t pre_numel = t->rest.numel / t->post_numel;
  for (int64_t pre = 0; pre < pre_numel; pre++)
    for (int64_t b = 0; b < t->b_numel; b++) {
      int64_t offset = 0;
      bool inside = true;
      for (int j = 0; j < t->run && inside; j++) {
        int64_t n = t->out.shape[t->first + j];
        int64_t i = (int64_t)ref_get(&t->index[j], b);
        i += i < 0 ? n : 0;
        inside = i >= 0 && i < n;
        offset += i * t->out.strides[t->first + j];
      }
      if (!inside)
        continue;
      if (f32_rows) {
        move_f32_row(t, offset + ref_offset(&t->rest, pre * t->post_numel),
                     (pre * t->b_numel + b) * t->post_numel, t->post_numel);
        continue;
      }
      for (int64_t q = 0; q < t->post_numel; q++) {
        int64_t p = (pre * t->b_numel + b) * t->post_numel + q;
        move(t, offset + ref_offset(&t->rest, pre * t->post_numel + q), p);
      }
    }
}

/* The broadcast shape of the index tensors into b/nb. */
static diopiError_t index_shape(const char *op, const ref_view_t *index, int n,
                                int64_t *b, int *nb) {
  *nb = 0;
  for (int j = 0; j < n; j++)
    *nb = index[j].ndim > *nb ? index[j].ndim : *nb;
  for (int d = 0; d < *nb; d++)
    b[d] = 1;
  for (int j = 0; j < n; j++)
    for (int d = 0; d < index[j].ndim; d++) {
      int64_t m = index[j].shape[d], *s = &b[*nb - index[j].ndim + d];
      if (m != *s && m != 1 && *s != 1)
        return ref_fail(op,
                        "indices: index %d does not broadcast with the "
                        "others",
                        j);
      *s = m != 1 ? m : *s;
    }
  return diopiSuccess;
}

/* A mask beside other indices (the stream settled): its true positions
 * counted, and index views over the coordinates the task will write, one
 * per dim the mask covers, appended to t->index. */
static diopiError_t expand_mask(diopiContextHandle_t ctx, const char *op,
                                index_put_task_t *t, const char *arg,
                                const ref_view_t *mask) {
  if (mask->ndim == 0)
    return ref_fail(op, "%s: a 0-dim mask beside other indices", arg);
  mask_coords_t *m = &t->coords[t->masks++];
  m->mask = *mask;
  m->count = 0;
  for (int64_t i = 0; i < mask->numel; i++)
    m->count += ref_get(mask, i) != 0;
  diopiError_t err =
      ref_scratch(ctx, op, (size_t)(m->count * mask->ndim) * sizeof(int64_t),
                  (void **)&m->coords);
  for (int d = 0; !err && d < mask->ndim; d++) {
    ref_view_t *v = &t->index[t->run++];
    memset(v, 0, sizeof *v);
    v->data = (char *)(m->coords + d);
    v->dtype = diopi_dtype_int64;
    v->ndim = 1;
    v->numel = v->shape[0] = m->count;
    v->strides[0] = mask->ndim;
  }
  return err;
}

/* Moves the dims `indexed[0, n)` (in order) of v to the front, the others
 * following in order. */
static void move_to_front(ref_view_t *v, const int *indexed, int n) {
  ref_view_t moved = *v;
  bool taken[REF_MAX_DIMS] = {false};
  int d = 0;
  for (int j = 0; j < n; j++, d++) {
    moved.shape[d] = v->shape[indexed[j]];
    moved.strides[d] = v->strides[indexed[j]];
    taken[indexed[j]] = true;
  }
  for (int k = 0; k < v->ndim; k++)
    if (!taken[k]) {
      moved.shape[d] = v->shape[k];
      moved.strides[d++] = v->strides[k];
    }
  *v = moved;
}

/* Views indices[0, count) into t (out, and input when copied, must be
 * viewed). Each non-NULL entry indexes the next dims (a NULL one keeps one
 * dim whole): an integer tensor one dim, a bool (or uint8) mask as many as
 * it has, each of the input's size there. Adjacent entries index one run of
 * dims from t->first; entries with a whole dim between them have their dims
 * moved to the front of out (and input), so t->first is 0 and the broadcast
 * index dims lead the iteration, as PyTorch orders them. A lone mask over
 * the leading dims stays a mask (t->mask); other masks are expanded into
 * coordinates, after waiting for the stream. */
static diopiError_t parse_indices(diopiContextHandle_t ctx, const char *op,
                                  index_put_task_t *t,
                                  const diopiConstTensorHandle_t *indices,
                                  int64_t count) {
  if (count < 1 || count > t->out.ndim || !indices)
    return ref_fail(op, "indices: %lld given for %d dims", (long long)count,
                    t->out.ndim);
  ref_view_t given[REF_MAX_DIMS];
  bool mask[REF_MAX_DIMS];
  char names[REF_MAX_DIMS][32];
  int n = 0, dim = 0, masks = 0, indexed[REF_MAX_DIMS], nindexed = 0;
  bool gap = false;
  t->first = -1;
  for (int64_t j = 0; j < count; j++) {
    if (!indices[j]) {
      dim++;
      continue;
    }
    gap = gap || (n && !indices[j - 1]);
    if (t->first < 0)
      t->first = dim;
    snprintf(names[n], sizeof names[n], "indices[%lld]", (long long)j);
    diopiError_t err = ref_view(ctx, op, names[n], indices[j], &given[n]);
    if (err)
      return err;
    mask[n] = given[n].dtype == diopi_dtype_bool ||
              given[n].dtype == diopi_dtype_uint8;
    if (!mask[n] && (err = ref_expect_index(op, names[n], &given[n])))
      return err;
    int dims = mask[n] ? given[n].ndim : 1;
    if (dim + dims > t->out.ndim)
      return ref_fail(op, "%s: indexes past input's %d dims", names[n],
                      t->out.ndim);
    if (mask[n] && (err = ref_expect_shape(op, names[n], &given[n],
                                           t->out.shape + dim, dims)))
      return err;
    masks += mask[n];
    for (int k = 0; k < dims; k++)
      indexed[nindexed++] = dim++;
    n++;
  }
  if (t->first < 0)
    return ref_fail(op, "indices: all %lld are NULL", (long long)count);
  if (gap) {
    move_to_front(&t->out, indexed, nindexed);
    if (t->copy)
      move_to_front(&t->input, indexed, nindexed);
    t->first = 0;
  }
  if (n == 1 && masks == 1 && t->first == 0) { /* a lone leading mask */
    t->mask = true;
    t->index[0] = given[0];
    t->run = 1;
    return diopiSuccess;
  }
  diopiError_t err = masks ? ref_settle(ctx, op) : diopiSuccess;
  for (int g = 0; !err && g < n; g++)
    if (mask[g])
      err = expand_mask(ctx, op, t, names[g], &given[g]);
    else
      t->index[t->run++] = given[g];
  return err;
}

/* The iteration shape (before ++ b ++ after) into iter/n, with b the
 * indices' broadcast shape, or [slices] for a mask; fills the task's
 * b_numel, post_numel, rest and broadcast index views. */
static diopiError_t iteration(const char *op, index_put_task_t *t,
                              int64_t slices, int64_t *iter, int *n) {
  int nd = t->out.ndim, nb = 0, ni = t->mask ? t->index[0].ndim : t->run;
  int64_t b[REF_MAX_DIMS];
  diopiError_t err = diopiSuccess;
  if (t->mask) {
    b[0] = slices;
    nb = 1;
  } else if ((err = index_shape(op, t->index, t->run, b, &nb))) {
    return err;
  }
  if (t->first + ni > nd || t->first + nb + (nd - t->first - ni) > REF_MAX_DIMS)
    return ref_fail(op, "indices: too many dims for input's %d", nd);
  *n = 0;
  for (int d = 0; d < t->first; d++)
    iter[(*n)++] = t->out.shape[d];
  for (int d = 0; d < nb; d++)
    iter[(*n)++] = b[d];
  t->post_numel = 1;
  for (int d = t->first + ni; d < nd; d++) {
    iter[(*n)++] = t->out.shape[d];
    t->post_numel *= t->out.shape[d];
  }
  t->b_numel = 1;
  if (t->mask) {
    t->b_numel = t->index[0].numel;
  } else {
    for (int d = 0; d < nb; d++)
      t->b_numel *= b[d];
    for (int j = 0; j < t->run && !err; j++)
      err = ref_broadcast_to(op, "indices", &t->index[j], b, nb);
  }
  t->rest = t->out; /* the unindexed dims */
  t->rest.ndim = 0;
  t->rest.numel = 1;
  for (int d = 0; d < nd; d++)
    if (d < t->first || d >= t->first + ni) {
      t->rest.shape[t->rest.ndim] = t->out.shape[d];
      t->rest.strides[t->rest.ndim++] = t->out.strides[d];
      t->rest.numel *= t->out.shape[d];
    }
  return err;
}

static diopiError_t index_put(diopiContextHandle_t ctx, const char *op,
                              diopiConstTensorHandle_t out,
                              diopiConstTensorHandle_t input,
                              diopiConstTensorHandle_t values,
                              const diopiConstTensorHandle_t *indices,
                              int64_t count, bool accumulate) {
  index_put_task_t t;
  memset(&t, 0, sizeof t);
  t.copy = out != input;
  t.accumulate = accumulate;
  diopiError_t err = ref_view(ctx, op, "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_expect_shape(op, "out", &t.out, t.input.shape, t.input.ndim);
  if (!err)
    err = ref_view(ctx, op, "values", values, &t.values);
  if (!err)
    err = parse_indices(ctx, op, &t, indices, count);
  if (err)
    return err;
  /* A mask's k-th true position takes values' k-th slice (or its only
   * one). */
  int after = t.out.ndim - (t.mask ? t.index[0].ndim : t.run) - t.first;
  int64_t slices = t.mask && t.values.ndim > after
                       ? t.values.shape[t.values.ndim - after - 1]
                       : 1;
  int64_t iter[2 * REF_MAX_DIMS];
  int n = 0;
  if ((err = iteration(op, &t, slices, iter, &n)) ||
      (err = ref_broadcast_to(op, "values", &t.values, iter, n)) ||
      (err = ref_expect_no_partial_overlap(op, "values", &t.out, &t.values)))
    return err;
  if (t.out.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiIndexPut(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t out,
                                      diopiConstTensorHandle_t input,
                                      diopiConstTensorHandle_t values,
                                      diopiConstTensorHandle_t *indices,
                                      int64_t indices_counts, bool accumulate) {
  return index_put(ctx, "diopiIndexPut", out, input, values, indices,
                   indices_counts, accumulate);
}
REF_EXPORT diopiError_t diopiIndexPutInp(diopiContextHandle_t ctx,
                                         diopiTensorHandle_t input,
                                         diopiConstTensorHandle_t values,
                                         diopiConstTensorHandle_t *indices,
                                         int64_t indices_counts,
                                         bool accumulate) {
  return index_put(ctx, "diopiIndexPutInp", input, input, values, indices,
                   indices_counts, accumulate);
}

/* out (required from the context) = input[indices]. A mask's true count
 * needs the data: the op waits for the stream first. */
REF_EXPORT diopiError_t diopiIndex(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t *out,
                                   diopiConstTensorHandle_t input,
                                   diopiConstTensorHandle_t *indices,
                                   int64_t nums) {
  const char *op = "diopiIndex";
  index_put_task_t t;
  memset(&t, 0, sizeof t);
  t.read = true;
  if (!out)
    return ref_fail(op, "out: NULL");
  diopiError_t err = ref_view(ctx, op, "input", input, &t.out);
  if (!err)
    err = parse_indices(ctx, op, &t, indices, nums);
  if (err)
    return err;
  int64_t slices = 1;
  if (t.mask) {
    if ((err = ref_settle(ctx, op)))
      return err;
    slices = 0;
    for (int64_t i = 0; i < t.index[0].numel; i++)
      slices += ref_get(&t.index[0], i) != 0;
  }
  int64_t iter[2 * REF_MAX_DIMS];
  int n = 0;
  if ((err = iteration(op, &t, slices, iter, &n)))
    return err;
  if (n > REF_MAX_DIMS)
    return ref_fail(op, "indices: the result would have %d dims", n);
  diopiTensorHandle_t result;
  diopiDevice_t device;
  diopiSize_t size = {iter, n};
  if (diopiGetTensorDevice(input, &device) ||
      diopiRequireTensor(ctx, &result, &size, NULL, t.out.dtype, device))
    return ref_fail(op, "out: the context cannot allocate the result");
  if ((err = ref_view(ctx, op, "out", result, &t.values)))
    return err;
  *out = result;
  if (t.values.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

/* grad_input = zeros_like_input with grad_output added at indices. */
REF_EXPORT diopiError_t diopiIndexBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiTensorHandle_t zeros_like_input, diopiConstTensorHandle_t *indices,
    int64_t nums, diopiConstTensorHandle_t grad_output) {
  return index_put(ctx, "diopiIndexBackward", grad_input, zeros_like_input,
                   grad_output, indices, nums, true);
}
