/* contiguous, strided_copy, concat, transpose (+ grad) and argmax:
 * diopiCopyInp, diopiCat, diopiPermute and diopiArgmax. (Reshape, flatten,
 * squeeze, unsqueeze, slice and transpose of a tensor are strided views that
 * Paddle makes itself; `contiguous` packs one.) */
#include "kernel_call.h"
#include "strided_views.h"

namespace bridge {

/* out = input packed row-major; input's data pointer already includes its
 * offset, its strides are in elements (negative ones walked through a
 * flip). */
template <typename T>
void ContiguousKernel(const phi::Context &dev_ctx,
                      const phi::DenseTensor &input, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "contiguous");
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(input), shape);
  int64_t reversed[BP_OPS_MAX_DIMS];
  int nreversed;
  diopiTensorHandle_t src =
      positive_view(call, pd(input), reversed, &nreversed);
  copy_views(call, call.alloc(pd(out), ndim, shape), NULL, 0, src, reversed,
             nreversed);
}

/* out = input, written through out's own view: Paddle gives the view's
 * dims, strides (in elements) and byte offset into out's memory (a slice
 * of a larger tensor, for a slice's gradient). */
template <typename T>
void StridedCopyKernel(const phi::Context &dev_ctx,
                       const phi::DenseTensor &input,
                       const std::vector<int64_t> &dims,
                       const std::vector<int64_t> &out_stride, int64_t offset,
                       phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "strided_copy");
  PD_Tensor *o = pd(out);
  PD_Status status = C_SUCCESS;
  if (dims.size() != out_stride.size() || dims.size() > (size_t)BP_OPS_MAX_DIMS)
    call.fail("%zu dims and %zu strides (at most %d)", dims.size(),
              out_stride.size(), (int)BP_OPS_MAX_DIMS);
  int64_t numel = 1;
  for (int64_t d : dims)
    numel *= d;
  if (numel != kernel_numel(pd(input)))
    call.fail("the view holds %lld elements, the input %lld", (long long)numel,
              (long long)kernel_numel(pd(input)));
  PD_TensorSetDims(o, (int64_t)dims.size(), dims.data(), &status);
  PD_TensorSetStrides(o, (int64_t)out_stride.size(), out_stride.data(),
                      &status);
  PD_TensorSetOffset(o, offset, &status);
  if (!PD_TensorIsInitialized(o, &status))
    call.alloc(o);
  int64_t in_reversed[BP_OPS_MAX_DIMS], out_reversed[BP_OPS_MAX_DIMS];
  int in_n, out_n;
  diopiTensorHandle_t src = positive_view(call, pd(input), in_reversed, &in_n);
  diopiTensorHandle_t dst = positive_view(call, o, out_reversed, &out_n);
  copy_views(call, dst, out_reversed, out_n, src, in_reversed, in_n);
}

template <typename T>
void ConcatKernel(const phi::Context &dev_ctx,
                  const std::vector<const phi::DenseTensor *> &x,
                  const phi::Scalar &axis, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "concat", kernel_dtype_of<T>());
  if (x.size() > KERNEL_CALL_MAX_TENSORS - 1)
    call.fail("%zu inputs: at most %d are supported", x.size(),
              KERNEL_CALL_MAX_TENSORS - 1);
  diopiConstTensorHandle_t inputs[KERNEL_CALL_MAX_TENSORS];
  for (size_t i = 0; i < x.size(); i++)
    inputs[i] = call.wrap(pd(x[i]));
  call.check(DIOPI(call, diopiCat)(call.diopi(), call.alloc(pd(out)), inputs,
                                   (int64_t)x.size(), axis.to<int64_t>()),
             "diopiCat");
}

/* x_grad[i] = out_grad's slice of x[i] along axis: a strided view of
 * out_grad, copied. */
template <typename T>
void ConcatGradKernel(const phi::Context &dev_ctx,
                      const std::vector<const phi::DenseTensor *> &x,
                      const phi::DenseTensor &out_grad,
                      const phi::Scalar &axis_scalar,
                      std::vector<phi::DenseTensor *> x_grad) {
  KernelCall call(dev_ctx, "concat_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS], strides[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(out_grad), shape);
  int64_t axis = axis_scalar.to<int64_t>();
  if (axis < 0)
    axis += ndim;
  if (axis < 0 || axis >= ndim)
    call.fail("axis %lld out of range for rank %d",
              (long long)axis_scalar.to<int64_t>(), ndim);
  strides[ndim - 1] = 1;
  for (int d = ndim - 2; d >= 0; d--)
    strides[d] = strides[d + 1] * shape[d + 1];
  PD_Status status = C_SUCCESS;
  char *base =
      static_cast<char *>(PD_TensorGetDataPointer(pd(out_grad), &status));
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(out_grad)));
  size_t element = bp_ops_dtype_size(dtype);
  int64_t offset = 0;
  for (size_t i = 0; i < x.size() && i < x_grad.size(); i++) {
    int64_t part[BP_OPS_MAX_DIMS];
    kernel_dims(pd(x[i]), part);
    if (x_grad[i] != NULL) {
      diopiTensorHandle_t slice =
          call.wrap_data(base + (size_t)(offset * strides[axis]) * element,
                         dtype, ndim, part, strides);
      call.check(DIOPI(call, diopiCopyInp)(call.diopi(), slice,
                                           call.alloc(pd(x_grad[i]))),
                 "diopiCopyInp");
    }
    offset += part[axis];
  }
}

static size_t rank_of(KernelCall &call, const std::vector<int> &axis) {
  if (axis.size() > (size_t)BP_OPS_MAX_DIMS)
    call.fail("rank %zu: at most %d dims are supported", axis.size(),
              (int)BP_OPS_MAX_DIMS);
  return axis.size();
}

static void permute(KernelCall &call, PD_Tensor *x, const int64_t *dims,
                    size_t ndims, PD_Tensor *out) {
  diopiTensorHandle_t in = call.wrap(x);
  diopiSize_t order = {dims, (int64_t)ndims};
  call.check(
      DIOPI(call, diopiPermute)(call.diopi(), call.alloc(out), in, order),
      "diopiPermute");
}

template <typename T>
void TransposeKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const std::vector<int> &axis, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "transpose", kernel_dtype_of<T>());
  int64_t dims[BP_OPS_MAX_DIMS];
  size_t n = rank_of(call, axis);
  for (size_t i = 0; i < n; i++)
    dims[i] = axis[i] < 0 ? axis[i] + (int)n : axis[i];
  permute(call, pd(x), dims, n, pd(out));
}

/* x_grad = out_grad permuted by the inverse of `axis`. */
template <typename T>
void TransposeGradKernel(const phi::Context &dev_ctx,
                         const phi::DenseTensor &out_grad,
                         const std::vector<int> &axis,
                         phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "transpose_grad", kernel_dtype_of<T>());
  int64_t inverse[BP_OPS_MAX_DIMS];
  size_t n = rank_of(call, axis);
  for (size_t i = 0; i < n; i++)
    inverse[axis[i] < 0 ? axis[i] + (int)n : axis[i]] = (int64_t)i;
  permute(call, pd(out_grad), inverse, n, pd(x_grad));
}

template <typename T>
void ArgMaxKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  const phi::Scalar &axis, bool keepdims, bool flatten,
                  phi::DataType dtype, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "argmax");
  if (dtype != PD_DataType::INT64)
    call.fail("an index dtype other than int64 is not supported");
  int64_t dim = axis.to<int64_t>();
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiArgmax)(call.diopi(),
                                      call.alloc(pd(out), -1, NULL, dtype), in,
                                      flatten ? NULL : &dim, keepdims),
             "diopiArgmax");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(contiguous, backplane, ALL_LAYOUT, bridge::ContiguousKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(strided_copy, backplane, ALL_LAYOUT,
                    bridge::StridedCopyKernel, BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(concat, backplane, ALL_LAYOUT, bridge::ConcatKernel,
                    BRIDGE_FLOAT_DTYPES, int64_t) {}
PD_BUILD_PHI_KERNEL(concat_grad, backplane, ALL_LAYOUT,
                    bridge::ConcatGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(transpose, backplane, ALL_LAYOUT, bridge::TransposeKernel,
                    BRIDGE_FLOAT_DTYPES, int64_t) {}
PD_BUILD_PHI_KERNEL(transpose_grad, backplane, ALL_LAYOUT,
                    bridge::TransposeGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(argmax, backplane, ALL_LAYOUT, bridge::ArgMaxKernel,
                    float) {}
