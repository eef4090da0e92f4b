/* An optional list of tensors as a kernel input (interpolation's
 * size_tensor), which Paddle 3.3.1's kernel C API registers
 * (PD_ARG_TYPE_OPTIONAL_MULTI_TENSOR) but cannot pass: its call helpers
 * have no case for it. This adds that case. Eager mode hands the kernel
 * Paddle's own paddle::optional<std::vector<const phi::DenseTensor *>>,
 * passed on as it is (a vector of pointers of the same layout: a kernel
 * may test whether it holds a list and read its size, never dereference
 * an element); a KernelContext (static graph) call gets a list of as many
 * null pointers as Paddle gave tensors, or none. */
#ifndef BACKPLANE_PADDLE_KERNELS_OPTIONAL_TENSOR_LIST_H_
#define BACKPLANE_PADDLE_KERNELS_OPTIONAL_TENSOR_LIST_H_

#include <tuple>
#include <vector>

#include "paddle/phi/capi/all.h"

namespace phi {
namespace capi {

using OptionalTensorList = paddle::optional<std::vector<const DenseTensor *>>;

template <typename Return, typename DevCtx, typename... Args,
          Return (*kernel_fn)(DevCtx, Args...)>
template <typename... Tail>
struct CustomKernelImpl<Return (*)(DevCtx, Args...), kernel_fn>::
    CustomKernelCallHelper<const OptionalTensorList &, Tail...> {
  template <int dev_ctx_idx, int in_idx, int attr_idx, int out_idx,
            typename... PreviousArgs>
  static void Compute(PD_KernelContext *ctx, PreviousArgs &...pargs) {
    static_assert(attr_idx == 0 && out_idx == 0,
                  "Kernel's Input should appear before Attributes.");
    size_t count = PD_MultiInputAt(ctx, in_idx).size();
    OptionalTensorList arg;
    if (count > 0)
      arg = std::vector<const DenseTensor *>(count, nullptr);
    CustomKernelCallHelper<Tail...>::template Compute<dev_ctx_idx, in_idx + 1,
                                                      attr_idx, out_idx>(
        ctx, pargs..., arg);
  }
  template <int idx, typename... PreviousArgs>
  static void VariadicCompute(const std::tuple<DevCtx, Args &...> &ctx,
                              PreviousArgs &...pargs) {
    auto &arg = std::get<idx>(ctx);
    return CustomKernelCallHelper<Tail...>::template VariadicCompute<idx + 1>(
        ctx, pargs..., arg);
  }
};

} // namespace capi
} // namespace phi

#endif /* BACKPLANE_PADDLE_KERNELS_OPTIONAL_TENSOR_LIST_H_ */
