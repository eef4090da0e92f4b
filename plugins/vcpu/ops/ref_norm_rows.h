/* The engine group_norm, instance_norm and rms_norm share (ref_norm_rows.c):
 * a tensor read as rows, each normalized by statistics of its own elements,
 * then scaled and shifted per weight index, forward and backward, in double
 * over any strides (float32 rows contiguous in x and y take a vector path;
 * in the backward of group_norm and instance_norm, float32 rows contiguous
 * in x, grad_output and grad_input).
 *
 * group_norm's rows are (image, group) of an (N, C, spatial...) tensor, a
 * row's elements the group's channels x spatial; instance_norm is
 * group_norm with one group per channel; rms_norm's rows are the leading
 * dims, its elements the trailing normalized_shape, with no mean.
 *
 * The ops check their arguments and fill a ref_norm_task_t; the task runs
 * on the context's stream (ref_enqueue) and only reads and writes the views
 * it was given. */
#ifndef BACKPLANE_REF_OPS_NORM_ROWS_H_
#define BACKPLANE_REF_OPS_NORM_ROWS_H_

#include <stdbool.h>
#include <stdint.h>

#include <diopi/diopirt.h>

#include "ref_tensor.h"

/* A tensor read as rows: row r, element k at ref_offset(outer, r) +
 * ref_offset(inner, k); outer.data and outer.dtype are the tensor's. */
typedef struct ref_norm_rows {
  ref_view_t outer, inner;
} ref_norm_rows_t;

/* `v` split after dim `at`: rows are dims [0, at), elements the rest. */
ref_norm_rows_t ref_norm_split_at(const ref_view_t *v, int at);

/* (N, C, spatial...) as rows (N, groups) of elements (C / groups,
 * spatial...); groups divides C. */
ref_norm_rows_t ref_norm_groups_of(const ref_view_t *v, int64_t groups);

typedef struct ref_norm_task {
  bool rms;      /* no mean; weight index = element index */
  bool backward; /* y is grad_input, from dy */
  bool has_y;    /* the backward may want only the parameter gradients */
  ref_norm_rows_t x, y, dy;
  ref_view_t weight, bias; /* per channel, or per element (rms) */
  bool has_weight, has_bias;
  /* Saved statistics, one per row: group_norm's mean and rstd (stat_a,
   * stat_b), rms_norm's inv_rms (stat_a). The forward writes them, the
   * backward reads them; instance_norm has none (has_stats false). */
  ref_view_t stat_a, stat_b;
  bool has_stats;
  /* Per-row statistics the backward recomputes from x in double, before
   * its rows (scratch, `rows` doubles each, or NULL): means where the saved
   * mean is rounded to a 16-bit float (PyTorch's 16-bit results are its
   * float32 ones rounded once: a mean off by a 16-bit ulp leaves xhat's
   * mean away from 0, and gradients that cancel to 0 off by far more than
   * the 16-bit tolerance), means and rstds where none are saved. */
  double *means, *rstds;
  ref_view_t grad_w, grad_b; /* backward, optional */
  bool has_grad_w, has_grad_b;
  /* rows x count elements; the weight index of row r's element k is
   * (r % (channels / per_group)) * per_group + k / spatial, or k (rms). */
  int64_t rows, count, channels, per_group, spatial;
  double eps;
} ref_norm_task_t;

/* An optional weight, bias or parameter gradient (NULL: *present false)
 * of the given shape: per channel, or normalized_shape (rms_norm). Errors
 * name `op` and `arg`. */
diopiError_t ref_norm_parameter(diopiContextHandle_t ctx, const char *op,
                                const char *arg, diopiConstTensorHandle_t h,
                                ref_view_t *v, bool *present,
                                const int64_t *shape, int ndim);

/* Enqueues the task on ctx's stream (a copy of *task); a forward over no
 * rows has nothing to do, a backward over none still writes its parameter
 * gradients (zeros). Errors name `op`. */
diopiError_t ref_norm_enqueue(diopiContextHandle_t ctx, const char *op,
                              const ref_norm_task_t *task);

#endif /* BACKPLANE_REF_OPS_NORM_ROWS_H_ */
