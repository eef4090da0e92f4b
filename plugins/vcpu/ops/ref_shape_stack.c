/* stack (each input copied into its slice of out along a new dim), split
 * (each slice of input along a dim copied into its out), expand (input
 * broadcast into out) and meshgrid (input i broadcast along dim i of
 * every out): strided copies. A stack of contiguous tensors into a
 * contiguous out of their dtype is one task of block copies, as is a split
 * of a contiguous input into contiguous outs of its dtype. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_elementwise.h"
#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"

/* out as blocks of `block` elements: block q is block (q / count) * step
 * of input q % count (stack: step 1; a broadcast: one input, step 0). */
typedef struct block_copies {
  char *out;
  int64_t count, block, step, total; /* total: out's elements */
  size_t elem;
  const char *ins[]; /* count data pointers */
} block_copies_t;

/* out's elements [begin, end), block by block. */
static void copy_blocks(void *context, int64_t begin, int64_t end) {
  const block_copies_t *s = context;
  while (begin < end) {
    int64_t q = begin / s->block, at = begin % s->block;
    int64_t n = s->block - at < end - begin ? s->block - at : end - begin;
    const char *from =
        s->ins[q % s->count] +
        (q / s->count * s->step * s->block + at) * (int64_t)s->elem;
    memcpy(s->out + begin * (int64_t)s->elem, from, (size_t)n * s->elem);
    begin += n;
  }
}

static void run_blocks(void *args) {
  block_copies_t *s = args;
  ref_parallel_for(s->total, 1 << 15, copy_blocks, s);
}

/* Enqueues the block copies `shape` describes from the views of `ins`
 * (checked already). The task's argument block carries the input pointers
 * itself: scratch is not host-writable at enqueue time (ref_scratch.h). */
static diopiError_t enqueue_blocks(diopiContextHandle_t ctx, const char *op,
                                   const block_copies_t *shape,
                                   diopiConstTensorHandle_t *ins) {
  size_t size = sizeof *shape + (size_t)shape->count * sizeof *shape->ins;
  block_copies_t *s = malloc(size);
  if (!s)
    return ref_fail(op, "out of host memory for %lld input pointers",
                    (long long)shape->count);
  *s = *shape;
  diopiError_t err = diopiSuccess;
  for (int64_t k = 0; !err && k < s->count; k++) {
    ref_view_t v;
    err = ref_view(ctx, op, "tensors", ins[k], &v);
    s->ins[k] = v.data;
  }
  if (!err)
    err = ref_enqueue(ctx, op, run_blocks, s, size);
  free(s);
  return err;
}

/* Whether stack's inputs and out all hold contiguous elements of one
 * dtype. */
static bool plain_blocks(diopiContextHandle_t ctx, const char *op,
                         const ref_view_t *out, diopiConstTensorHandle_t *ins,
                         int64_t count) {
  if (!ref_contiguous(out))
    return false;
  for (int64_t k = 0; k < count; k++) {
    ref_view_t v;
    if (ref_view(ctx, op, "tensors", ins[k], &v) || v.dtype != out->dtype ||
        !ref_contiguous(&v))
      return false;
  }
  return true;
}

REF_EXPORT diopiError_t diopiStack(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out,
                                   diopiConstTensorHandle_t *tensors,
                                   int64_t numTensors, int64_t dim) {
  const char *op = "diopiStack";
  ref_view_t o, first;
  if (!tensors || numTensors < 1)
    return ref_fail(op, "tensors: expected at least one tensor, got %lld",
                    (long long)numTensors);
  diopiError_t err = ref_view(ctx, op, "out", out, &o);
  if (!err)
    err = ref_view(ctx, op, "tensors[0]", tensors[0], &first);
  int d = 0;
  if (!err)
    err = ref_dim(op, "dim", dim, first.ndim + 1, &d);
  if (!err && first.ndim + 1 > REF_MAX_DIMS)
    err = ref_fail(op, "tensors[0]: %d dims, at most %d", first.ndim,
                   REF_MAX_DIMS - 1);
  if (err)
    return err;
  int64_t shape[REF_MAX_DIMS];
  for (int i = 0, j = 0; i <= first.ndim; i++)
    shape[i] = i == d ? numTensors : first.shape[j++];
  if ((err = ref_expect_shape(op, "out", &o, shape, first.ndim + 1)))
    return err;
  /* out's slice k: dim d dropped, data moved k strides along it. */
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 1;
  ew.fn = ref_copy_fn;
  ew.f32 = ref_copy_f32;
  ew.out = o;
  ew.out.ndim = first.ndim;
  ew.out.numel = first.numel;
  for (int i = 0, j = 0; i <= first.ndim; i++)
    if (i != d) {
      ew.out.shape[j] = o.shape[i];
      ew.out.strides[j++] = o.strides[i];
    }
  char name[32];
  for (int64_t k = 0; k < numTensors; k++) {
    snprintf(name, sizeof name, "tensors[%lld]", (long long)k);
    if ((err = ref_view(ctx, op, name, tensors[k], &ew.in[0])) ||
        (err =
             ref_expect_shape(op, name, &ew.in[0], first.shape, first.ndim)) ||
        (err = ref_expect_no_partial_overlap(op, name, &o, &ew.in[0])))
      return err;
  }
  if (o.numel == 0)
    return diopiSuccess;
  if (plain_blocks(ctx, op, &o, tensors, numTensors)) {
    block_copies_t s = {.out = o.data,
                        .count = numTensors,
                        .block = 1,
                        .step = 1,
                        .total = o.numel,
                        .elem = ref_dtype_size(o.dtype)};
    for (int i = d + 1; i < o.ndim; i++)
      s.block *= o.shape[i];
    return enqueue_blocks(ctx, op, &s, tensors);
  }
  for (int64_t k = 0; k < numTensors; k++) {
    ref_view(ctx, op, "tensors", tensors[k], &ew.in[0]);
    if ((err = ref_ew_enqueue(ctx, op, &ew)))
      return err;
    ew.out.data += o.strides[d] * (int64_t)ref_dtype_size(o.dtype);
  }
  return diopiSuccess;
}

/* Whether out (contiguous) repeats all of input (contiguous, out's dtype,
 * out's trailing dims once its leading 1s are dropped) along out's leading
 * dims. */
static bool repeats_whole_input(const ref_view_t *out, const ref_view_t *in) {
  if (in->dtype != out->dtype || in->ndim > out->ndim || !ref_contiguous(out) ||
      !ref_contiguous(in))
    return false;
  int lead = 0;
  while (lead < in->ndim && in->shape[lead] == 1)
    lead++;
  for (int i = lead; i < in->ndim; i++)
    if (in->shape[i] != out->shape[out->ndim - in->ndim + i])
      return false;
  return true;
}

REF_EXPORT diopiError_t diopiExpand(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    diopiConstTensorHandle_t input) {
  const char *op = "diopiExpand";
  ref_view_t o, in;
  if (!ref_view(ctx, op, "out", out, &o) &&
      !ref_view(ctx, op, "input", input, &in) && repeats_whole_input(&o, &in) &&
      !ref_expect_no_partial_overlap(op, "input", &o, &in) &&
      o.data != in.data) {
    if (o.numel == 0)
      return diopiSuccess;
    block_copies_t s = {.out = o.data,
                        .count = 1,
                        .block = in.numel,
                        .step = 0,
                        .total = o.numel,
                        .elem = ref_dtype_size(o.dtype)};
    return enqueue_blocks(ctx, op, &s, &input);
  }
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 1;
  ew.fn = ref_copy_fn;
  ew.f32 = ref_copy_f32;
  static const char *const names[1] = {"input"};
  return ref_ew_launch(ctx, op, &ew, out, &input, names);
}

/* A split of a contiguous input into contiguous outs of its dtype: input
 * is `outer` rows of `row` elements, and out k takes run[k] elements of each
 * row, from column offset[k] (the runs side by side, in order, filling a
 * row). */
typedef struct split_copies {
  const char *in;
  int64_t outer, row, count;
  size_t elem;
  struct split_out {
    char *data;
    int64_t run, offset;
  } outs[]; /* count */
} split_copies_t;

/* Input elements [begin, end), in input order: each piece of a row that one
 * out takes is one copy. */
static void copy_split(void *context, int64_t begin, int64_t end) {
  const split_copies_t *s = context;
  int64_t k = 0;
  while (begin < end) {
    int64_t r = begin / s->row, c = begin % s->row;
    while (c >= s->outs[k].offset + s->outs[k].run ||
           c < s->outs[k].offset) /* the out whose run holds column c */
      k = (k + 1) % s->count;
    const struct split_out *o = &s->outs[k];
    int64_t at = c - o->offset;
    int64_t n = o->run - at < end - begin ? o->run - at : end - begin;
    char *to = o->data + (r * o->run + at) * (int64_t)s->elem;
    const char *from = s->in + begin * (int64_t)s->elem;
    if (to != from) /* an out that is its own slice of input: in place */
      memcpy(to, from, (size_t)n * s->elem);
    begin += n;
  }
}

static void run_split(void *args) {
  split_copies_t *s = args;
  ref_parallel_for(s->outer * s->row, 1 << 15, copy_split, s);
}

/* Enqueues the split of `in` along dim d into outs (checked already) as
 * one task, if in and every out are contiguous of in's dtype and in is not
 * empty; false if not (the caller copies each out), true with *err set
 * otherwise. The task's argument block carries the outs' pointers itself
 * (scratch is not host-writable at enqueue time, ref_scratch.h). */
static bool enqueue_split(diopiContextHandle_t ctx, const char *op,
                          const ref_view_t *in, int d,
                          diopiTensorHandle_t *outs, const diopiSize_t sizes,
                          diopiError_t *err) {
  if (!ref_contiguous(in))
    return false;
  size_t size =
      sizeof(split_copies_t) + (size_t)sizes.len * sizeof(struct split_out);
  split_copies_t *s = malloc(size);
  if (!s) {
    *err = ref_fail(op, "out of host memory for %lld output pointers",
                    (long long)sizes.len);
    return true;
  }
  *s = (split_copies_t){.in = in->data,
                        .outer = 1,
                        .row = in->numel,
                        .count = sizes.len,
                        .elem = ref_dtype_size(in->dtype)};
  for (int i = 0; i < d; i++)
    s->outer *= in->shape[i];
  s->row = s->outer ? in->numel / s->outer : 0;
  int64_t inner = in->shape[d] ? s->row / in->shape[d] : 0, offset = 0;
  bool plain = s->row > 0;
  for (int64_t k = 0; plain && k < sizes.len; k++) {
    ref_view_t o;
    ref_view(ctx, op, "outs", outs[k], &o);
    s->outs[k] = (struct split_out){
        .data = o.data, .run = sizes.data[k] * inner, .offset = offset};
    offset += s->outs[k].run;
    plain = o.dtype == in->dtype && (o.numel == 0 || ref_contiguous(&o));
  }
  if (plain)
    *err = ref_enqueue(ctx, op, run_split, s, size);
  free(s);
  return plain;
}

/* outs[k] receives input's slice [sum(sizes[0, k)), + sizes[k]) along dim;
 * the sizes must add up to input's length there. */
REF_EXPORT diopiError_t diopiSplitWithSizes(
    diopiContextHandle_t ctx, diopiTensorHandle_t *outs, int64_t num_outs,
    diopiConstTensorHandle_t input, const diopiSize_t splitSizes, int64_t dim) {
  const char *op = "diopiSplitWithSizes";
  ref_view_t in;
  int d = 0;
  diopiError_t err = ref_view(ctx, op, "input", input, &in);
  if (!err && in.ndim == 0)
    err = ref_fail(op, "input: cannot split a 0-dim tensor");
  if (!err)
    err = ref_dim(op, "dim", dim, in.ndim, &d);
  if (!err && (!outs || num_outs != splitSizes.len))
    err = ref_fail(op, "outs: expected %lld tensors (one per size), got %lld",
                   (long long)splitSizes.len, (long long)num_outs);
  int64_t total = 0;
  for (int64_t k = 0; !err && k < splitSizes.len; k++) {
    if (splitSizes.data[k] < 0)
      err = ref_fail(op, "splitSizes: entry %lld is negative", (long long)k);
    total += splitSizes.data[k];
  }
  if (!err && total != in.shape[d])
    err = ref_fail(op,
                   "splitSizes: add up to %lld, input has %lld along dim "
                   "%d",
                   (long long)total, (long long)in.shape[d], d);
  if (err)
    return err;
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 1;
  ew.fn = ref_copy_fn;
  ew.f32 = ref_copy_f32;
  char name[32];
  for (int pass = 0; pass < 2; pass++) { /* check all, then enqueue all */
    if (pass == 1 && enqueue_split(ctx, op, &in, d, outs, splitSizes, &err))
      return err;
    ew.in[0] = in;
    for (int64_t k = 0; k < num_outs; k++) {
      ew.in[0].shape[d] = splitSizes.data[k];
      ew.in[0].numel = 1;
      for (int i = 0; i < in.ndim; i++)
        ew.in[0].numel *= ew.in[0].shape[i];
      snprintf(name, sizeof name, "outs[%lld]", (long long)k);
      if ((err = ref_view(ctx, op, name, outs[k], &ew.out)))
        return err;
      if (pass == 0 &&
          ((err =
                ref_expect_shape(op, name, &ew.out, ew.in[0].shape, in.ndim)) ||
           (err = ref_expect_no_partial_overlap(op, name, &ew.out, &in))))
        return err;
      if (pass == 1 && (err = ref_ew_enqueue(ctx, op, &ew)))
        return err;
      ew.in[0].data += splitSizes.data[k] * in.strides[d] *
                       (int64_t)ref_dtype_size(in.dtype);
    }
  }
  return diopiSuccess;
}

/* outs[i] (len0 x ... x len(n-1)) = inputs[i] (1-dim) along dim i. */
REF_EXPORT diopiError_t diopiMeshGrid(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t *outs,
                                      diopiConstTensorHandle_t *inputs,
                                      int64_t inputsNum) {
  const char *op = "diopiMeshGrid";
  if (inputsNum < 1 || inputsNum > REF_MAX_DIMS || !outs || !inputs)
    return ref_fail(op, "inputs: expected 1 to %d tensors, got %lld",
                    REF_MAX_DIMS, (long long)inputsNum);
  int n = (int)inputsNum;
  ref_view_t in[REF_MAX_DIMS];
  int64_t shape[REF_MAX_DIMS];
  char name[32];
  diopiError_t err = diopiSuccess;
  for (int i = 0; i < n && !err; i++) {
    snprintf(name, sizeof name, "inputs[%d]", i);
    err = ref_view(ctx, op, name, inputs[i], &in[i]);
    if (!err && in[i].ndim > 1)
      err = ref_fail(op, "%s: expected 0 or 1 dims, got %d", name, in[i].ndim);
    shape[i] = in[i].numel;
  }
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 1;
  ew.fn = ref_copy_fn;
  ew.f32 = ref_copy_f32;
  for (int pass = 0; pass < 2 && !err; pass++) /* check all, enqueue all */
    for (int i = 0; i < n && !err; i++) {
      snprintf(name, sizeof name, "outs[%d]", i);
      err = ref_view(ctx, op, name, outs[i], &ew.out);
      if (!err && pass == 0)
        err = ref_expect_shape(op, name, &ew.out, shape, n);
      if (!err && pass == 0)
        err = ref_expect_no_partial_overlap(op, name, &ew.out, &in[i]);
      ew.in[0] = in[i]; /* stride along dim i only */
      ew.in[0].ndim = n;
      ew.in[0].numel = ew.out.numel;
      for (int d = 0; d < n; d++) {
        ew.in[0].shape[d] = shape[d];
        ew.in[0].strides[d] = d == i && in[i].ndim ? in[i].strides[0] : 0;
      }
      if (!err && pass == 1)
        err = ref_ew_enqueue(ctx, op, &ew);
    }
  return err;
}
