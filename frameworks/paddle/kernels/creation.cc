/* full, full_like, fill, uniform (and uniform_raw, which a legacy-IR
 * static graph runs: then diag_num elements diag_step + 1 apart are set to
 * diag_val), gaussian, assign, cast, scale, div_scale. */
#include "kernel_call.h"
#include "strided_views.h"

namespace bridge {

template <typename T>
void FullKernel(const phi::Context &dev_ctx, const phi::IntArray &shape,
                const phi::Scalar &value, phi::DataType dtype,
                phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "full");
  int64_t dims[BP_OPS_MAX_DIMS];
  int ndim = kernel_int_array(shape, dims);
  diopiScalar_t v = kernel_scalar(value);
  call.check(DIOPI(call, diopiFill)(call.diopi(),
                                    call.alloc(pd(out), ndim, dims, dtype), &v),
             "diopiFill");
}

template <typename T>
void FullLikeKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::Scalar &value, phi::DataType dtype,
                    phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "full_like");
  diopiScalar_t v = kernel_scalar(value);
  call.check(DIOPI(call, diopiFill)(call.diopi(), call.alloc(pd(out)), &v),
             "diopiFill");
}

/* out = value everywhere; out may be a strided view (Paddle fills a
 * slice's gradient so), written through its strides. */
template <typename T>
void FillKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                const phi::Scalar &value, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "fill");
  diopiScalar_t v = kernel_scalar(value);
  call.alloc(pd(out));
  int64_t reversed[BP_OPS_MAX_DIMS];
  int nreversed; /* a fill needs no order */
  call.check(
      DIOPI(call, diopiFill)(
          call.diopi(), positive_view(call, pd(out), reversed, &nreversed), &v),
      "diopiFill");
}

template <typename T>
void UniformKernel(const phi::Context &dev_ctx, const phi::IntArray &shape,
                   phi::DataType dtype, const phi::Scalar &min,
                   const phi::Scalar &max, int seed, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "uniform");
  int64_t dims[BP_OPS_MAX_DIMS];
  int ndim = kernel_int_array(shape, dims);
  diopiTensorHandle_t o = call.alloc(pd(out), ndim, dims, dtype);
  diopiGeneratorHandle_t g = kernel_generator(call, seed);
  diopiError_t err = DIOPI(call, diopiUniformInp)(
      call.diopi(), o, min.to<double>(), max.to<double>(), g);
  bp_ops_generator_destroy(g);
  call.check(err, "diopiUniformInp");
}

template <typename T>
void UniformRawKernel(const phi::Context &dev_ctx, const phi::IntArray &shape,
                      phi::DataType dtype, const phi::Scalar &min,
                      const phi::Scalar &max, int seed, int diag_num,
                      int diag_step, float diag_val, phi::DenseTensor *out) {
  UniformKernel<T>(dev_ctx, shape, dtype, min, max, seed, out);
  if (diag_num <= 0)
    return;
  KernelCall call(dev_ctx, "uniform_raw");
  int64_t count = diag_num, step = (int64_t)diag_step + 1;
  if ((count - 1) * step >= kernel_numel(pd(out)))
    call.fail("diag_num %d, diag_step %d: past the %lld elements", diag_num,
              diag_step, (long long)kernel_numel(pd(out)));
  PD_Status status = C_SUCCESS;
  diopiTensorHandle_t diag = call.wrap_data(
      PD_TensorGetDataPointer(pd(out), &status),
      kernel_diopi_dtype(kernel_dtype(pd(out))), 1, &count, &step);
  diopiScalar_t value = kernel_scalar((double)diag_val);
  call.check(DIOPI(call, diopiFill)(call.diopi(), diag, &value), "diopiFill");
}

template <typename T>
void GaussianKernel(const phi::Context &dev_ctx, const phi::IntArray &shape,
                    float mean, float std, int seed, phi::DataType dtype,
                    phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "gaussian");
  int64_t dims[BP_OPS_MAX_DIMS];
  int ndim = kernel_int_array(shape, dims);
  diopiTensorHandle_t o = call.alloc(pd(out), ndim, dims, dtype);
  diopiGeneratorHandle_t g = kernel_generator(call, seed);
  diopiError_t err = DIOPI(call, diopiNormalInp)(call.diopi(), o, mean, std, g);
  bp_ops_generator_destroy(g);
  call.check(err, "diopiNormalInp");
}

template <typename T>
void AssignKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "assign", kernel_dtype_of<T>());
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(), in, call.alloc(pd(out))),
             "diopiCopyInp");
}

template <typename T>
void CastKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                phi::DataType out_dtype, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "cast");
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiCastDtype)(
                 call.diopi(), call.alloc(pd(out), -1, NULL, out_dtype), in),
             "diopiCastDtype");
}

/* out = x * scale + bias, or (x + bias) * scale. */
template <typename T>
void ScaleKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                 const phi::Scalar &scale, const phi::Scalar &bias,
                 bool bias_after_scale, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "scale", kernel_dtype_of<T>());
  diopiScalar_t s = kernel_scalar(scale), b = kernel_scalar(bias);
  diopiScalar_t one = kernel_scalar(1.0);
  diopiTensorHandle_t in = call.wrap(pd(x)), o = call.alloc(pd(out));
  if (bias_after_scale) {
    call.check(DIOPI(call, diopiMulScalar)(call.diopi(), o, in, &s),
               "diopiMulScalar");
    call.check(DIOPI(call, diopiAddInpScalar)(call.diopi(), o, &b, &one),
               "diopiAddInpScalar");
  } else {
    call.check(DIOPI(call, diopiAddScalar)(call.diopi(), o, in, &b, &one),
               "diopiAddScalar");
    call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), o, &s),
               "diopiMulInpScalar");
  }
}

/* out = x / scale (a tensor divided by a Python number). */
template <typename T>
void DivScaleKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::Scalar &scale, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "div_scale", kernel_dtype_of<T>());
  diopiScalar_t s = kernel_scalar(scale);
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiDivScalar)(call.diopi(), call.alloc(pd(out)), in,
                                         &s, RoundModeNone),
             "diopiDivScalar");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(full, backplane, ALL_LAYOUT, bridge::FullKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(full_like, backplane, ALL_LAYOUT, bridge::FullLikeKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(fill, backplane, ALL_LAYOUT, bridge::FillKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(uniform, backplane, ALL_LAYOUT, bridge::UniformKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(uniform_raw, backplane, ALL_LAYOUT,
                    bridge::UniformRawKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(gaussian, backplane, ALL_LAYOUT, bridge::GaussianKernel,
                    float) {}
PD_BUILD_PHI_KERNEL(assign, backplane, ALL_LAYOUT, bridge::AssignKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(cast, backplane, ALL_LAYOUT, bridge::CastKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(scale, backplane, ALL_LAYOUT, bridge::ScaleKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(div_scale, backplane, ALL_LAYOUT, bridge::DivScaleKernel,
                    BRIDGE_FLOAT_DTYPES) {}
