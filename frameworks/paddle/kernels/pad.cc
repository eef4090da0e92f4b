/* pad3d (NCDHW; F.pad of a 4-D tensor runs it on a unit depth) and its
 * gradient. Forward: diopiPad, Paddle's paddings (left, right, top,
 * bottom, front, back) being DIOPI's order, modes constant, reflect,
 * replicate and circular alike. Backward, for every mode: the padding of
 * x's element numbers (diopiArange, then diopiPad in the same mode; the
 * constant border numbered numel, one spare slot) says where each output
 * element came from, and diopiIndexPutInp accumulates out_grad there. */
#include "kernel_call.h"

namespace bridge {

struct pad_args {
  int64_t pads[6];
  int64_t x_shape[BP_OPS_MAX_DIMS];
  int ndim;
};

static pad_args pad_arguments(KernelCall &call, PD_Tensor *x,
                              const phi::IntArray &paddings,
                              const std::string &mode,
                              const std::string &data_format) {
  pad_args a;
  if (data_format != "NCDHW" && data_format != "AnyLayout")
    call.fail("data_format %s: only NCDHW is supported", data_format.c_str());
  if (mode != "constant" && mode != "reflect" && mode != "replicate" &&
      mode != "circular")
    call.fail("mode %s: expected constant, reflect, replicate or circular",
              mode.c_str());
  if (kernel_int_array(paddings, a.pads) != 6)
    call.fail("paddings: expected 6 values");
  a.ndim = kernel_dims(x, a.x_shape);
  return a;
}

template <typename T>
void Pad3dKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                 const phi::IntArray &paddings, const std::string &mode,
                 double pad_value, const std::string &data_format,
                 phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "pad3d", kernel_dtype_of<T>());
  pad_args a = pad_arguments(call, pd(x), paddings, mode, data_format);
  diopiSize_t pad = {a.pads, 6};
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiPad)(call.diopi(), call.alloc(pd(out)), in, pad,
                                   mode.c_str(), &pad_value),
             "diopiPad");
}

template <typename T>
void Pad3dGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const phi::DenseTensor &out_grad,
                     const phi::IntArray &paddings, const std::string &mode,
                     double pad_value, const std::string &data_format,
                     phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "pad3d_grad", kernel_dtype_of<T>());
  pad_args a = pad_arguments(call, pd(x), paddings, mode, data_format);
  int64_t numel = kernel_numel(pd(x)), slots = numel + 1;
  int64_t out_shape[BP_OPS_MAX_DIMS], out_numel = kernel_numel(pd(out_grad));
  int out_ndim = kernel_dims(pd(out_grad), out_shape);
  /* numbers[i] = i, seen with x's shape; source = it padded (border:
   * numel). */
  diopiTensorHandle_t numbers = call.temp(diopi_dtype_int64, 1, &numel);
  diopiTensorHandle_t source =
      call.temp(diopi_dtype_int64, out_ndim, out_shape);
  diopiScalar_t zero = kernel_scalar(0.0), end = kernel_scalar((double)numel),
                one = kernel_scalar(1.0);
  if (numel > 0)
    call.check(
        DIOPI(call, diopiArange)(call.diopi(), numbers, &zero, &end, &one),
        "diopiArange");
  void *data = NULL;
  diopiGetTensorData(numbers, &data);
  diopiSize_t pad = {a.pads, 6};
  double border = (double)numel;
  call.check(DIOPI(call, diopiPad)(call.diopi(), source,
                                   call.wrap_data(data, diopi_dtype_int64,
                                                  a.ndim, a.x_shape, NULL),
                                   pad, mode.c_str(), &border),
             "diopiPad");
  /* sums[source[j]] += out_grad[j] over the flattened tensors. */
  diopiTensorHandle_t sums =
      call.temp(kernel_diopi_dtype(kernel_dtype(pd(x))), 1, &slots);
  call.check(DIOPI(call, diopiFill)(call.diopi(), sums, &zero), "diopiFill");
  diopiGetTensorData(source, &data);
  diopiConstTensorHandle_t index =
      call.wrap_data(data, diopi_dtype_int64, 1, &out_numel, NULL);
  call.check(DIOPI(call, diopiIndexPutInp)(
                 call.diopi(), sums, call.wrap(pd(out_grad), 1, &out_numel),
                 &index, 1, true),
             "diopiIndexPutInp");
  diopiGetTensorData(sums, &data);
  call.alloc(pd(x_grad));
  call.check(DIOPI(call, diopiCopyInp)(
                 call.diopi(),
                 call.wrap_data(data, kernel_diopi_dtype(kernel_dtype(pd(x))),
                                1, &numel, NULL),
                 call.wrap(pd(x_grad), 1, &numel)),
             "diopiCopyInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(pad3d, backplane, ALL_LAYOUT, bridge::Pad3dKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(pad3d_grad, backplane, ALL_LAYOUT, bridge::Pad3dGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
