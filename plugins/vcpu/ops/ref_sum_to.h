/* Summing a tensor down to a shape that broadcasts to it: the gradient of
 * an operand that was broadcast (a bias of shape [1, C] or [N, 1] added to
 * [N, C]) is the output gradient summed over the broadcast dims. */
#ifndef BACKPLANE_REF_OPS_SUM_TO_H_
#define BACKPLANE_REF_OPS_SUM_TO_H_

#include "ref_fold.h"

/* Fills *f to sum `in` into `out` (named `arg` in messages), whose shape,
 * aligned to in's trailing dims, has each dim 1 or in's; fails otherwise.
 * Launch it with ref_fold_launch. */
diopiError_t ref_sum_to_prepare(const char *op, const char *arg,
                                const ref_view_t *out, const ref_view_t *in,
                                ref_fold_t *f);

#endif /* BACKPLANE_REF_OPS_SUM_TO_H_ */
