/* Reads by index and their gradients: embedding (diopiEmbedding; rows of
 * padding_idx zeroed by diopiMaskedFillInpScalar, as Paddle's forward does),
 * gather and index_select along one axis (diopiIndexSelect/Backward, a 0-D
 * index dropping the axis), masked_select and nonzero (diopiMaskedSelect,
 * diopiNonzero: the op library sizes their outputs; then copied into
 * Paddle's) and one_hot
 * (diopiOneHot into Paddle's float32 output). */
#include "kernel_call.h"

namespace bridge {

/* Paddle's padding_idx when the embedding has none. */
static const int64_t EMBEDDING_NO_PADDING = -1;

template <typename T>
void EmbeddingKernel(const phi::Context &dev_ctx, const phi::DenseTensor &ids,
                     const phi::DenseTensor &weight, int64_t padding_idx,
                     phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "embedding", kernel_dtype_of<T>());
  diopiTensorHandle_t w = call.wrap(pd(weight)), idx = call.wrap(pd(ids));
  diopiTensorHandle_t o = call.alloc(pd(out));
  call.check(DIOPI(call, diopiEmbedding)(call.diopi(), o, w, idx, padding_idx,
                                         false, false),
             "diopiEmbedding");
  if (padding_idx == EMBEDDING_NO_PADDING)
    return;
  /* out[..., :] = 0 where ids == padding_idx: the mask gets a trailing
   * unit dim that broadcasts over the embedding dim. */
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(ids), shape);
  if (ndim + 1 > BP_OPS_MAX_DIMS)
    call.fail("ids: %d dims, at most %d", ndim, (int)BP_OPS_MAX_DIMS - 1);
  shape[ndim] = 1;
  diopiTensorHandle_t mask = call.temp(diopi_dtype_bool, ndim + 1, shape);
  diopiScalar_t pad = kernel_scalar((double)padding_idx),
                zero = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiEqScalar)(
                 call.diopi(), mask, call.wrap(pd(ids), ndim + 1, shape), &pad),
             "diopiEqScalar");
  call.check(
      DIOPI(call, diopiMaskedFillInpScalar)(call.diopi(), o, mask, &zero),
      "diopiMaskedFillInpScalar");
}

/* weight_grad = out_grad's rows summed into the rows ids name, none into
 * padding_idx. */
template <typename T>
void EmbeddingGradKernel(const phi::Context &dev_ctx,
                         const phi::DenseTensor &ids,
                         const phi::DenseTensor &weight,
                         const phi::DenseTensor &out_grad, int64_t padding_idx,
                         phi::DenseTensor *weight_grad) {
  KernelCall call(dev_ctx, "embedding_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  kernel_dims(pd(weight), shape);
  diopiTensorHandle_t g = call.wrap(pd(out_grad)), idx = call.wrap(pd(ids));
  call.check(DIOPI(call, diopiEmbeddingBackward)(
                 call.diopi(), call.alloc(pd(weight_grad)), g, idx, shape[0],
                 padding_idx, false, false),
             "diopiEmbeddingBackward");
}

/* `axis` of x's rank (negative from the end); fails out of range. */
static int64_t axis_of(KernelCall &call, PD_Tensor *x, int64_t axis) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, shape);
  if (axis < -ndim || axis >= (ndim ? ndim : 1))
    call.fail("axis %lld: out of range for a %d-D x", (long long)axis, ndim);
  return axis < 0 ? axis + ndim : axis;
}

/* out = x's slices along `axis` at index. A 0-D index selects one slice
 * and drops the axis (out then wrapped with the axis put back). */
static void index_select(KernelCall &call, PD_Tensor *x, PD_Tensor *index,
                         int64_t axis, PD_Tensor *out) {
  axis = axis_of(call, x, axis);
  int64_t one = 1, shape[BP_OPS_MAX_DIMS], index_shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, shape);
  bool scalar_index = kernel_dims(index, index_shape) == 0;
  diopiTensorHandle_t idx =
      scalar_index ? call.wrap(index, 1, &one) : call.wrap(index);
  diopiTensorHandle_t o = call.alloc(out);
  if (scalar_index) {
    shape[axis] = 1;
    o = call.wrap(out, ndim, shape);
  }
  call.check(
      DIOPI(call, diopiIndexSelect)(call.diopi(), o, call.wrap(x), axis, idx),
      "diopiIndexSelect");
}

/* x_grad = zeros of x's shape with out_grad's slices added at index. */
static void index_select_grad(KernelCall &call, PD_Tensor *x, PD_Tensor *index,
                              PD_Tensor *out_grad, int64_t axis,
                              PD_Tensor *x_grad) {
  axis = axis_of(call, x, axis);
  int64_t one = 1, shape[BP_OPS_MAX_DIMS], gshape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, shape);
  bool scalar_index = kernel_dims(index, gshape) == 0;
  diopiTensorHandle_t idx =
      scalar_index ? call.wrap(index, 1, &one) : call.wrap(index);
  diopiTensorHandle_t g = call.wrap(out_grad);
  if (scalar_index) {
    kernel_dims(x, gshape);
    gshape[axis] = 1;
    g = call.wrap(out_grad, ndim, gshape);
  }
  diopiSize_t sizes = {shape, ndim};
  call.check(DIOPI(call, diopiIndexSelectBackward)(
                 call.diopi(), call.alloc(x_grad), g, sizes, axis, idx),
             "diopiIndexSelectBackward");
}

template <typename T>
void GatherKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  const phi::DenseTensor &index, const phi::Scalar &axis,
                  phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "gather", kernel_dtype_of<T>());
  index_select(call, pd(x), pd(index), axis.to<int64_t>(), pd(out));
}

template <typename T>
void GatherGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                      const phi::DenseTensor &index,
                      const phi::DenseTensor &out_grad, const phi::Scalar &axis,
                      phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "gather_grad", kernel_dtype_of<T>());
  index_select_grad(call, pd(x), pd(index), pd(out_grad), axis.to<int64_t>(),
                    pd(x_grad));
}

template <typename T>
void IndexSelectKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                       const phi::DenseTensor &index, int dim,
                       phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "index_select", kernel_dtype_of<T>());
  index_select(call, pd(x), pd(index), dim, pd(out));
}

template <typename T>
void IndexSelectGradKernel(const phi::Context &dev_ctx,
                           const phi::DenseTensor &x,
                           const phi::DenseTensor &index,
                           const phi::DenseTensor &out_grad, int dim,
                           phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "index_select_grad", kernel_dtype_of<T>());
  index_select_grad(call, pd(x), pd(index), pd(out_grad), dim, pd(x_grad));
}

/* out = x's elements where mask (broadcast against x) holds, in order. */
template <typename T>
void MaskedSelectKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                        const phi::DenseTensor &mask, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "masked_select", kernel_dtype_of<T>());
  diopiTensorHandle_t selected = NULL;
  call.check(DIOPI(call, diopiMaskedSelect)(call.diopi(), &selected,
                                            call.wrap(pd(x)),
                                            call.wrap(pd(mask))),
             "diopiMaskedSelect");
  kernel_copy_sized(call, selected, pd(out), PD_DataType::UNDEFINED);
}

/* out = the int64 coordinates [count, rank] of condition's nonzeros. */
template <typename T>
void NonzeroKernel(const phi::Context &dev_ctx,
                   const phi::DenseTensor &condition, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "nonzero");
  diopiTensorHandle_t found = NULL;
  call.check(
      DIOPI(call, diopiNonzero)(call.diopi(), &found, call.wrap(pd(condition))),
      "diopiNonzero");
  kernel_copy_sized(call, found, pd(out), PD_DataType::INT64);
}

template <typename T>
void MaskedSelectGradKernel(const phi::Context &dev_ctx,
                            const phi::DenseTensor &x,
                            const phi::DenseTensor &mask,
                            const phi::DenseTensor &out_grad,
                            phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "masked_select_grad", kernel_dtype_of<T>());
  /* Paddle keeps x's shape but not its data (no_need_buffer): the op reads
   * only the shape, given by scratch of that shape. */
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(x), shape);
  diopiTensorHandle_t g = call.wrap(pd(out_grad)),
                      in = call.temp(kernel_diopi_dtype(kernel_dtype(pd(x))),
                                     ndim, shape);
  call.check(DIOPI(call, diopiMaskedSelectBackward)(call.diopi(),
                                                    call.alloc(pd(x_grad)), g,
                                                    in, call.wrap(pd(mask))),
             "diopiMaskedSelectBackward");
}

/* out (float32, Paddle's dtype of one_hot) = 1 at each index's class. */
template <typename T>
void OneHotKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  const phi::Scalar &num_classes, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "one_hot");
  int64_t classes = num_classes.to<int64_t>();
  if (classes < 1)
    call.fail("num_classes: expected >= 1, got %lld", (long long)classes);
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(x), shape);
  if (ndim + 1 > BP_OPS_MAX_DIMS)
    call.fail("x: %d dims, at most %d", ndim, (int)BP_OPS_MAX_DIMS - 1);
  shape[ndim] = classes;
  diopiTensorHandle_t o =
      call.alloc(pd(out), ndim + 1, shape, PD_DataType::FLOAT32);
  call.check(
      DIOPI(call, diopiOneHot)(call.diopi(), o, call.wrap(pd(x)), classes),
      "diopiOneHot");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(embedding, backplane, ALL_LAYOUT, bridge::EmbeddingKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(embedding_grad, backplane, ALL_LAYOUT,
                    bridge::EmbeddingGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(gather, backplane, ALL_LAYOUT, bridge::GatherKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(gather_grad, backplane, ALL_LAYOUT,
                    bridge::GatherGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(index_select, backplane, ALL_LAYOUT,
                    bridge::IndexSelectKernel, BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(index_select_grad, backplane, ALL_LAYOUT,
                    bridge::IndexSelectGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(masked_select, backplane, ALL_LAYOUT,
                    bridge::MaskedSelectKernel, BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(masked_select_grad, backplane, ALL_LAYOUT,
                    bridge::MaskedSelectGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(one_hot, backplane, ALL_LAYOUT, bridge::OneHotKernel,
                    int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(nonzero, backplane, ALL_LAYOUT, bridge::NonzeroKernel,
                    BRIDGE_ANY_DTYPE) {}
