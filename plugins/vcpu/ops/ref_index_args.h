/* Argument checks shared by the indexing ops: index tensors' dtypes. */
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

#endif /* BACKPLANE_REF_OPS_INDEX_ARGS_H_ */
