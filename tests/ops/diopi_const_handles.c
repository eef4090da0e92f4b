/* The const-ness DIOPI's own functions.h gives diopiCat's tensor list
 * (diopiConstTensorHandle_t *) and diopiAdamW's grad
 * (diopiConstTensorHandle_t): the build stops here, naming the op, if ours
 * differs from upstream's type. Compiled into the ops.api test program. */
#include "backplane/diopi/functions.h"

typedef diopiError_t (*upstream_cat_t)(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t *tensors,
                                       int64_t num_inputs, int64_t dim);
typedef diopiError_t (*upstream_adamw_t)(
    diopiContextHandle_t ctx, diopiTensorHandle_t param,
    diopiConstTensorHandle_t grad, diopiTensorHandle_t exp_avg,
    diopiTensorHandle_t exp_avg_sq, diopiTensorHandle_t max_exp_avg_sq,
    float lr, float beta1, float beta2, float eps, float weight_decay,
    int64_t step, bool amsgrad);

#define HAS_TYPE(fn, type) _Generic(&fn, type : 1, default : 0)
_Static_assert(HAS_TYPE(diopiCat, upstream_cat_t),
               "diopiCat: tensors must be diopiConstTensorHandle_t *");
_Static_assert(HAS_TYPE(diopiAdamW, upstream_adamw_t),
               "diopiAdamW: grad must be diopiConstTensorHandle_t");

/* 2 when both ops have upstream's types (for the test to assert on). */
int diopi_const_handles_match_upstream(void) {
  return HAS_TYPE(diopiCat, upstream_cat_t) +
         HAS_TYPE(diopiAdamW, upstream_adamw_t);
}
