/* Backplane's own operator functions: ops DIOPI declares no function for,
 * in DIOPI's conventions (functions.h: ctx first, outputs, inputs,
 * attributes; NULL optional tensors; weak symbols, a library leaves out what
 * it does not implement and the caller reports diopiNoImplement).
 * functions.h holds DIOPI's own prototypes; an op library or a framework
 * that uses these includes this header beside it. Backplane's reference
 * library implements every one; another library may implement any.
 *
 * (Named for Backplane, not functions_ext.h: that name is DIOPI's own
 * extension header, whose ops, such as diopiRotaryEmbedding, are DIOPI's.) */
#ifndef BACKPLANE_DIOPI_FUNCTIONS_BACKPLANE_H_
#define BACKPLANE_DIOPI_FUNCTIONS_BACKPLANE_H_

#include "diopirt.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* Grid sampling (ref_grid_sample.c). */
/* PyTorch's full grid_sample: diopiGridSample's shapes and modes
 * (functions.h), with padding_mode "zeros", "border" or "reflection" and
 * align_corners; the backward (DIOPI has none) takes the gradients wanted
 * (NULL: not wanted; grad_grid of "nearest" is 0). */
DIOPI_API diopiError_t diopiGridSampler(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiConstTensorHandle_t input, diopiConstTensorHandle_t grid,
    const char *mode, const char *padding_mode, bool align_corners);
DIOPI_API diopiError_t diopiGridSamplerBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiTensorHandle_t grad_grid, diopiConstTensorHandle_t grad_output,
    diopiConstTensorHandle_t input, diopiConstTensorHandle_t grid,
    const char *mode, const char *padding_mode, bool align_corners);

#if defined(__cplusplus)
}
#endif

#endif /* BACKPLANE_DIOPI_FUNCTIONS_BACKPLANE_H_ */
