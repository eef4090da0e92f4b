/* Argument checks shared by the indexing ops: index tensors' dtypes, and
 * the 0-dim tensors gather and scatter take as 1-d. */
#ifndef BACKPLANE_REF_OPS_INDEX_ARGS_H_
#define BACKPLANE_REF_OPS_INDEX_ARGS_H_

#include "ref_error.h"
#include "ref_tensor.h"

/* Fails unless `v` is int32 or int64, naming `op` and `arg`. */
static inline diopiError_t ref_expect_index(const char *op, const char *arg,
                                            const ref_view_t *v) {
  if (v->dtype == diopi_dtype_int32 || v->dtype == diopi_dtype_int64)
    return diopiSuccess;
  return ref_fail(op, "%s: expected dtype int32 or int64, got dtype %d", arg,
                  (int)v->dtype);
}

/* A 0-dim `v` as 1-d of one element (torch.gather and torch.scatter take
 * a 0-dim tensor so beside 1-d ones); other views unchanged. */
static inline void ref_as_1d(ref_view_t *v) {
  if (v->ndim)
    return;
  v->ndim = 1;
  v->shape[0] = 1;
  v->strides[0] = 1;
}

#endif /* BACKPLANE_REF_OPS_INDEX_ARGS_H_ */
