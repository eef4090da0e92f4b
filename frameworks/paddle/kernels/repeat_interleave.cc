/* repeat_interleave by a whole number and its gradient: x seen as
 * [before, n, 1, after] around dim `dim` expands into out seen as
 * [before, n, repeats, after] (diopiExpand); the gradient sums out_grad's
 * repeats (diopiSum over that dim). Paddle flattens x itself when no axis
 * is given. */
#include "kernel_call.h"

namespace bridge {

/* x's dims as [before, n, 1, after] into `x4`, out's as [before, n,
 * repeats, after] into `out4`. */
static void interleave_dims(KernelCall &call, PD_Tensor *x, int repeats,
                            int dim, int64_t *x4, int64_t *out4) {
  int64_t s[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, s);
  if (ndim == 0) {
    s[0] = 1;
    ndim = 1;
  }
  if (dim < -ndim || dim >= ndim)
    call.fail("dim: expected -%d to %d, got %d", ndim, ndim - 1, dim);
  if (repeats < 0)
    call.fail("repeats %d: expected 0 or more", repeats);
  int d = dim < 0 ? dim + ndim : dim;
  x4[0] = x4[3] = 1;
  for (int k = 0; k < d; k++)
    x4[0] *= s[k];
  for (int k = d + 1; k < ndim; k++)
    x4[3] *= s[k];
  x4[1] = s[d];
  x4[2] = 1;
  for (int k = 0; k < 4; k++)
    out4[k] = k == 2 ? repeats : x4[k];
}

template <typename T>
void RepeatInterleaveKernel(const phi::Context &dev_ctx,
                            const phi::DenseTensor &x, int repeats, int dim,
                            int64_t output_size, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "repeat_interleave", kernel_dtype_of<T>());
  int64_t x4[4], out4[4];
  interleave_dims(call, pd(x), repeats, dim, x4, out4);
  call.alloc(pd(out));
  if (kernel_numel(pd(out)) == 0)
    return;
  call.check(DIOPI(call, diopiExpand)(call.diopi(), call.wrap(pd(out), 4, out4),
                                      call.wrap(pd(x), 4, x4)),
             "diopiExpand");
}

template <typename T>
void RepeatInterleaveGradKernel(const phi::Context &dev_ctx,
                                const phi::DenseTensor &x,
                                const phi::DenseTensor &out_grad, int repeats,
                                int dim, int64_t output_size,
                                phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "repeat_interleave_grad", kernel_dtype_of<T>());
  int64_t x4[4], out4[4];
  interleave_dims(call, pd(x), repeats, dim, x4, out4);
  int64_t summed = 2, kept[3] = {x4[0], x4[1], x4[3]};
  diopiSize_t dims = {&summed, 1};
  call.alloc(pd(x_grad));
  call.check(DIOPI(call, diopiSum)(call.diopi(), call.wrap(pd(x_grad), 3, kept),
                                   call.wrap(pd(out_grad), 4, out4), dims),
             "diopiSum");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(repeat_interleave, backplane, ALL_LAYOUT,
                    bridge::RepeatInterleaveKernel, BRIDGE_FLOAT_DTYPES,
                    int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(repeat_interleave_grad, backplane, ALL_LAYOUT,
                    bridge::RepeatInterleaveGradKernel, BRIDGE_FLOAT_DTYPES) {}
