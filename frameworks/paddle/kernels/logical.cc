/* logical_and, logical_or, logical_not (numpy broadcasting; any input
 * dtype, nonzero is true) and isnan, isinf, isfinite: diopiLogicalAnd/Or/
 * Not, diopiIsNan/IsInf (isfinite: neither, by diopiLogicalOrInp and
 * diopiLogicalNotInp). Every output is bool. */
#include "single_op.h"

namespace bridge {

BRIDGE_BINARY_BOOL(LogicalAndKernel, "logical_and", diopiLogicalAnd)
BRIDGE_BINARY_BOOL(LogicalOrKernel, "logical_or", diopiLogicalOr)
BRIDGE_UNARY_BOOL(LogicalNotKernel, "logical_not", diopiLogicalNot)
BRIDGE_UNARY_BOOL(IsnanKernel, "isnan", diopiIsNan)
BRIDGE_UNARY_BOOL(IsinfKernel, "isinf", diopiIsInf)

/* out = not (isnan(x) or isinf(x)). */
template <typename T>
void IsfiniteKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "isfinite");
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(x), shape);
  diopiTensorHandle_t a = call.wrap(pd(x)), o = call.alloc(pd(out));
  diopiTensorHandle_t inf = call.temp(diopi_dtype_bool, ndim, shape);
  call.check(DIOPI(call, diopiIsNan)(call.diopi(), o, a), "diopiIsNan");
  call.check(DIOPI(call, diopiIsInf)(call.diopi(), inf, a), "diopiIsInf");
  call.check(DIOPI(call, diopiLogicalOrInp)(call.diopi(), o, inf),
             "diopiLogicalOrInp");
  call.check(DIOPI(call, diopiLogicalNotInp)(call.diopi(), o),
             "diopiLogicalNotInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(logical_and, backplane, ALL_LAYOUT,
                    bridge::LogicalAndKernel, BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(logical_or, backplane, ALL_LAYOUT, bridge::LogicalOrKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(logical_not, backplane, ALL_LAYOUT,
                    bridge::LogicalNotKernel, BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(isnan, backplane, ALL_LAYOUT, bridge::IsnanKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(isinf, backplane, ALL_LAYOUT, bridge::IsinfKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(isfinite, backplane, ALL_LAYOUT, bridge::IsfiniteKernel,
                    BRIDGE_FLOAT_DTYPES) {}
