/* The remapping copy: out[i0, i1, ...] = in[f0(i0), f1(i1), ...], each
 * dim's f one of a few index maps (shift, flip, roll, wrap, reflect, clamp,
 * or shift with a constant outside), out and in of one ndim, any dtypes and
 * strides, split across the worker pool. flip, roll, repeat, pad and narrow
 * are remaps. */
#ifndef BACKPLANE_REF_OPS_REMAP_H_
#define BACKPLANE_REF_OPS_REMAP_H_

#include "ref_tensor.h"

typedef enum ref_axis_map {
  REF_AXIS_SHIFT,   /* i - amount; outside [0, n): the fill value */
  REF_AXIS_FLIP,    /* n - 1 - i */
  REF_AXIS_ROLL,    /* (i - amount) mod n */
  REF_AXIS_REFLECT, /* i - amount mirrored at both ends (edge not repeated) */
  REF_AXIS_CLAMP,   /* i - amount clamped to [0, n) */
} ref_axis_map_t;

typedef struct ref_remap {
  ref_view_t out, in;
  ref_axis_map_t maps[REF_MAX_DIMS];
  int64_t amounts[REF_MAX_DIMS];
  double fill;
  /* Roll the flattened tensor by flat_shift instead (maps unused). */
  bool flat;
  int64_t flat_shift;
} ref_remap_t;

/* Enqueues the copy (nothing for an empty out). The caller checked the
 * shapes; out and in must not overlap. A ROLL dim of in must not be empty
 * when out's is not. */
diopiError_t ref_remap_enqueue(diopiContextHandle_t ctx, const char *op,
                               const ref_remap_t *r);

#endif /* BACKPLANE_REF_OPS_REMAP_H_ */
