/* pixel_shuffle and its gradient: x [N, C r^2, H, W] (NCHW) seen as
 * [N, C, r, r, H, W] becomes out [N, C, H r, W r] seen as [N, C, H, r, W, r]
 * by one diopiPermute; NHWC's [N, H, W, C, r, r] to [N, H, r, W, r, C] is
 * the same permutation. The gradient permutes back. */
#include <string>

#include "kernel_call.h"

namespace bridge {

/* out's dims from the 6 of x, and x's from out's. */
static const int64_t SHUFFLE[6] = {0, 1, 4, 2, 5, 3};
static const int64_t UNSHUFFLE[6] = {0, 1, 3, 5, 2, 4};

/* x's dims as 6: NCHW [N, C, r, r, H, W]; NHWC [N, H, W, C, r, r]. */
static void shuffle_dims(KernelCall &call, PD_Tensor *x, int r,
                         const std::string &data_format, int64_t *in6,
                         int64_t *out6) {
  int64_t s[BP_OPS_MAX_DIMS];
  if (kernel_dims(x, s) != 4)
    call.fail("expected a 4-D x");
  bool nchw = data_format == "NCHW";
  if (!nchw && data_format != "NHWC")
    call.fail("data_format %s: expected NCHW or NHWC", data_format.c_str());
  int64_t rr = (int64_t)r * r, c = nchw ? s[1] : s[3];
  if (r < 1 || c % rr != 0)
    call.fail("upscale_factor %d: channels %lld are not a multiple of its "
              "square",
              r, (long long)c);
  int64_t n = s[0], h = nchw ? s[2] : s[1], w = nchw ? s[3] : s[2];
  int64_t nchw6[6] = {n, c / rr, r, r, h, w},
          nhwc6[6] = {n, h, w, c / rr, r, r};
  const int64_t *src = nchw ? nchw6 : nhwc6;
  for (int d = 0; d < 6; d++) {
    in6[d] = src[d];
    out6[d] = src[SHUFFLE[d]];
  }
}

template <typename T>
void PixelShuffleKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                        int upscale_factor, const std::string &data_format,
                        phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "pixel_shuffle", kernel_dtype_of<T>());
  int64_t in6[6], out6[6];
  shuffle_dims(call, pd(x), upscale_factor, data_format, in6, out6);
  call.alloc(pd(out));
  diopiSize_t dims = {SHUFFLE, 6};
  call.check(DIOPI(call, diopiPermute)(call.diopi(),
                                       call.wrap(pd(out), 6, out6),
                                       call.wrap(pd(x), 6, in6), dims),
             "diopiPermute");
}

template <typename T>
void PixelShuffleGradKernel(const phi::Context &dev_ctx,
                            const phi::DenseTensor &out_grad,
                            int upscale_factor, const std::string &data_format,
                            phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "pixel_shuffle_grad", kernel_dtype_of<T>());
  int64_t in6[6], out6[6];
  call.alloc(pd(x_grad));
  shuffle_dims(call, pd(x_grad), upscale_factor, data_format, in6, out6);
  diopiSize_t dims = {UNSHUFFLE, 6};
  call.check(DIOPI(call, diopiPermute)(call.diopi(),
                                       call.wrap(pd(x_grad), 6, in6),
                                       call.wrap(pd(out_grad), 6, out6), dims),
             "diopiPermute");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(pixel_shuffle, backplane, ALL_LAYOUT,
                    bridge::PixelShuffleKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(pixel_shuffle_grad, backplane, ALL_LAYOUT,
                    bridge::PixelShuffleGradKernel, BRIDGE_FLOAT_DTYPES) {}
