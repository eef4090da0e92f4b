/* any and all over dims (Paddle's reduce any/all; a bool result of any
 * input dtype): diopiAny/diopiAll, which reduce one dim or every dim, once
 * per reduced dim with the dims kept, so that the dim indices stay put;
 * diopiCastDtype when no dim of more than one element is reduced. */
#include "kernel_call.h"

namespace bridge {

typedef diopiError_t (*FoldOp)(diopiContextHandle_t, diopiTensorHandle_t,
                               diopiConstTensorHandle_t, const int64_t *);

static void fold(KernelCall &call, FoldOp op, const char *op_name, PD_Tensor *x,
                 const std::vector<int64_t> &dims, PD_Tensor *out) {
  if (dims.size() > (size_t)BP_OPS_MAX_DIMS)
    call.fail("dims: %zu dims, at most %d", dims.size(), (int)BP_OPS_MAX_DIMS);
  int64_t d[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS], shape[BP_OPS_MAX_DIMS];
  for (size_t k = 0; k < dims.size(); k++)
    d[k] = dims[k];
  int ndim = kernel_kept_shape(call, x, d, (int)dims.size(), false, kept);
  kernel_dims(x, shape);
  diopiTensorHandle_t whole = call.alloc(out, -1, NULL, PD_DataType::BOOL);
  if (dims.empty()) {
    call.check(op(call.diopi(), whole, call.wrap(x), NULL), op_name);
    return;
  }
  diopiConstTensorHandle_t from = call.wrap(x);
  int last = -1;
  for (int k = 0; k < ndim; k++)
    if (kept[k] != shape[k])
      last = k;
  diopiTensorHandle_t result = call.wrap(out, ndim, kept);
  if (last < 0) {
    call.check(DIOPI(call, diopiCastDtype)(call.diopi(), result, from),
               "diopiCastDtype");
    return;
  }
  for (int k = 0; k <= last; k++) {
    if (kept[k] == shape[k])
      continue;
    shape[k] = 1;
    diopiTensorHandle_t to =
        k == last ? result : call.temp(diopi_dtype_bool, ndim, shape);
    int64_t dim = k;
    call.check(op(call.diopi(), to, from, &dim), op_name);
    from = to;
  }
}

template <typename T>
void AnyKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
               const std::vector<int64_t> &dims, bool keep_dim,
               phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "any");
  fold(call, DIOPI(call, diopiAny), "diopiAny", pd(x), dims, pd(out));
}

template <typename T>
void AllKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
               const std::vector<int64_t> &dims, bool keep_dim,
               phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "all");
  fold(call, DIOPI(call, diopiAll), "diopiAll", pd(x), dims, pd(out));
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(any, backplane, ALL_LAYOUT, bridge::AnyKernel, bool, float,
                    double, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(all, backplane, ALL_LAYOUT, bridge::AllKernel, bool, float,
                    double, int32_t, int64_t) {}
