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

/* More elementwise math and activations (ref_extra_unary.c). */
DIOPI_API diopiError_t diopiRound(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out,
                                  diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiRoundInp(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t input);
DIOPI_API diopiError_t diopiTrunc(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out,
                                  diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiTruncInp(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t input);
DIOPI_API diopiError_t diopiFrac(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t out,
                                 diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiFracInp(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t input);
DIOPI_API diopiError_t diopiLgamma(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out,
                                   diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiLgammaInp(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t input);
DIOPI_API diopiError_t diopiErfc(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t out,
                                 diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiErfcInp(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t input);
DIOPI_API diopiError_t diopiSquare(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out,
                                   diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiSquareInp(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t input);
DIOPI_API diopiError_t diopiMish(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t out,
                                 diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiMishInp(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t input);
DIOPI_API diopiError_t diopiHardsigmoid(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t out,
                                        diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiHardsigmoidInp(diopiContextHandle_t ctx,
                                           diopiTensorHandle_t input);
DIOPI_API diopiError_t diopiIsInf(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out,
                                  diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiMishBackward(diopiContextHandle_t ctx,
                                         diopiTensorHandle_t grad_input,
                                         diopiConstTensorHandle_t grad_output,
                                         diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiHardsigmoidBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiElu(diopiContextHandle_t ctx,
                                diopiTensorHandle_t out,
                                diopiConstTensorHandle_t input,
                                const diopiScalar_t *alpha,
                                const diopiScalar_t *scale,
                                const diopiScalar_t *input_scale);
DIOPI_API diopiError_t diopiEluInp(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t input,
                                   const diopiScalar_t *alpha,
                                   const diopiScalar_t *scale,
                                   const diopiScalar_t *input_scale);
DIOPI_API diopiError_t diopiEluBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    const diopiScalar_t *alpha, const diopiScalar_t *scale,
    const diopiScalar_t *input_scale, bool input_is_result);
DIOPI_API diopiError_t diopiSoftplus(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiConstTensorHandle_t input,
                                     const diopiScalar_t *beta,
                                     const diopiScalar_t *threshold);
DIOPI_API diopiError_t diopiSoftplusBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    const diopiScalar_t *beta, const diopiScalar_t *threshold);

/* Extension ops: Backplane's own, for what DIOPI 1.0 declares no function
 * of (PyTorch's var, logsumexp, kl_div, Adagrad, eye, digamma, polygamma,
 * xlogy, addmv, addbmm), in DIOPI's conventions. var and its backward take a
 * correction (NULL: 1, PyTorch's unbiased=True; 0: unbiased=False) and the dims
 * to reduce (none: all); out's shape says whether reduced dims are kept.
 * kl_div's reduction mean averages over every element. adagrad takes the step
 * being taken (>= 1) for its learning-rate decay. */

/* Extension reductions: var, logsumexp (ref_reduce_var_lse.c). */
DIOPI_API diopiError_t diopiVar(diopiContextHandle_t ctx,
                                diopiTensorHandle_t out,
                                diopiConstTensorHandle_t input, diopiSize_t dim,
                                const diopiScalar_t *correction);
DIOPI_API diopiError_t diopiVarBackward(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t grad_input,
                                        diopiConstTensorHandle_t grad_output,
                                        diopiConstTensorHandle_t input,
                                        diopiSize_t dim,
                                        const diopiScalar_t *correction);
DIOPI_API diopiError_t diopiLogsumexp(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t out,
                                      diopiConstTensorHandle_t input,
                                      diopiSize_t dim);
DIOPI_API diopiError_t diopiLogsumexpBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t result, diopiSize_t dim);
/* Extension loss: kl_div (ref_loss_kl_div.c). */
DIOPI_API diopiError_t diopiKLDivLoss(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t out,
                                      diopiConstTensorHandle_t input,
                                      diopiConstTensorHandle_t target,
                                      diopiReduction_t reduction,
                                      bool log_target);
DIOPI_API diopiError_t diopiKLDivLossBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t target, diopiReduction_t reduction,
    bool log_target);
/* Extension optimizer: adagrad (ref_optim_adagrad.c). */
DIOPI_API diopiError_t diopiAdagrad(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t param,
                                    diopiConstTensorHandle_t grad,
                                    diopiTensorHandle_t state_sum, float lr,
                                    float lr_decay, float weight_decay,
                                    float eps, int64_t step);
/* Extension factory: eye (ref_eye.c). */
DIOPI_API diopiError_t diopiEye(diopiContextHandle_t ctx,
                                diopiTensorHandle_t out, int64_t n, int64_t m);
/* Extension elementwise math: digamma (ref_digamma.c). */
DIOPI_API diopiError_t diopiDigamma(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiDigammaInp(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t input);
/* Extension elementwise ops of one tensor (ref_extra_unary.c): log_sigmoid,
 * min(x, 0) - log1p(exp(-|x|)) as PyTorch's CPU, and its backward
 * (grad_input from grad_output and the forward's input); nan_to_num, NaN,
 * +inf and -inf replaced by the three scalars (PyTorch's defaults, 0 and
 * the out dtype's largest and lowest, are the caller's), an integral input
 * copied. */
DIOPI_API diopiError_t diopiLogSigmoid(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiLogSigmoidInp(diopiContextHandle_t ctx,
                                          diopiTensorHandle_t input);
DIOPI_API diopiError_t diopiLogSigmoidBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiNanToNum(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiConstTensorHandle_t input,
                                     const diopiScalar_t *nan,
                                     const diopiScalar_t *posinf,
                                     const diopiScalar_t *neginf);
DIOPI_API diopiError_t diopiNanToNumInp(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t input,
                                        const diopiScalar_t *nan,
                                        const diopiScalar_t *posinf,
                                        const diopiScalar_t *neginf);
/* Extension scan: cumprod along dim, diopiCumsum's counterpart (ref_scan.c):
 * products in double, integral input and out in int64, wrapping. */
DIOPI_API diopiError_t diopiCumprod(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    diopiConstTensorHandle_t input,
                                    int64_t dim);
/* Extension reduction: amin, diopiAmax's counterpart (ref_reduce_minmax.c):
 * the minimum over `dim` (every dim when empty); out's shape gives keepdim. */
DIOPI_API diopiError_t diopiAmin(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t out,
                                 diopiConstTensorHandle_t self, diopiSize_t dim,
                                 bool keepdim);
/* Extension reduction: prod over several dims, diopiProd's counterpart
 * (ref_reduce_more.c): the product over `dim` (every dim when empty); out's
 * shape gives keepdim. */
DIOPI_API diopiError_t diopiProdDims(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiConstTensorHandle_t input,
                                     diopiSize_t dim);
/* Extension elementwise math: polygamma, the n-th derivative of digamma
 * (n >= 0; 0 is diopiDigamma), and the backwards of digamma and polygamma,
 * grad_output * polygamma(n + 1, input) (ref_polygamma.c). */
DIOPI_API diopiError_t diopiPolygamma(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t out,
                                      diopiConstTensorHandle_t input,
                                      int64_t n);
DIOPI_API diopiError_t diopiPolygammaInp(diopiContextHandle_t ctx,
                                         diopiTensorHandle_t input, int64_t n);
DIOPI_API diopiError_t
diopiPolygammaBackward(diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
                       diopiConstTensorHandle_t grad_output,
                       diopiConstTensorHandle_t input, int64_t n);
DIOPI_API diopiError_t diopiDigammaBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input);
/* Extension elementwise math: xlogy, input * log(other) and 0 where input
 * is 0 (a NaN other still gives NaN), broadcasting; the scalar forms take
 * other (Scalar) or input (ScalarSelf) as a number. The backward's
 * gradients (either may be NULL: not wanted) have input's and other's
 * shapes (ref_xlogy.c). */
DIOPI_API diopiError_t diopiXlogy(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out,
                                  diopiConstTensorHandle_t input,
                                  diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiXlogyInp(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t input,
                                     diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiXlogyScalar(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t out,
                                        diopiConstTensorHandle_t input,
                                        const diopiScalar_t *other);
DIOPI_API diopiError_t diopiXlogyScalarInp(diopiContextHandle_t ctx,
                                           diopiTensorHandle_t input,
                                           const diopiScalar_t *other);
DIOPI_API diopiError_t diopiXlogyScalarSelf(diopiContextHandle_t ctx,
                                            diopiTensorHandle_t out,
                                            const diopiScalar_t *input,
                                            diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiXlogyBackward(diopiContextHandle_t ctx,
                                          diopiTensorHandle_t grad_input,
                                          diopiTensorHandle_t grad_other,
                                          diopiConstTensorHandle_t grad_output,
                                          diopiConstTensorHandle_t input,
                                          diopiConstTensorHandle_t other);
/* Extension elementwise math of two tensors, broadcasting, as PyTorch's:
 * atan2, the angle of the point (other, input) in [-pi, pi], and hypot,
 * sqrt(input^2 + other^2) without overflow (+inf where either is infinite,
 * even beside a NaN); out is floating (ref_atan2_hypot.c). */
DIOPI_API diopiError_t diopiAtan2(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out,
                                  diopiConstTensorHandle_t input,
                                  diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiAtan2Inp(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t input,
                                     diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiHypot(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out,
                                  diopiConstTensorHandle_t input,
                                  diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiHypotInp(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t input,
                                     diopiConstTensorHandle_t other);
/* Extension elementwise math: fmod, the remainder of truncated division
 * (the dividend's sign; diopiRemainder* is Python's modulo), of input by a
 * tensor (broadcasting) or a scalar; integral tensors compute exactly, and
 * an integral division by zero gives 0 where PyTorch raises, a floating one
 * NaN (ref_fmod.c). */
DIOPI_API diopiError_t diopiFmod(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t out,
                                 diopiConstTensorHandle_t input,
                                 diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiFmodInp(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t input,
                                    diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiFmodScalar(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t input,
                                       const diopiScalar_t *other);
DIOPI_API diopiError_t diopiFmodScalarInp(diopiContextHandle_t ctx,
                                          diopiTensorHandle_t input,
                                          const diopiScalar_t *other);
/* Extension elementwise math: copysign, input's magnitude with other's sign
 * (a tensor, broadcasting, or a scalar; the sign bit of -0.0 and of a NaN
 * counts, as C's copysign), out floating (ref_copysign.c); fmax and fmin,
 * C's NaN-ignoring max and min of two tensors (NaN only where both are),
 * integral tensors exact in int64 (ref_fmax_fmin.c). */
DIOPI_API diopiError_t diopiCopysign(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiConstTensorHandle_t input,
                                     diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiCopysignInp(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t input,
                                        diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiCopysignScalar(diopiContextHandle_t ctx,
                                           diopiTensorHandle_t out,
                                           diopiConstTensorHandle_t input,
                                           const diopiScalar_t *other);
DIOPI_API diopiError_t diopiCopysignInpScalar(diopiContextHandle_t ctx,
                                              diopiTensorHandle_t input,
                                              const diopiScalar_t *other);
DIOPI_API diopiError_t diopiFmax(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t out,
                                 diopiConstTensorHandle_t input,
                                 diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiFmin(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t out,
                                 diopiConstTensorHandle_t input,
                                 diopiConstTensorHandle_t other);
/* Extension bitwise xor of integer or bool tensors (a tensor other,
 * broadcasting, or an integer scalar), in place or not, exact in int64 as
 * diopiBitwiseAnd/Or (ref_bitwise.c). */
DIOPI_API diopiError_t diopiBitwiseXor(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t input,
                                       diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiBitwiseXorInp(diopiContextHandle_t ctx,
                                          diopiTensorHandle_t input,
                                          diopiConstTensorHandle_t other);
DIOPI_API diopiError_t diopiBitwiseXorScalar(diopiContextHandle_t ctx,
                                             diopiTensorHandle_t out,
                                             diopiConstTensorHandle_t input,
                                             const diopiScalar_t *other);
DIOPI_API diopiError_t diopiBitwiseXorInpScalar(diopiContextHandle_t ctx,
                                                diopiTensorHandle_t input,
                                                const diopiScalar_t *other);
/* Extension order statistics along dim, values and indices with input's
 * shape less dim (or keeping it as 1), as PyTorch's CPU gives them, ties
 * included: median, the first NaN of a line holding one, else the lower
 * middle element in the order by value then position; nanmedian, the same
 * among the line's numbers (a line of NaNs alone: the NaN libstdc++'s
 * nth_element leaves first, as PyTorch's); kthvalue, the k-th smallest
 * (1-based; NaN above every number) where PyTorch's quickselect leaves it;
 * the All forms, the value over every element (NaN for none)
 * (ref_order_statistics.c). cummax and cummin: the running best and
 * where it is, a later equal element or any NaN taking over
 * (ref_cummax.c). */
DIOPI_API diopiError_t diopiMedian(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t values,
                                   diopiTensorHandle_t indices,
                                   diopiConstTensorHandle_t input, int64_t dim);
DIOPI_API diopiError_t diopiMedianAll(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t out,
                                      diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiNanmedian(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t values,
                                      diopiTensorHandle_t indices,
                                      diopiConstTensorHandle_t input,
                                      int64_t dim);
DIOPI_API diopiError_t diopiNanmedianAll(diopiContextHandle_t ctx,
                                         diopiTensorHandle_t out,
                                         diopiConstTensorHandle_t input);
DIOPI_API diopiError_t diopiKthvalue(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t values,
                                     diopiTensorHandle_t indices,
                                     diopiConstTensorHandle_t input, int64_t k,
                                     int64_t dim);
DIOPI_API diopiError_t diopiCummax(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t values,
                                   diopiTensorHandle_t indices,
                                   diopiConstTensorHandle_t input, int64_t dim);
DIOPI_API diopiError_t diopiCummin(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t values,
                                   diopiTensorHandle_t indices,
                                   diopiConstTensorHandle_t input, int64_t dim);
/* Extension loss: multi_margin_loss, the multi-class hinge loss, as
 * PyTorch's: per sample, the sum over classes j other than the target y of
 * weight[y] * max(0, margin - input[y] + input[j])^p / C (weight NULL: 1;
 * p 1 or 2); input [N, C] or [C], target N class indices in at most one
 * dim; reduction none gives target's shape. The backward gives grad_input
 * of input's shape (ref_loss_multi_margin.c). */
DIOPI_API diopiError_t diopiMultiMarginLoss(diopiContextHandle_t ctx,
                                            diopiTensorHandle_t out,
                                            diopiConstTensorHandle_t input,
                                            diopiConstTensorHandle_t target,
                                            diopiConstTensorHandle_t weight,
                                            int64_t p, double margin,
                                            diopiReduction_t reduction);
DIOPI_API diopiError_t diopiMultiMarginLossBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t target, diopiConstTensorHandle_t weight, int64_t p,
    double margin, diopiReduction_t reduction);
/* Extension op: embedding_bag, as PyTorch's _embedding_bag: bag b reduces
 * the rows weight[indices[i]], i in [offsets[b], offsets[b + 1]) (the last
 * bag ending at indices' end; include_last_offset: offsets holds that end
 * too), indices equal to padding_idx (-1: none) skipped; mode 0 sums (rows
 * times per_sample_weights, NULL: 1), 1 averages, 2 takes the elementwise
 * max (the first of equal values); an empty bag gives 0. Beside out [B, D]:
 * offset2bag [L], bag_size [B] and, mode 2, max_indices [B, D] (weight
 * rows), which the backward reads: grad_weight [rows, D] gathers
 * grad_output back, divided by bag_size for mean and by each row's count
 * among indices with scale_grad_by_freq; grad_per_sample_weights [L] is
 * each index's grad_output row (its bag's) dotted with its weight row, 0 for
 * padding_idx (ref_embedding_bag.c). */
DIOPI_API diopiError_t diopiEmbeddingBag(
    diopiContextHandle_t ctx, diopiTensorHandle_t out,
    diopiTensorHandle_t offset2bag, diopiTensorHandle_t bag_size,
    diopiTensorHandle_t max_indices, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t indices, diopiConstTensorHandle_t offsets,
    int64_t mode, diopiConstTensorHandle_t per_sample_weights,
    bool include_last_offset, int64_t padding_idx);
DIOPI_API diopiError_t diopiEmbeddingBagBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_weight,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t indices,
    diopiConstTensorHandle_t offset2bag, diopiConstTensorHandle_t bag_size,
    diopiConstTensorHandle_t max_indices, int64_t mode,
    diopiConstTensorHandle_t per_sample_weights, bool scale_grad_by_freq,
    int64_t padding_idx);
DIOPI_API diopiError_t diopiEmbeddingBagPerSampleWeightsBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_per_sample_weights,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t indices, diopiConstTensorHandle_t offset2bag,
    int64_t padding_idx);
/* Extension matrix products with an addend, as diopiAddmm (NULL beta or
 * alpha: 1; beta 0 ignores input): addmv, beta * input + alpha * mat @ vec
 * (ref_addmv.c), and addbmm, beta * input + alpha * the sum over b of
 * batch1[b] @ batch2[b] (ref_addbmm.c); input broadcasts to out. Their
 * backwards take the gradients wanted (NULL: not wanted), each of its
 * operand's shape (grad_input: input's, which broadcast to out). */
DIOPI_API diopiError_t diopiAddmv(diopiContextHandle_t ctx,
                                  diopiTensorHandle_t out,
                                  diopiConstTensorHandle_t input,
                                  diopiConstTensorHandle_t mat,
                                  diopiConstTensorHandle_t vec,
                                  const diopiScalar_t *beta,
                                  const diopiScalar_t *alpha);
DIOPI_API diopiError_t diopiAddmvInp(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t input,
                                     diopiConstTensorHandle_t mat,
                                     diopiConstTensorHandle_t vec,
                                     const diopiScalar_t *beta,
                                     const diopiScalar_t *alpha);
DIOPI_API diopiError_t
diopiAddmvBackward(diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
                   diopiTensorHandle_t grad_mat, diopiTensorHandle_t grad_vec,
                   diopiConstTensorHandle_t grad_output,
                   diopiConstTensorHandle_t mat, diopiConstTensorHandle_t vec,
                   const diopiScalar_t *beta, const diopiScalar_t *alpha);
DIOPI_API diopiError_t diopiAddbmm(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out,
                                   diopiConstTensorHandle_t input,
                                   diopiConstTensorHandle_t batch1,
                                   diopiConstTensorHandle_t batch2,
                                   const diopiScalar_t *beta,
                                   const diopiScalar_t *alpha);
DIOPI_API diopiError_t diopiAddbmmInp(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t input,
                                      diopiConstTensorHandle_t batch1,
                                      diopiConstTensorHandle_t batch2,
                                      const diopiScalar_t *beta,
                                      const diopiScalar_t *alpha);
DIOPI_API diopiError_t diopiAddbmmBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiTensorHandle_t grad_batch1, diopiTensorHandle_t grad_batch2,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t batch1,
    diopiConstTensorHandle_t batch2, const diopiScalar_t *beta,
    const diopiScalar_t *alpha);

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
