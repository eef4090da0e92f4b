/* Kernels that move elements: tril_triu, tril, triu (diopiTril/diopiTriu,
 * their gradients the same op on out_grad), flip (diopiFlip; its own
 * gradient), roll (diopiRoll; the gradient rolls back), tile
 * (diopiRepeat; the gradient sums the tiles: out_grad viewed as [r0, s0,
 * r1, s1, ...] summed over the r dims by diopiSum). */
#include "kernel_call.h"

namespace bridge {

static void tril_or_triu(KernelCall &call, PD_Tensor *x, int diagonal,
                         bool lower, PD_Tensor *out) {
  diopiTensorHandle_t in = call.wrap(x), o = call.alloc(out);
  if (lower)
    call.check(DIOPI(call, diopiTril)(call.diopi(), o, in, diagonal),
               "diopiTril");
  else
    call.check(DIOPI(call, diopiTriu)(call.diopi(), o, in, diagonal),
               "diopiTriu");
}

template <typename T>
void TrilTriuKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    int diagonal, bool lower, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "tril_triu", kernel_dtype_of<T>());
  tril_or_triu(call, pd(x), diagonal, lower, pd(out));
}

template <typename T>
void TrilTriuGradKernel(const phi::Context &dev_ctx,
                        const phi::DenseTensor &out_grad, int diagonal,
                        bool lower, phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "tril_triu_grad", kernel_dtype_of<T>());
  tril_or_triu(call, pd(out_grad), diagonal, lower, pd(x_grad));
}

/* tril, triu and their gradients: Kernel<T>(dev_ctx, x, diagonal, out). */
#define TRIANGLE(Kernel, name, lower)                                          \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,          \
              int diagonal, phi::DenseTensor *out) {                           \
    KernelCall call(dev_ctx, name, kernel_dtype_of<T>());                      \
    tril_or_triu(call, pd(x), diagonal, lower, pd(out));                       \
  }

TRIANGLE(TrilKernel, "tril", true)
TRIANGLE(TriuKernel, "triu", false)
TRIANGLE(TrilGradKernel, "tril_grad", true)
TRIANGLE(TriuGradKernel, "triu_grad", false)

template <typename T>
void FlipKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                const std::vector<int> &axis, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "flip", kernel_dtype_of<T>());
  if (axis.size() > (size_t)BP_OPS_MAX_DIMS)
    call.fail("axis: %zu values, at most %d", axis.size(),
              (int)BP_OPS_MAX_DIMS);
  int64_t dims[BP_OPS_MAX_DIMS];
  for (size_t i = 0; i < axis.size(); i++)
    dims[i] = axis[i];
  diopiSize_t flip_dims = {dims, (int64_t)axis.size()};
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(
      DIOPI(call, diopiFlip)(call.diopi(), call.alloc(pd(out)), in, flip_dims),
      "diopiFlip");
}

/* out = x rolled by `shifts` (negated: rolled back) along `axis` (none:
 * over the flattened tensor, as Paddle rolls). */
static void roll(KernelCall &call, PD_Tensor *x, const phi::IntArray &shifts,
                 const std::vector<int64_t> &axis, bool back, PD_Tensor *out) {
  int64_t s[BP_OPS_MAX_DIMS], d[BP_OPS_MAX_DIMS];
  int nshifts = kernel_int_array(shifts, s);
  if (axis.size() > (size_t)BP_OPS_MAX_DIMS ||
      (!axis.empty() && axis.size() != (size_t)nshifts))
    call.fail("axis: %zu values for %d shifts (expected as many, or none)",
              axis.size(), nshifts);
  if (axis.empty() && nshifts != 1)
    call.fail("shifts: %d values without an axis (expected 1)", nshifts);
  for (int i = 0; i < nshifts; i++) {
    if (back)
      s[i] = -s[i];
    if (!axis.empty())
      d[i] = axis[i];
  }
  diopiSize_t shift = {s, nshifts}, dims = {d, (int64_t)axis.size()};
  diopiTensorHandle_t in = call.wrap(x);
  call.check(
      DIOPI(call, diopiRoll)(call.diopi(), call.alloc(out), in, shift, dims),
      "diopiRoll");
}

template <typename T>
void RollKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                const phi::IntArray &shifts, const std::vector<int64_t> &axis,
                phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "roll", kernel_dtype_of<T>());
  roll(call, pd(x), shifts, axis, false, pd(out));
}

template <typename T>
void RollGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &,
                    const phi::DenseTensor &out_grad,
                    const phi::IntArray &shifts,
                    const std::vector<int64_t> &axis,
                    phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "roll_grad", kernel_dtype_of<T>());
  roll(call, pd(out_grad), shifts, axis, true, pd(x_grad));
}

/* Paddle's repeat_times and x's shape brought to one rank (the shorter
 * padded with leading ones) into `repeats` and `shape`; returns it. */
static int tile_shapes(KernelCall &call, PD_Tensor *x,
                       const phi::IntArray &repeat_times, int64_t *repeats,
                       int64_t *shape) {
  int64_t r[BP_OPS_MAX_DIMS], s[BP_OPS_MAX_DIMS];
  int nr = kernel_int_array(repeat_times, r), ns = kernel_dims(x, s);
  int ndim = nr > ns ? nr : ns;
  for (int d = 0; d < ndim; d++) {
    repeats[d] = d < ndim - nr ? 1 : r[d - (ndim - nr)];
    shape[d] = d < ndim - ns ? 1 : s[d - (ndim - ns)];
    if (repeats[d] < 1)
      call.fail("repeat_times: expected values >= 1, got %lld at %d",
                (long long)repeats[d], d);
  }
  return ndim;
}

template <typename T>
void TileKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                const phi::IntArray &repeat_times, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "tile", kernel_dtype_of<T>());
  int64_t repeats[BP_OPS_MAX_DIMS], shape[BP_OPS_MAX_DIMS];
  int ndim = tile_shapes(call, pd(x), repeat_times, repeats, shape);
  diopiSize_t size = {repeats, ndim};
  diopiTensorHandle_t in = call.wrap(pd(x), ndim, shape);
  call.check(
      DIOPI(call, diopiRepeat)(call.diopi(), call.alloc(pd(out)), in, size),
      "diopiRepeat");
}

template <typename T>
void TileGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &out_grad,
                    const phi::IntArray &repeat_times,
                    phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "tile_grad", kernel_dtype_of<T>());
  int64_t repeats[BP_OPS_MAX_DIMS], shape[BP_OPS_MAX_DIMS];
  int ndim = tile_shapes(call, pd(x), repeat_times, repeats, shape);
  if (2 * ndim > BP_OPS_MAX_DIMS)
    call.fail("x: %d dims, at most %d for the gradient", ndim,
              (int)BP_OPS_MAX_DIMS / 2);
  int64_t tiled[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS], sum[BP_OPS_MAX_DIMS];
  for (int d = 0; d < ndim; d++) {
    tiled[2 * d] = repeats[d];
    tiled[2 * d + 1] = kept[2 * d + 1] = shape[d];
    kept[2 * d] = 1;
    sum[d] = 2 * d;
  }
  diopiSize_t dims = {sum, ndim};
  call.alloc(pd(x_grad));
  call.check(
      DIOPI(call, diopiSum)(call.diopi(), call.wrap(pd(x_grad), 2 * ndim, kept),
                            call.wrap(pd(out_grad), 2 * ndim, tiled), dims),
      "diopiSum");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(tril_triu, backplane, ALL_LAYOUT, bridge::TrilTriuKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(tril_triu_grad, backplane, ALL_LAYOUT,
                    bridge::TrilTriuGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(tril, backplane, ALL_LAYOUT, bridge::TrilKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(triu, backplane, ALL_LAYOUT, bridge::TriuKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(tril_grad, backplane, ALL_LAYOUT, bridge::TrilGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(triu_grad, backplane, ALL_LAYOUT, bridge::TriuGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(flip, backplane, ALL_LAYOUT, bridge::FlipKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(roll, backplane, ALL_LAYOUT, bridge::RollKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(roll_grad, backplane, ALL_LAYOUT, bridge::RollGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(tile, backplane, ALL_LAYOUT, bridge::TileKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(tile_grad, backplane, ALL_LAYOUT, bridge::TileGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
