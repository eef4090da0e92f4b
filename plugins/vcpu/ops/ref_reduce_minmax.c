/* min with indices over a dim, min and max over everything, amax over dims,
 * argmin over a dim or everything. As PyTorch: a NaN wins (its first
 * position), ties keep the first position, an empty reduction is refused. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_error.h"
#include "ref_f32.h"
#include "ref_fold.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* params[0]: +1 for the max, -1 for the min. */
static void best_step(ref_fold_state_t *s, double v, int64_t r,
                      const double *p) {
  bool better = p[0] > 0 ? v > s->a : v < s->a;
  if (s->n++ == 0 || (!isnan(s->a) && (better || isnan(v)))) {
    s->a = v;
    s->index = r;
  }
}
static double best_value(const ref_fold_state_t *s, int64_t count,
                         const double *p) {
  (void)count;
  (void)p;
  return s->a;
}
static double best_index(const ref_fold_state_t *s, int64_t count,
                         const double *p) {
  (void)count;
  (void)p;
  return (double)s->index;
}

static double best_value_f32(const float *x, int64_t n, int64_t *index,
                             const double *p) {
  return ref_f32_best(x, n, p[0] > 0 ? 1 : -1, index);
}
static double best_index_f32(const float *x, int64_t n, int64_t *index,
                             const double *p) {
  (void)index;
  int64_t at;
  ref_f32_best(x, n, p[0] > 0 ? 1 : -1, &at);
  return (double)at;
}

/* The integer fold (exact beyond 2^53): the first of equal values wins. */
static void best_step_int(ref_fold_state_t *s, int64_t v, int64_t r,
                          const double *p) {
  if (s->n++ == 0 || (p[0] > 0 ? v > s->ia : v < s->ia)) {
    s->ia = v;
    s->index = r;
  }
}
static int64_t best_value_int(const ref_fold_state_t *s) {
  return s->ia;
}
static int64_t best_index_int(const ref_fold_state_t *s) {
  return s->index;
}

/* The better of two parts' values, a NaN (the first part's first). */
static double best_merge(double first, double second, const double *p) {
  if (isnan(first) || isnan(second))
    return isnan(first) ? first : second;
  return (p[0] > 0 ? second > first : second < first) ? second : first;
}

/* A fold of `input` for the best value; out and indices (may be NULL) as
 * named. */
static diopiError_t best(CTX, const char *op, double sign, CT out,
                         const char *out_name, CT indices,
                         const char *indices_name, CT input,
                         const int64_t *dims, int64_t ndims, bool want_index) {
  ref_fold_t f;
  memset(&f, 0, sizeof f);
  f.nin = 1;
  f.step = best_step;
  f.finish = want_index ? best_index : best_value;
  f.f32_run = want_index ? best_index_f32 : best_value_f32;
  f.f32_merge = want_index ? NULL : best_merge;
  f.int_step = best_step_int;
  f.int_finish = want_index ? best_index_int : best_value_int;
  f.params[0] = sign;
  f.nonempty = true;
  diopiError_t err = ref_view(ctx, op, out_name, out, &f.out);
  if (!err && indices) {
    f.has_indices = true;
    err = ref_view(ctx, op, indices_name, indices, &f.indices);
  } else if (!err && indices_name) {
    err = ref_fail(op, "%s: tensor is NULL", indices_name);
  }
  if (!err)
    err = ref_view(ctx, op, "input", input, &f.in[0]);
  if (!err)
    err = ref_fold_dims(op, "dim", &f, dims, ndims);
  return err ? err : ref_fold_launch(ctx, op, &f);
}

REF_EXPORT diopiError_t diopiMin(CTX, T min, T min_indices, CT input,
                                 int64_t dim) {
  return best(ctx, "diopiMin", -1, min, "min", min_indices, "min_indices",
              input, &dim, 1, false);
}
REF_EXPORT diopiError_t diopiMinAll(CTX, T min, CT input) {
  return best(ctx, "diopiMinAll", -1, min, "min", NULL, NULL, input, NULL, 0,
              false);
}
REF_EXPORT diopiError_t diopiMaxAll(CTX, T max, CT input) {
  return best(ctx, "diopiMaxAll", 1, max, "max", NULL, NULL, input, NULL, 0,
              false);
}
/* keepdim: out's shape says it. An empty dim list reduces every dim. */
REF_EXPORT diopiError_t diopiAmax(CTX, T out, CT self, diopiSize_t dim,
                                  bool keepdim) {
  (void)keepdim;
  return best(ctx, "diopiAmax", 1, out, "out", NULL, NULL, self, dim.data,
              dim.len, false);
}
REF_EXPORT diopiError_t diopiAmin(CTX, T out, CT self, diopiSize_t dim,
                                  bool keepdim) {
  (void)keepdim;
  return best(ctx, "diopiAmin", -1, out, "out", NULL, NULL, self, dim.data,
              dim.len, false);
}
REF_EXPORT diopiError_t diopiArgmin(CTX, T out, CT input, const int64_t *dim,
                                    bool keepdim) {
  (void)keepdim;
  return best(ctx, "diopiArgmin", -1, out, "out", NULL, NULL, input, dim,
              dim ? 1 : 0, true);
}
