/* Clamping by scalar bounds, shared by clamp and hardtanh. */
#ifndef BACKPLANE_REF_OPS_CLAMP_H_
#define BACKPLANE_REF_OPS_CLAMP_H_

#include <diopi/diopirt.h>

/* out = min(max(input, lo), hi) (NaN stays NaN), with out of input's shape
 * and a numeric dtype; -INFINITY / INFINITY for an absent bound. */
diopiError_t ref_clamp_scalars(diopiContextHandle_t ctx, const char *op,
                               diopiConstTensorHandle_t out,
                               diopiConstTensorHandle_t input, double lo,
                               double hi);

#endif /* BACKPLANE_REF_OPS_CLAMP_H_ */
