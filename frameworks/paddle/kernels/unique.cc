/* unique: the distinct elements of x (or its distinct slices along one
 * axis), sorted (diopiUnique, which sizes its outputs), with Paddle's
 * optional outputs in its index dtype: the inverse (`index`: each element's
 * or slice's position in out), the counts, and the first occurrences
 * (`indices`): positions written in reverse order at their inverse
 * (diopiIndexPutInp without accumulating, so the first one is written
 * last). */
#include "kernel_call.h"

namespace bridge {

template <typename T>
void UniqueKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  bool return_index, bool return_inverse, bool return_counts,
                  const std::vector<int> &axis, phi::DataType dtype,
                  phi::DenseTensor *out, phi::DenseTensor *indices,
                  phi::DenseTensor *index, phi::DenseTensor *counts) {
  KernelCall call(dev_ctx, "unique");
  int64_t shape[BP_OPS_MAX_DIMS], dim = 0;
  int ndim = kernel_dims(pd(x), shape);
  if (axis.size() > 1)
    call.fail("axis: one dim or none (every element), got %zu", axis.size());
  if (axis.size() == 1) {
    if (axis[0] < -ndim || axis[0] >= ndim)
      call.fail("axis: expected -%d to %d, got %d", ndim, ndim - 1, axis[0]);
    dim = axis[0] < 0 ? axis[0] + ndim : axis[0];
  }
  const int64_t *along = axis.empty() ? NULL : &dim;
  int64_t n = along ? shape[dim] : kernel_numel(pd(x));
  /* diopiUnique's inverse: x's shape, or the axis's length */
  diopiTensorHandle_t inverse = NULL;
  if (return_inverse || return_index)
    inverse = along ? call.temp(diopi_dtype_int64, 1, &n)
                    : call.temp(diopi_dtype_int64, ndim, shape);
  diopiTensorHandle_t found = NULL, how_many = NULL;
  call.check(DIOPI(call, diopiUnique)(call.diopi(), &found, call.wrap(pd(x)),
                                      along, true, return_counts, inverse,
                                      return_counts ? &how_many : NULL),
             "diopiUnique");
  kernel_copy_sized(call, found, pd(out), kernel_dtype_of<T>());
  if (return_counts)
    kernel_copy_sized(call, how_many, pd(counts), dtype);
  if (inverse == NULL)
    return;
  void *data = NULL;
  diopiGetTensorData(inverse, &data);
  diopiTensorHandle_t positions =
      call.wrap_data(data, diopi_dtype_int64, 1, &n, NULL);
  if (return_inverse)
    call.check(DIOPI(call, diopiCastDtype)(call.diopi(),
                                           call.alloc(pd(index), 1, &n, dtype),
                                           positions),
               "diopiCastDtype");
  if (!return_index)
    return;
  diopiSize_t size;
  diopiGetTensorShape(found, &size);
  int64_t distinct = along ? size.data[dim] : size.data[0], zero = 0;
  diopiTensorHandle_t first = call.temp(diopi_dtype_int64, 1, &distinct);
  diopiTensorHandle_t places = call.temp(diopi_dtype_int64, 1, &n);
  diopiTensorHandle_t backwards = call.temp(diopi_dtype_int64, 1, &n);
  diopiTensorHandle_t groups = call.temp(diopi_dtype_int64, 1, &n);
  diopiScalar_t from = kernel_scalar(0.0), to = kernel_scalar((double)n),
                step = kernel_scalar(1.0);
  diopiSize_t flip = {&zero, 1};
  if (n > 0) {
    call.check(
        DIOPI(call, diopiArange)(call.diopi(), places, &from, &to, &step),
        "diopiArange");
    call.check(DIOPI(call, diopiFlip)(call.diopi(), backwards, places, flip),
               "diopiFlip");
    call.check(DIOPI(call, diopiFlip)(call.diopi(), groups, positions, flip),
               "diopiFlip");
    diopiConstTensorHandle_t at = groups;
    call.check(DIOPI(call, diopiIndexPutInp)(call.diopi(), first, backwards,
                                             &at, 1, false),
               "diopiIndexPutInp");
  }
  call.check(
      DIOPI(call, diopiCastDtype)(
          call.diopi(), call.alloc(pd(indices), 1, &distinct, dtype), first),
      "diopiCastDtype");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(unique, backplane, ALL_LAYOUT, bridge::UniqueKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
