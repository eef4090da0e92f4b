/* baddbmm: out = beta * input + alpha * (batch1 @ batch2), input broadcast
 * to (B, N, M); beta 0 ignores input (NaNs included), as PyTorch. One
 * batched GEMM whose C starts as beta * input (ref_gemm.h): no product
 * tensor, no second pass over out. */
#include <diopi/functions.h>

#include "ref_gemm.h"
#include "ref_tensor.h"

REF_EXPORT diopiError_t diopiBaddbmm(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiConstTensorHandle_t input,
                                     diopiConstTensorHandle_t batch1,
                                     diopiConstTensorHandle_t batch2,
                                     double beta, double alpha) {
  return ref_gemm_baddbmm(ctx, "diopiBaddbmm", out, input, batch1, batch2, beta,
                          alpha);
}
REF_EXPORT diopiError_t diopiBaddbmmInp(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t input,
                                        diopiConstTensorHandle_t batch1,
                                        diopiConstTensorHandle_t batch2,
                                        double beta, double alpha) {
  return ref_gemm_baddbmm(ctx, "diopiBaddbmmInp", input, input, batch1, batch2,
                          beta, alpha);
}
