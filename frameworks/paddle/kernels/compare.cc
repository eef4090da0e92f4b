/* equal, not_equal, less_than, less_equal, greater_than, greater_equal
 * (broadcasting, bool out): diopiEq/Ne/Lt/Le/Gt/Ge; and their _raw forms,
 * which a legacy-IR static graph runs: the same with an `axis` attribute,
 * where the operand of fewer dims lines up with the other's dim `axis`
 * (-1: the trailing dims, numpy's rule). */
#include "kernel_call.h"

namespace bridge {

#define COMPARE(Kernel, name, op)                                              \
  template <typename T>                                                        \
  void Kernel##Raw(const phi::Context &dev_ctx, const phi::DenseTensor &x,     \
                   const phi::DenseTensor &y, int axis,                        \
                   phi::DenseTensor *out) {                                    \
    KernelCall call(dev_ctx, name);                                            \
    diopiTensorHandle_t a = call.wrap_at_axis(pd(x), pd(y), axis),             \
                        b = call.wrap_at_axis(pd(y), pd(x), axis);             \
    call.check(DIOPI(call, op)(                                                \
                   call.diopi(),                                               \
                   call.alloc(pd(out), -1, NULL, PD_DataType::BOOL), a, b),    \
               #op);                                                           \
  }                                                                            \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,          \
              const phi::DenseTensor &y, phi::DenseTensor *out) {              \
    Kernel##Raw<T>(dev_ctx, x, y, -1, out);                                    \
  }

COMPARE(EqualKernel, "equal", diopiEq)
COMPARE(NotEqualKernel, "not_equal", diopiNe)
COMPARE(LessThanKernel, "less_than", diopiLt)
COMPARE(LessEqualKernel, "less_equal", diopiLe)
COMPARE(GreaterThanKernel, "greater_than", diopiGt)
COMPARE(GreaterEqualKernel, "greater_equal", diopiGe)

} // namespace bridge

#define BRIDGE_COMPARE_DTYPES float, double, int32_t, int64_t, bool

PD_BUILD_PHI_KERNEL(equal, backplane, ALL_LAYOUT, bridge::EqualKernel,
                    BRIDGE_COMPARE_DTYPES) {}
PD_BUILD_PHI_KERNEL(not_equal, backplane, ALL_LAYOUT, bridge::NotEqualKernel,
                    BRIDGE_COMPARE_DTYPES) {}
PD_BUILD_PHI_KERNEL(less_than, backplane, ALL_LAYOUT, bridge::LessThanKernel,
                    BRIDGE_COMPARE_DTYPES) {}
PD_BUILD_PHI_KERNEL(less_equal, backplane, ALL_LAYOUT, bridge::LessEqualKernel,
                    BRIDGE_COMPARE_DTYPES) {}
PD_BUILD_PHI_KERNEL(greater_than, backplane, ALL_LAYOUT,
                    bridge::GreaterThanKernel, BRIDGE_COMPARE_DTYPES) {}
PD_BUILD_PHI_KERNEL(greater_equal, backplane, ALL_LAYOUT,
                    bridge::GreaterEqualKernel, BRIDGE_COMPARE_DTYPES) {}
PD_BUILD_PHI_KERNEL(equal_raw, backplane, ALL_LAYOUT, bridge::EqualKernelRaw,
                    BRIDGE_COMPARE_DTYPES) {}
PD_BUILD_PHI_KERNEL(not_equal_raw, backplane, ALL_LAYOUT,
                    bridge::NotEqualKernelRaw, BRIDGE_COMPARE_DTYPES) {}
PD_BUILD_PHI_KERNEL(less_than_raw, backplane, ALL_LAYOUT,
                    bridge::LessThanKernelRaw, BRIDGE_COMPARE_DTYPES) {}
PD_BUILD_PHI_KERNEL(less_equal_raw, backplane, ALL_LAYOUT,
                    bridge::LessEqualKernelRaw, BRIDGE_COMPARE_DTYPES) {}
PD_BUILD_PHI_KERNEL(greater_than_raw, backplane, ALL_LAYOUT,
                    bridge::GreaterThanKernelRaw, BRIDGE_COMPARE_DTYPES) {}
PD_BUILD_PHI_KERNEL(greater_equal_raw, backplane, ALL_LAYOUT,
                    bridge::GreaterEqualKernelRaw, BRIDGE_COMPARE_DTYPES) {}
