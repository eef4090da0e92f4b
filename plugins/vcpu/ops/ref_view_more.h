/* View helpers the breadth ops share, beside ref_tensor.h's: element
 * loads and stores at an element offset, and a view's lines along a dim. */
#ifndef BACKPLANE_REF_OPS_VIEW_MORE_H_
#define BACKPLANE_REF_OPS_VIEW_MORE_H_

#include "ref_tensor.h"

/* The element `offset` elements (not bytes) from v's element 0. */
static inline double ref_load_at(const ref_view_t *v, int64_t offset) {
  return ref_load(v->data + offset * (int64_t)ref_dtype_size(v->dtype),
                  v->dtype);
}
static inline void ref_store_at(const ref_view_t *v, int64_t offset,
                                double value) {
  ref_store(v->data + offset * (int64_t)ref_dtype_size(v->dtype), v->dtype,
            value);
}

/* `v` without dim `d` (d < 0: all of v): ref_offset of line l gives the
 * line's first element; the line steps by v's stride along d. */
static inline ref_view_t ref_lines_of(const ref_view_t *v, int d) {
  ref_view_t l = *v;
  l.ndim = 0;
  l.numel = 1;
  for (int i = 0; i < v->ndim; i++)
    if (i != d) {
      l.shape[l.ndim] = v->shape[i];
      l.strides[l.ndim++] = v->strides[i];
      l.numel *= v->shape[i];
    }
  return l;
}

#endif /* BACKPLANE_REF_OPS_VIEW_MORE_H_ */
