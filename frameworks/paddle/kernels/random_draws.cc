/* randint, randperm, bernoulli and multinomial, drawn on the device from a
 * generator seeded by the device context's (so paddle.seed holds), as
 * uniform and gaussian are: diopiRandomInp (integers in [low, high)),
 * diopiRandperm, diopiBernoulli (1 with probability x), diopiMultinomial
 * (int64 category numbers of rows of weights). */
#include "kernel_call.h"

namespace bridge {

template <typename T>
void RandintKernel(const phi::Context &dev_ctx, int low, int high,
                   const phi::IntArray &shape, phi::DataType dtype,
                   phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "randint");
  if (low >= high)
    call.fail("low %d, high %d: expected low < high", low, high);
  int64_t dims[BP_OPS_MAX_DIMS], to = high;
  int ndim = kernel_int_array(shape, dims);
  diopiTensorHandle_t o = call.alloc(pd(out), ndim, dims, dtype);
  diopiGeneratorHandle_t g = kernel_generator(call, 0);
  diopiError_t err = DIOPI(call, diopiRandomInp)(call.diopi(), o, low, &to, g);
  bp_ops_generator_destroy(g);
  call.check(err, "diopiRandomInp");
}

template <typename T>
void RandpermKernel(const phi::Context &dev_ctx, int n, phi::DataType dtype,
                    phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "randperm");
  int64_t count = n;
  diopiTensorHandle_t o = call.alloc(pd(out), 1, &count, dtype);
  diopiGeneratorHandle_t g = kernel_generator(call, 0);
  diopiError_t err = DIOPI(call, diopiRandperm)(call.diopi(), o, count, g);
  bp_ops_generator_destroy(g);
  call.check(err, "diopiRandperm");
}

template <typename T>
void BernoulliKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "bernoulli", kernel_dtype_of<T>());
  diopiTensorHandle_t in = call.wrap(pd(x)), o = call.alloc(pd(out));
  diopiGeneratorHandle_t g = kernel_generator(call, 0);
  diopiError_t err = DIOPI(call, diopiBernoulli)(call.diopi(), o, in, g);
  bp_ops_generator_destroy(g);
  call.check(err, "diopiBernoulli");
}

template <typename T>
void MultinomialKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                       const phi::Scalar &num_samples, bool replacement,
                       phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "multinomial");
  diopiTensorHandle_t in = call.wrap(pd(x));
  diopiTensorHandle_t o = call.alloc(pd(out), -1, NULL, PD_DataType::INT64);
  diopiGeneratorHandle_t g = kernel_generator(call, 0);
  diopiError_t err = DIOPI(call, diopiMultinomial)(
      call.diopi(), o, in, num_samples.to<int64_t>(), replacement, g);
  bp_ops_generator_destroy(g);
  call.check(err, "diopiMultinomial");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(randint, backplane, ALL_LAYOUT, bridge::RandintKernel,
                    int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(randperm, backplane, ALL_LAYOUT, bridge::RandpermKernel,
                    float, double, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(bernoulli, backplane, ALL_LAYOUT, bridge::BernoulliKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(multinomial, backplane, ALL_LAYOUT,
                    bridge::MultinomialKernel, BRIDGE_FLOAT_DTYPES) {}
