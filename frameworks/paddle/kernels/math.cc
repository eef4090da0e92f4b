/* abs, exp, sqrt, rsqrt, square, pow (tensor ** number), log, reciprocal,
 * sin, cos, erf, floor, round, clip and their gradients, and sign: the
 * DIOPI op of each forward; a gradient is dout times (or over) one factor
 * and a constant (for clip, whether x lies in [min, max]: Paddle passes the
 * gradient at the bounds too); floor's and round's are zero. */
#include "single_op.h"

namespace bridge {

BRIDGE_UNARY(AbsKernel, "abs", diopiAbs)
BRIDGE_UNARY(ExpKernel, "exp", diopiExp)
BRIDGE_UNARY(SqrtKernel, "sqrt", diopiSqrt)
BRIDGE_UNARY(SquareKernel, "square", diopiSquare)
BRIDGE_UNARY(RsqrtKernel, "rsqrt", diopiRsqrt)
BRIDGE_UNARY(LogKernel, "log", diopiLog)
BRIDGE_UNARY(ReciprocalKernel, "reciprocal", diopiReciprocal)
BRIDGE_UNARY(SinKernel, "sin", diopiSin)
BRIDGE_UNARY(CosKernel, "cos", diopiCos)
BRIDGE_UNARY(FloorKernel, "floor", diopiFloor)
BRIDGE_UNARY(ErfKernel, "erf", diopiErf)
BRIDGE_UNARY(SignKernel, "sign", diopiSign)

/* exp_grad(out, dout): dx = dout * out. */
BRIDGE_UNARY_GRAD(ExpGradKernel, "exp_grad", diopiMul)

/* dx = scale * dout * factor, or scale * dout / factor. */
static void scaled_grad(KernelCall &call, PD_Tensor *dout,
                        diopiConstTensorHandle_t factor, bool divide,
                        double scale, PD_Tensor *dx) {
  diopiTensorHandle_t g = call.wrap(dout), out = call.alloc(dx);
  if (divide)
    call.check(
        DIOPI(call, diopiDiv)(call.diopi(), out, g, factor, RoundModeNone),
        "diopiDiv");
  else
    call.check(DIOPI(call, diopiMul)(call.diopi(), out, g, factor), "diopiMul");
  if (scale != 1.0) {
    diopiScalar_t s = kernel_scalar(scale);
    call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), out, &s),
               "diopiMulInpScalar");
  }
}

/* A scratch tensor shaped and typed as `like`. */
static diopiTensorHandle_t temp_like(KernelCall &call, PD_Tensor *like) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(like, shape);
  return call.temp(kernel_diopi_dtype(kernel_dtype(like)), ndim, shape);
}

/* dx = dout * sign(x). */
template <typename T>
void AbsGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   const phi::DenseTensor &dout, phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "abs_grad", kernel_dtype_of<T>());
  diopiTensorHandle_t sign = temp_like(call, pd(x));
  call.check(DIOPI(call, diopiSign)(call.diopi(), sign, call.wrap(pd(x))),
             "diopiSign");
  scaled_grad(call, pd(dout), sign, false, 1.0, pd(dx));
}

/* dx = dout / (2 sqrt(x)) = 0.5 * dout / out. */
template <typename T>
void SqrtGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &out,
                    const phi::DenseTensor &dout, phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "sqrt_grad", kernel_dtype_of<T>());
  scaled_grad(call, pd(dout), call.wrap(pd(out)), true, 0.5, pd(dx));
}

/* dx = 2 * dout * x. */
template <typename T>
void SquareGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                      const phi::DenseTensor &dout, phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "square_grad", kernel_dtype_of<T>());
  scaled_grad(call, pd(dout), call.wrap(pd(x)), false, 2.0, pd(dx));
}

/* dx = dout / x. */
template <typename T>
void LogGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   const phi::DenseTensor &dout, phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "log_grad", kernel_dtype_of<T>());
  scaled_grad(call, pd(dout), call.wrap(pd(x)), true, 1.0, pd(dx));
}

/* dx = scale * dout * op(saved): sin's gradient cos(x), cos's -sin(x),
 * reciprocal's -out^2, rsqrt's -out^3 / 2, erf's exp(-x^2) 2 / sqrt(pi). */
enum factor_op { COS_OF, SIN_OF, SQUARE_OF, CUBE_OF, GAUSSIAN_OF };

static void factor_grad(KernelCall &call, PD_Tensor *saved, PD_Tensor *dout,
                        enum factor_op op, double scale, PD_Tensor *dx) {
  diopiTensorHandle_t f = temp_like(call, saved), in = call.wrap(saved);
  diopiScalar_t three = kernel_scalar(3.0);
  switch (op) {
  case COS_OF:
    call.check(DIOPI(call, diopiCos)(call.diopi(), f, in), "diopiCos");
    break;
  case SIN_OF:
    call.check(DIOPI(call, diopiSin)(call.diopi(), f, in), "diopiSin");
    break;
  case SQUARE_OF:
    call.check(DIOPI(call, diopiSquare)(call.diopi(), f, in), "diopiSquare");
    break;
  case CUBE_OF:
    call.check(DIOPI(call, diopiPow)(call.diopi(), f, in, &three), "diopiPow");
    break;
  case GAUSSIAN_OF:
    call.check(DIOPI(call, diopiSquare)(call.diopi(), f, in), "diopiSquare");
    call.check(DIOPI(call, diopiNegInp)(call.diopi(), f), "diopiNegInp");
    call.check(DIOPI(call, diopiExpInp)(call.diopi(), f), "diopiExpInp");
    break;
  }
  scaled_grad(call, dout, f, false, scale, dx);
}

#define FACTOR_GRAD(Kernel, name, op, scale)                                   \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &saved,      \
              const phi::DenseTensor &dout, phi::DenseTensor *dx) {            \
    KernelCall call(dev_ctx, name, kernel_dtype_of<T>());                      \
    factor_grad(call, pd(saved), pd(dout), op, scale, pd(dx));                 \
  }

FACTOR_GRAD(SinGradKernel, "sin_grad", COS_OF, 1.0)
FACTOR_GRAD(CosGradKernel, "cos_grad", SIN_OF, -1.0)
FACTOR_GRAD(ReciprocalGradKernel, "reciprocal_grad", SQUARE_OF, -1.0)
FACTOR_GRAD(RsqrtGradKernel, "rsqrt_grad", CUBE_OF, -0.5)
FACTOR_GRAD(ErfGradKernel, "erf_grad", GAUSSIAN_OF, 1.1283791670955126)

/* Paddle's round to `decimals` places; only whole numbers (decimals 0),
 * ties to even as Paddle's CPU kernel rounds them. */
template <typename T>
void RoundKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                 const int decimals, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "round", kernel_dtype_of<T>());
  if (decimals != 0)
    call.fail("decimals %d: only 0 (whole numbers) is supported", decimals);
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiRound)(call.diopi(), call.alloc(pd(out)), in),
             "diopiRound");
}

/* floor_grad and round_grad: dx = 0. */
#define ZERO_GRAD(Kernel, name)                                                \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &dout,       \
              phi::DenseTensor *dx) {                                          \
    KernelCall call(dev_ctx, name, kernel_dtype_of<T>());                      \
    diopiScalar_t zero = kernel_scalar(0.0);                                   \
    call.check(                                                                \
        DIOPI(call, diopiFill)(call.diopi(), call.alloc(pd(dx)), &zero),       \
        "diopiFill");                                                          \
  }

ZERO_GRAD(FloorGradKernel, "floor_grad")
ZERO_GRAD(RoundGradKernel, "round_grad")

template <typename T>
void PowKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
               const phi::Scalar &factor, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "pow", kernel_dtype_of<T>());
  diopiScalar_t e = kernel_scalar(factor);
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiPow)(call.diopi(), call.alloc(pd(out)), in, &e),
             "diopiPow");
}

/* dx = factor * dout * x ** (factor - 1). */
template <typename T>
void PowGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   const phi::DenseTensor &dout, const phi::Scalar &factor,
                   phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "pow_grad", kernel_dtype_of<T>());
  double p = factor.to<double>();
  diopiScalar_t e = kernel_scalar(p - 1.0);
  diopiTensorHandle_t power = temp_like(call, pd(x));
  call.check(DIOPI(call, diopiPow)(call.diopi(), power, call.wrap(pd(x)), &e),
             "diopiPow");
  scaled_grad(call, pd(dout), power, false, p, pd(dx));
}

/* Paddle's own clip kernel refuses min > max; so does the bridge's. */
static void clip_bounds(KernelCall &call, const phi::Scalar &min,
                        const phi::Scalar &max, diopiScalar_t *lo,
                        diopiScalar_t *hi) {
  *lo = kernel_scalar(min);
  *hi = kernel_scalar(max);
  if (lo->fval > hi->fval)
    call.fail("min: expected min <= max, got min %g and max %g", lo->fval,
              hi->fval);
}

template <typename T>
void ClipKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                const phi::Scalar &min, const phi::Scalar &max,
                phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "clip", kernel_dtype_of<T>());
  diopiScalar_t lo, hi;
  clip_bounds(call, min, max, &lo, &hi);
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiClampScalar)(call.diopi(), call.alloc(pd(out)),
                                           in, &lo, &hi),
             "diopiClampScalar");
}

template <typename T>
void ClipGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &out_grad, const phi::Scalar &min,
                    const phi::Scalar &max, phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "clip_grad", kernel_dtype_of<T>());
  diopiScalar_t lo, hi;
  clip_bounds(call, min, max, &lo, &hi);
  diopiTensorHandle_t in = call.wrap(pd(x));
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(x), shape);
  diopiTensorHandle_t inside = call.temp(diopi_dtype_bool, ndim, shape);
  diopiTensorHandle_t below_max = call.temp(diopi_dtype_bool, ndim, shape);
  call.check(DIOPI(call, diopiGeScalar)(call.diopi(), inside, in, &lo),
             "diopiGeScalar");
  call.check(DIOPI(call, diopiLeScalar)(call.diopi(), below_max, in, &hi),
             "diopiLeScalar");
  call.check(DIOPI(call, diopiLogicalAndInp)(call.diopi(), inside, below_max),
             "diopiLogicalAndInp");
  scaled_grad(call, pd(out_grad), inside, false, 1.0, pd(x_grad));
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(abs, backplane, ALL_LAYOUT, bridge::AbsKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(abs_grad, backplane, ALL_LAYOUT, bridge::AbsGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(exp, backplane, ALL_LAYOUT, bridge::ExpKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(exp_grad, backplane, ALL_LAYOUT, bridge::ExpGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(sqrt, backplane, ALL_LAYOUT, bridge::SqrtKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(sqrt_grad, backplane, ALL_LAYOUT, bridge::SqrtGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(square, backplane, ALL_LAYOUT, bridge::SquareKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(square_grad, backplane, ALL_LAYOUT,
                    bridge::SquareGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(pow, backplane, ALL_LAYOUT, bridge::PowKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(pow_grad, backplane, ALL_LAYOUT, bridge::PowGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(clip, backplane, ALL_LAYOUT, bridge::ClipKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(clip_grad, backplane, ALL_LAYOUT, bridge::ClipGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(rsqrt, backplane, ALL_LAYOUT, bridge::RsqrtKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(rsqrt_grad, backplane, ALL_LAYOUT, bridge::RsqrtGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(log, backplane, ALL_LAYOUT, bridge::LogKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(log_grad, backplane, ALL_LAYOUT, bridge::LogGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(reciprocal, backplane, ALL_LAYOUT, bridge::ReciprocalKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(reciprocal_grad, backplane, ALL_LAYOUT,
                    bridge::ReciprocalGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(sin, backplane, ALL_LAYOUT, bridge::SinKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(sin_grad, backplane, ALL_LAYOUT, bridge::SinGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(cos, backplane, ALL_LAYOUT, bridge::CosKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(cos_grad, backplane, ALL_LAYOUT, bridge::CosGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(floor, backplane, ALL_LAYOUT, bridge::FloorKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(floor_grad, backplane, ALL_LAYOUT, bridge::FloorGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(round, backplane, ALL_LAYOUT, bridge::RoundKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(round_grad, backplane, ALL_LAYOUT, bridge::RoundGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(erf, backplane, ALL_LAYOUT, bridge::ErfKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(erf_grad, backplane, ALL_LAYOUT, bridge::ErfGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(sign, backplane, ALL_LAYOUT, bridge::SignKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
