/* PyTorch's type promotion (torch.result_type): the dtype an op of several
 * tensors computes in, to which it converts every input first. */
#ifndef BACKPLANE_REF_OPS_PROMOTE_H_
#define BACKPLANE_REF_OPS_PROMOTE_H_

#include <stdbool.h>

#include "ref_tensor.h"

/* The dtype both a and b convert to: the higher kind (bool < integral <
 * floating) wins; within floating the wider (float16 with bfloat16 is
 * float32); within integral the wider, a signed one wide enough for both
 * where signedness differs (uint8 with int8 is int16). */
diopiDtype_t ref_promote_types(diopiDtype_t a, diopiDtype_t b);

/* result_type of `n` views as the op's caller gave them (before any
 * broadcast): tensors of one or more dims decide, a 0-dim tensor counts
 * only where its kind is higher (a float64 0-dim tensor leaves a float16
 * tensor's op in float16). */
diopiDtype_t ref_result_type(const ref_view_t *in, int n);

#endif /* BACKPLANE_REF_OPS_PROMOTE_H_ */
