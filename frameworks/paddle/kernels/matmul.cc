/* matmul and matmul_grad: diopiMm on 2-D operands (a transposed operand is
 * a strided view, no copy), with the leading dims of a >2-D x folded into
 * rows when y is one matrix (Linear on sequences). */
#include "kernel_call.h"

namespace bridge {

/* `t` as a 2-D [rows, cols] view (leading dims folded into rows),
 * transposed when `transpose`. */
static diopiTensorHandle_t matrix(KernelCall &call, PD_Tensor *t,
                                  bool transpose) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(t, shape);
  if (ndim < 2)
    call.fail("operands of rank %d are not supported (rank >= 2)", ndim);
  int64_t rows = kernel_numel(t) / (shape[ndim - 1] ? shape[ndim - 1] : 1);
  int64_t cols = shape[ndim - 1];
  int64_t dims[2] = {rows, cols}, strides[2] = {cols, 1};
  if (transpose) {
    dims[0] = cols;
    dims[1] = rows;
    strides[0] = 1;
    strides[1] = cols;
  }
  PD_Status status = C_SUCCESS;
  return call.wrap_data(PD_TensorGetDataPointer(t, &status),
                        kernel_diopi_dtype(kernel_dtype(t)), 2, dims, strides);
}

static void mm(KernelCall &call, diopiTensorHandle_t out,
               diopiConstTensorHandle_t a, diopiConstTensorHandle_t b) {
  call.check(DIOPI(call, diopiMm)(call.diopi(), out, a, b), "diopiMm");
}

/* Folding x's leading dims into rows is a matmul only when y is one
 * matrix and x is not transposed. */
static void check_foldable(KernelCall &call, PD_Tensor *x, bool tx,
                           PD_Tensor *y) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int xdims = kernel_dims(x, shape), ydims = kernel_dims(y, shape);
  if (ydims != 2 || (xdims > 2 && tx))
    call.fail("x of rank %d (transpose_x %d) with y of rank %d is not "
              "supported: y must be a matrix, and x not transposed when "
              "batched",
              xdims, (int)tx, ydims);
}

template <typename T>
void MatmulKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  const phi::DenseTensor &y, bool tx, bool ty,
                  phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "matmul", kernel_dtype_of<T>());
  check_foldable(call, pd(x), tx, pd(y));
  diopiTensorHandle_t a = matrix(call, pd(x), tx);
  diopiTensorHandle_t b = matrix(call, pd(y), ty);
  call.alloc(pd(out));
  mm(call, matrix(call, pd(out), false), a, b);
}

/* With out = op(x) @ op(y): dx and dy for each transpose combination. */
template <typename T>
void MatmulGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                      const phi::DenseTensor &y, const phi::DenseTensor &dout,
                      bool tx, bool ty, phi::DenseTensor *dx,
                      phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "matmul_grad", kernel_dtype_of<T>());
  check_foldable(call, pd(x), tx, pd(y));
  if (dx) {
    call.alloc(pd(dx));
    if (!tx) /* dx = dout @ op(y)^T */
      mm(call, matrix(call, pd(dx), false), matrix(call, pd(dout), false),
         matrix(call, pd(y), !ty));
    else /* dx = op(y) @ dout^T */
      mm(call, matrix(call, pd(dx), false), matrix(call, pd(y), ty),
         matrix(call, pd(dout), true));
  }
  if (dy) {
    call.alloc(pd(dy));
    if (!ty) /* dy = op(x)^T @ dout */
      mm(call, matrix(call, pd(dy), false), matrix(call, pd(x), !tx),
         matrix(call, pd(dout), false));
    else /* dy = dout^T @ op(x) */
      mm(call, matrix(call, pd(dy), false), matrix(call, pd(dout), true),
         matrix(call, pd(x), tx));
  }
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(matmul, backplane, ALL_LAYOUT, bridge::MatmulKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(matmul_grad, backplane, ALL_LAYOUT,
                    bridge::MatmulGradKernel, BRIDGE_FLOAT_DTYPES) {}
