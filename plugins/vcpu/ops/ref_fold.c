/* The reduction engine's checks and task. */
#include "ref_fold.h"

#include <string.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_view_more.h"

/* The task: per input, a view of the kept dims (indexed by output position)
 * and one of the reduced dims (indexed by r), both with the input's
 * strides. */
typedef struct fold_task {
  ref_fold_t f;
  ref_view_t kept[REF_EW_MAX_IN], folded[REF_EW_MAX_IN];
  int64_t count;
  bool run_f32; /* f.f32_run takes each output's unit-stride run */
  /* With run_f32: output o's run starts at in[0] + o * run_stride when the
   * kept dims collapse to one (by_stride; else ref_offset); out_f32: out is
   * contiguous float32, written directly. */
  int64_t run_stride;
  bool by_stride, out_f32;
  bool run_nonzero; /* f.nonzero_run likewise */
  bool run_int;     /* f.int_step folds each output */
  /* A few long runs: each cut into `slices` parts, run in parallel into
   * parts[output * slices + slice], then merged in order. */
  int64_t slices;
  double parts[64];
} fold_task_t;

static void split(const ref_view_t *v, const bool *reduced, ref_view_t *kept,
                  ref_view_t *folded) {
  *kept = *folded = *v;
  kept->ndim = folded->ndim = 0;
  kept->numel = folded->numel = 1;
  for (int d = 0; d < v->ndim; d++) {
    ref_view_t *to = reduced[d] ? folded : kept;
    to->shape[to->ndim] = v->shape[d];
    to->strides[to->ndim++] = v->strides[d];
    to->numel *= v->shape[d];
  }
}

/* Whether the reduced elements of every output are one unit-stride run. */
static bool unit_run(const ref_view_t *folded) {
  int64_t expected = 1;
  for (int d = folded->ndim; d-- > 0;) {
    if (folded->shape[d] != 1 && folded->strides[d] != expected)
      return false;
    expected *= folded->shape[d];
  }
  return true;
}

/* Whether v's dims collapse to one: every element of v, in order, one
 * *stride apart (0 for a single element). */
static bool single_stride(const ref_view_t *v, int64_t *stride) {
  bool found = false;
  int64_t expected = 0;
  *stride = 0;
  for (int d = v->ndim; d-- > 0;) {
    if (v->shape[d] == 1)
      continue;
    if (!found)
      *stride = v->strides[d];
    else if (v->strides[d] != expected)
      return false;
    found = true;
    expected = v->strides[d] * v->shape[d];
  }
  return true;
}

/* The nonzero bytes of x[0, n). */
static int64_t count_nonzero(const uint8_t *x, int64_t n) {
  int64_t count = 0;
#pragma omp simd reduction(+ : count)
  for (int64_t k = 0; k < n; k++)
    count += x[k] != 0;
  return count;
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const fold_task_t *t = context;
  const ref_fold_t *f = &t->f;
  if (t->run_nonzero) {
    for (int64_t o = begin; o < end; o++) {
      const uint8_t *x =
          (const uint8_t *)f->in[0].data + ref_offset(&t->kept[0], o);
      ref_set(&f->out, o, f->nonzero_run(count_nonzero(x, t->count), t->count));
    }
    return;
  }
  if (t->run_f32) {
    const float *in = (const float *)f->in[0].data;
    for (int64_t o = begin; o < end; o++) {
      const float *x =
          in + (t->by_stride ? o * t->run_stride : ref_offset(&t->kept[0], o));
      int64_t index = 0;
      double v =
          f->f32_run(x, t->count, f->has_indices ? &index : NULL, f->params);
      if (t->out_f32)
        ((float *)f->out.data)[o] = (float)v;
      else
        ref_set(&f->out, o, v);
      if (f->has_indices)
        ref_set(&f->indices, o, (double)index);
    }
    return;
  }
  if (t->run_int) {
    for (int64_t o = begin; o < end; o++) {
      int64_t base = ref_offset(&t->kept[0], o);
      size_t elem = ref_dtype_size(f->in[0].dtype);
      ref_fold_state_t s = {.ia = f->int_init};
      for (int64_t r = 0; r < t->count; r++) {
        int64_t at = base + ref_offset(&t->folded[0], r);
        f->int_step(
            &s,
            ref_load_int(f->in[0].data + at * (int64_t)elem, f->in[0].dtype), r,
            f->params);
      }
      ref_set_int(&f->out, o, f->int_finish(&s));
      if (f->has_indices)
        ref_set_int(&f->indices, o, s.index);
    }
    return;
  }
  int64_t base[REF_EW_MAX_IN];
  double values[REF_EW_MAX_IN];
  for (int64_t o = begin; o < end; o++) {
    for (int k = 0; k < f->nin; k++)
      base[k] = ref_offset(&t->kept[k], o);
    ref_fold_state_t s = {.a = f->init};
    for (int64_t r = 0; r < t->count; r++) {
      for (int k = 0; k < f->nin; k++)
        values[k] =
            ref_load_at(&f->in[k], base[k] + ref_offset(&t->folded[k], r));
      double v = f->map ? f->map(values, f->params) : values[0];
      f->step(&s, v, r, f->params);
    }
    ref_set(&f->out, o, f->finish(&s, t->count, f->params));
    if (f->has_indices)
      ref_set(&f->indices, o, (double)s.index);
  }
}

static void run_parts(void *context, int64_t begin, int64_t end) {
  fold_task_t *t = context;
  const ref_fold_t *f = &t->f;
  for (int64_t item = begin; item < end; item++) {
    int64_t o = item / t->slices, s = item % t->slices;
    int64_t lo = t->count * s / t->slices, hi = t->count * (s + 1) / t->slices;
    const float *x =
        (const float *)f->in[0].data + ref_offset(&t->kept[0], o) + lo;
    t->parts[item] = f->f32_run(x, hi - lo, NULL, f->params);
  }
}

static void run(void *args) {
  fold_task_t *t = args;
  if (t->slices > 1) {
    ref_parallel_for(t->f.out.numel * t->slices, 1, run_parts, t);
    for (int64_t o = 0; o < t->f.out.numel; o++) {
      double v = t->parts[o * t->slices];
      for (int64_t s = 1; s < t->slices; s++)
        v = t->f.f32_merge(v, t->parts[o * t->slices + s], t->f.params);
      ref_set(&t->f.out, o, v);
    }
    return;
  }
  int64_t grain = (1 << 15) / (t->count ? t->count : 1) + 1;
  ref_parallel_for(t->f.out.numel, grain, run_range, t);
}

void ref_fold_welford_step(ref_fold_state_t *s, double v, int64_t r,
                           const double *params) {
  (void)r;
  (void)params;
  s->n++;
  double delta = v - s->a;
  s->a += delta / (double)s->n;
  s->b += delta * (v - s->a);
}

diopiError_t ref_fold_dims(const char *op, const char *arg, ref_fold_t *f,
                           const int64_t *dims, int64_t n) {
  int ndim = f->in[0].ndim;
  if (n > REF_MAX_DIMS)
    return ref_fail(op, "%s: %lld dims given, at most %d", arg, (long long)n,
                    REF_MAX_DIMS);
  memset(f->reduced, 0, sizeof f->reduced);
  if (!dims || n == 0) {
    for (int d = 0; d < ndim; d++)
      f->reduced[d] = true;
    return diopiSuccess;
  }
  for (int64_t k = 0; k < n; k++) {
    int d;
    diopiError_t err = ref_dim(op, arg, dims[k], ndim, &d);
    if (err)
      return err;
    if (ndim)
      f->reduced[d] = true;
  }
  return diopiSuccess;
}

diopiError_t ref_fold_launch(diopiContextHandle_t ctx, const char *op,
                             ref_fold_t *f) {
  static const char *const names[REF_EW_MAX_IN] = {"input", "target", "weight"};
  const ref_view_t *in = &f->in[0];
  diopiError_t err = diopiSuccess;
  for (int k = 1; !err && k < f->nin; k++)
    err = ref_expect_shape(op, names[k], &f->in[k], in->shape, in->ndim);
  int64_t kept[REF_MAX_DIMS], dropped[REF_MAX_DIMS], count = 1;
  int ndropped = 0;
  for (int d = 0; d < in->ndim; d++) {
    kept[d] = f->reduced[d] ? 1 : in->shape[d];
    if (f->reduced[d])
      count *= in->shape[d];
    else
      dropped[ndropped++] = in->shape[d];
  }
  bool keepdim = f->out.ndim == in->ndim && in->ndim > 0;
  if (!err)
    err = keepdim ? ref_expect_shape(op, "out", &f->out, kept, in->ndim)
                  : ref_expect_shape(op, "out", &f->out, dropped, ndropped);
  if (!err && f->has_indices)
    err =
        ref_expect_shape(op, "indices", &f->indices, f->out.shape, f->out.ndim);
  if (!err && f->nonempty && count == 0 && f->out.numel)
    err = ref_fail(op, "input: cannot reduce an empty dim");
  if (err || f->out.numel == 0)
    return err;
  fold_task_t t;
  memset(&t, 0, sizeof t);
  t.f = *f;
  t.count = count;
  for (int k = 0; k < f->nin; k++)
    split(&f->in[k], f->reduced, &t.kept[k], &t.folded[k]);
  bool one_run = f->nin == 1 && !f->map && count > 0 && unit_run(&t.folded[0]);
  t.run_f32 = f->f32_run && one_run && f->in[0].dtype == diopi_dtype_float32;
  t.by_stride = single_stride(&t.kept[0], &t.run_stride);
  t.out_f32 = ref_f32_contiguous(&f->out);
  t.run_nonzero = f->nonzero_run && one_run && !f->has_indices &&
                  (f->in[0].dtype == diopi_dtype_bool ||
                   f->in[0].dtype == diopi_dtype_uint8);
  t.run_int = f->int_step && f->nin == 1 && !f->map &&
              ref_is_integral(f->in[0].dtype) && ref_is_integral(f->out.dtype);
  /* Fewer outputs than threads, each long enough to share (2^15 elements a
   * part at least). */
  int64_t threads = ref_pool_threads();
  if (t.run_f32 && f->f32_merge && !f->has_indices && f->out.numel < threads) {
    t.slices = threads;
    while (t.slices > 1 && count / t.slices < (1 << 15))
      t.slices--;
  }
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
