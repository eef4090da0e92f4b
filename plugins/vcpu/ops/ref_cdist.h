/* cdist's batch dims: input1 [..., P, M] and input2 [..., R, M] broadcast
 * their dims before the last two against each other, as PyTorch's cdist
 * does; out is [broadcast batch, P, R]. Header-only: the forward
 * (ref_unfold.c) and the backward (ref_cdist_backward.c) share it. */
#ifndef BACKPLANE_REF_OPS_CDIST_H_
#define BACKPLANE_REF_OPS_CDIST_H_

#include "ref_error.h"
#include "ref_tensor.h"

typedef struct ref_cdist_batch {
  int ndim;                    /* dims of the broadcast batch */
  int64_t shape[REF_MAX_DIMS]; /* its shape */
  int64_t count;               /* its element count */
} ref_cdist_batch_t;

/* The broadcast batch of x1 and x2 (both of 2 dims or more) into *out, or
 * a failure naming `op` where a dim differs and neither is 1. */
static inline diopiError_t ref_cdist_batch(const char *op, const ref_view_t *x1,
                                           const ref_view_t *x2,
                                           ref_cdist_batch_t *out) {
  int n1 = x1->ndim - 2, n2 = x2->ndim - 2;
  out->ndim = n1 > n2 ? n1 : n2;
  out->count = 1;
  for (int d = out->ndim - 1, k1 = n1 - 1, k2 = n2 - 1; d >= 0;
       d--, k1--, k2--) {
    int64_t a = k1 >= 0 ? x1->shape[k1] : 1, b = k2 >= 0 ? x2->shape[k2] : 1;
    if (a != b && a != 1 && b != 1)
      return ref_fail(op,
                      "input1, input2: batch dims %lld and %lld do not "
                      "broadcast",
                      (long long)a, (long long)b);
    out->shape[d] = a == 1 ? b : a;
    out->count *= out->shape[d];
  }
  return diopiSuccess;
}

/* The flat index, among v's own batch (its dims before the last two), of
 * broadcast batch element b. */
static inline int64_t ref_cdist_batch_of(const ref_cdist_batch_t *batch,
                                         const ref_view_t *v, int64_t b) {
  int64_t index = 0, scale = 1;
  for (int d = batch->ndim - 1, k = v->ndim - 3; d >= 0 && k >= 0; d--, k--) {
    int64_t coord = b % batch->shape[d];
    b /= batch->shape[d];
    if (v->shape[k] != 1)
      index += coord * scale;
    scale *= v->shape[k];
  }
  return index;
}

/* Checks cdist's inputs for `op` (x1 [..., P, M] and x2 [..., R, M], both of
 * 2 dims or more, with broadcasting batch dims; p >= 0) and writes the
 * broadcast batch into *batch and the result's shape [batch..., P, R] into
 * out_shape (REF_MAX_DIMS entries), its dim count into *out_ndim. */
static inline diopiError_t ref_cdist_shape(const char *op, const ref_view_t *x1,
                                           const ref_view_t *x2, double p,
                                           ref_cdist_batch_t *batch,
                                           int64_t *out_shape, int *out_ndim) {
  if (x1->ndim < 2 || x2->ndim < 2)
    return ref_fail(op,
                    "input1, input2: expected [..., rows, features], got %d "
                    "and %d dims",
                    x1->ndim, x2->ndim);
  if (!(p >= 0))
    return ref_fail(op, "p: expected >= 0, got %g", p);
  diopiError_t err = ref_cdist_batch(op, x1, x2, batch);
  if (err)
    return err;
  int64_t m = x1->shape[x1->ndim - 1];
  if (x2->shape[x2->ndim - 1] != m)
    return ref_fail(op, "input2: %lld features, input1 has %lld",
                    (long long)x2->shape[x2->ndim - 1], (long long)m);
  int nd = batch->ndim + 2;
  for (int d = 0; d < batch->ndim; d++)
    out_shape[d] = batch->shape[d];
  out_shape[nd - 2] = x1->shape[x1->ndim - 2];
  out_shape[nd - 1] = x2->shape[x2->ndim - 2];
  *out_ndim = nd;
  return diopiSuccess;
}

#endif /* BACKPLANE_REF_OPS_CDIST_H_ */
