/* Pointwise losses: a loss per element from up to REF_LOSS_MAX_IN tensors
 * (the first is `input`; the others broadcast to its shape), stored
 * (reduction none) or summed or averaged in double; and their backwards,
 * grad_input = scale * fn(grad_output, inputs...) with grad_output
 * broadcast (0-dim for mean and sum) and scale 1/numel for mean. Any
 * dtypes and strides; split across the worker pool. */
#ifndef BACKPLANE_REF_OPS_LOSS_POINTWISE_H_
#define BACKPLANE_REF_OPS_LOSS_POINTWISE_H_

#include "ref_elementwise.h" /* ref_ew_f32_fn_t */
#include "ref_tensor.h"

enum { REF_LOSS_MAX_IN = 6 };

/* The loss (or gradient) of one element from its values. */
typedef double (*ref_loss_fn_t)(const double *values, const double *params);

typedef struct ref_loss {
  int nin;
  diopiConstTensorHandle_t in[REF_LOSS_MAX_IN]; /* in[0]: input */
  const char *names[REF_LOSS_MAX_IN];
  ref_loss_fn_t fn;
  /* Optional: fn over a block of contiguous float32 inputs, in float (the
   * forward's sums stay in double). */
  ref_ew_f32_fn_t f32;
  double params[4];
} ref_loss_t;

/* A loss of (input, target): fn, the optional float32 block form and one
 * parameter (params[0]). */
ref_loss_t ref_loss_pair(diopiConstTensorHandle_t input,
                         diopiConstTensorHandle_t target, ref_loss_fn_t fn,
                         ref_ew_f32_fn_t f32, double param);

/* Fails naming `op` unless reduction is none, mean or sum. */
diopiError_t ref_loss_reduction(const char *op, diopiReduction_t reduction);

/* out = the per-element losses (none: out has input's shape) or their sum
 * or mean (out has one element). */
diopiError_t ref_loss_forward(diopiContextHandle_t ctx, const char *op,
                              diopiConstTensorHandle_t out,
                              diopiReduction_t reduction,
                              const ref_loss_t *loss);

/* grad_input (input's shape) = scale * fn(grad_output, in[0], ...). */
diopiError_t ref_loss_backward(diopiContextHandle_t ctx, const char *op,
                               diopiConstTensorHandle_t grad_input,
                               diopiConstTensorHandle_t grad_output,
                               diopiReduction_t reduction,
                               const ref_loss_t *loss);

#endif /* BACKPLANE_REF_OPS_LOSS_POINTWISE_H_ */
