/* The reduction engine: each output element folds the elements of the
 * reduced dims of a mapped input, value = map(in[0][i], in[1][i], ...)
 * (in[0] alone when map is NULL), through an op's step and finish functions
 * on a small state. Any dtypes (values in double; an op's integer form in
 * int64), any strides, outputs
 * split across the worker pool. The caller's out shape says whether reduced
 * dims are kept (as 1) or dropped. Used by the reductions and losses that
 * today's sum/mean path does not cover (min/max families, prod, any/all,
 * norms, variances, loss sums). */
#ifndef BACKPLANE_REF_OPS_FOLD_H_
#define BACKPLANE_REF_OPS_FOLD_H_

#include "ref_elementwise.h"

/* The running state of one output: what each op keeps is its own (a sum, a
 * best value and its index, a count, Welford's mean and M2...). */
typedef struct ref_fold_state {
  double a, b;
  int64_t index, n;
  int64_t ia; /* the integer fold's value */
} ref_fold_state_t;

/* Folds value v, at position r of the reduced elements (the index along the
 * reduced dim when one dim is reduced, else the flat index), into s. */
typedef void (*ref_fold_step_t)(ref_fold_state_t *s, double v, int64_t r,
                                const double *params);
/* The output value of a state after `count` elements. */
typedef double (*ref_fold_finish_t)(const ref_fold_state_t *s, int64_t count,
                                    const double *params);
/* The integer fold's: v an integral element, exact in int64. */
typedef void (*ref_fold_int_step_t)(ref_fold_state_t *s, int64_t v, int64_t r,
                                    const double *params);
typedef int64_t (*ref_fold_int_finish_t)(const ref_fold_state_t *s);

/* Welford's step of variance-like folds (var, std): the running mean in a,
 * the sum of squared deviations (M2) in b, the count in n. */
void ref_fold_welford_step(ref_fold_state_t *s, double v, int64_t r,
                           const double *params);

typedef struct ref_fold {
  int nin;
  ref_view_t in[REF_EW_MAX_IN]; /* all of one shape: the folded shape */
  ref_view_t out, indices;      /* indices: when has_indices */
  bool has_indices;
  ref_ew_fn_t map; /* NULL: in[0] */
  double init;     /* the state's a before the first step */
  ref_fold_step_t step;
  ref_fold_finish_t finish;
  double params[4];
  bool reduced[REF_MAX_DIMS]; /* over in[0]'s dims */
  bool nonempty;              /* refuse reducing an empty dim (min, max) */
  /* Optional, for one float32 input without map: an output's value from
   * its n >= 1 reduced values when they form one unit-stride run (index:
   * where its index goes when has_indices, else NULL). */
  double (*f32_run)(const float *x, int64_t n, int64_t *index,
                    const double *params);
  /* Optional, with f32_run and no indices: the value of a run from the
   * values of its two halves, so that a few long runs split across the
   * worker pool. */
  double (*f32_merge)(double first, double second, const double *params);
  /* Likewise for one bool or uint8 input: an output's value from the count
   * of nonzero values among its n reduced ones. */
  double (*nonzero_run)(int64_t nonzero, int64_t n);
  /* Optional, for one integral (or bool) input without map into an integral
   * out: the fold in int64 instead (exact beyond 2^53, wrapping as the
   * dtype does), from the state's ia = int_init. */
  ref_fold_int_step_t int_step;
  ref_fold_int_finish_t int_finish;
  int64_t int_init;
} ref_fold_t;

/* Marks the dims of `dims` (negative ones counted from the end; n = 0 or
 * dims NULL: every dim) as reduced in f->reduced, or fails naming `arg`. */
diopiError_t ref_fold_dims(const char *op, const char *arg, ref_fold_t *f,
                           const int64_t *dims, int64_t n);

/* Checks out's (and indices') shape against the reduced input, that the
 * inputs share in[0]'s shape, and enqueues. The views, map, step, finish
 * and reduced dims are the caller's. */
diopiError_t ref_fold_launch(diopiContextHandle_t ctx, const char *op,
                             ref_fold_t *f);

#endif /* BACKPLANE_REF_OPS_FOLD_H_ */
