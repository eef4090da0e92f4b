/* Geometry of 3-d windows over the last three dims of an (N, C, D, H, W)
 * or (C, D, H, W) tensor: its volumes (one per leading index), attribute
 * triples, and element loads and stores at (volume, d, h, w) of a strided
 * view. For 3-d convolution and pooling. */
#ifndef BACKPLANE_REF_OPS_VOLUME_H_
#define BACKPLANE_REF_OPS_VOLUME_H_

#include "ref_tensor.h"

/* A tensor as volumes: the view without its last three dims, and D, H, W
 * with their strides. */
typedef struct ref_volumes {
  ref_view_t outer; /* indexes a volume's first element */
  int64_t count;
  int64_t size[3], stride[3];
} ref_volumes_t;

/* The volumes of `v`, which has 5 dims, or 4 too when `unbatched`; else a
 * failure naming `op` and `arg`. */
diopiError_t ref_volumes(const char *op, const char *arg, const ref_view_t *v,
                         bool unbatched, ref_volumes_t *out);

/* A 3-d attribute: 1 value (every dim) or 3, each >= min; empty: if_empty
 * for each. */
diopiError_t ref_window_triple(const char *op, const char *arg, diopiSize_t s,
                               int64_t min, int64_t if_empty, int64_t out[3]);

/* A 3-d window's stride (>= 1; empty: stride_if_empty), padding (>= 0)
 * and dilation (>= 1; empty: 1) over an input of a floating dtype, or a
 * failure naming `op` and the argument. */
diopiError_t ref_window_attrs3(const char *op, diopiDtype_t input_dtype,
                               diopiSize_t stride, diopiSize_t padding,
                               diopiSize_t dilation, int64_t stride_if_empty,
                               int64_t stride_out[3], int64_t padding_out[3],
                               int64_t dilation_out[3]);

static inline int64_t ref_volume_offset(const ref_volumes_t *v, int64_t volume,
                                        int64_t d, int64_t h, int64_t w) {
  return ref_offset(&v->outer, volume) + d * v->stride[0] + h * v->stride[1] +
         w * v->stride[2];
}
static inline double ref_volume_get(const ref_volumes_t *v, int64_t volume,
                                    int64_t d, int64_t h, int64_t w) {
  size_t elem = ref_dtype_size(v->outer.dtype);
  return ref_load(v->outer.data +
                      ref_volume_offset(v, volume, d, h, w) * (int64_t)elem,
                  v->outer.dtype);
}
static inline void ref_volume_set(const ref_volumes_t *v, int64_t volume,
                                  int64_t d, int64_t h, int64_t w,
                                  double value) {
  size_t elem = ref_dtype_size(v->outer.dtype);
  ref_store(v->outer.data +
                ref_volume_offset(v, volume, d, h, w) * (int64_t)elem,
            v->outer.dtype, value);
}

#endif /* BACKPLANE_REF_OPS_VOLUME_H_ */
