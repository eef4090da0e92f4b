/* The float GEMM engine's entry for ops outside ref_gemm.c that are one
 * product plus a scaled addend (baddbmm): the addend is the GEMM's own C
 * init, so the product needs no tensor of its own and no second pass. */
#ifndef BACKPLANE_REF_OPS_GEMM_H_
#define BACKPLANE_REF_OPS_GEMM_H_

#include <diopi/diopirt.h>

/* Enqueues out = beta * input + alpha * (batch1 @ batch2) per batch entry:
 * batch1 [B, n, k], batch2 [B, k, m], out [B, n, m] floating, input
 * broadcast to out (beta 0 ignores its values, NaN and Inf too, as
 * PyTorch). Any strides; out may be input itself. Errors name `op` and the
 * argument. */
diopiError_t ref_gemm_baddbmm(diopiContextHandle_t ctx, const char *op,
                              diopiConstTensorHandle_t out,
                              diopiConstTensorHandle_t input,
                              diopiConstTensorHandle_t batch1,
                              diopiConstTensorHandle_t batch2, double beta,
                              double alpha);

#endif /* BACKPLANE_REF_OPS_GEMM_H_ */
