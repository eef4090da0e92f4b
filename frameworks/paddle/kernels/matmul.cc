/* matmul and matmul_grad with Paddle's rules: a 1-D x is a row [1, K] and a
 * 1-D y a column [K, 1] (their transpose flags ignored, their unit dim
 * absent from out); dims before the last two are batch dims, broadcast
 * against each other; a transposed operand is a strided view (no copy).
 * diopiMatmul does the products, and the gradient of an operand whose batch
 * dims were broadcast is summed over them. When y is one matrix and x is
 * not a transposed batch, x's leading dims fold into the rows of one
 * diopiMm instead (Linear on sequences; dy is then one product too). */
#include "kernel_call.h"

namespace bridge {

/* An operand as the matrix (or batch of matrices) it stores: rank >= 2,
 * `transposed` when the product uses its transpose. */
struct Operand {
  void *data;
  diopiDtype_t dtype;
  int ndim;
  int64_t shape[BP_OPS_MAX_DIMS];
  bool transposed;
};

/* `t` as an Operand: a 1-D x is the row [1, K], a 1-D y the row [1, K]
 * transposed (the column [K, 1]); `transpose` applies from rank 2. */
static Operand operand(KernelCall &call, PD_Tensor *t, bool transpose,
                       bool is_y) {
  Operand o;
  int64_t dims[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(t, dims);
  if (ndim == 0)
    call.fail("%s: a 0-D operand (expected rank >= 1)", is_y ? "y" : "x");
  PD_Status status = C_SUCCESS;
  o.data = PD_TensorGetDataPointer(t, &status);
  o.dtype = kernel_diopi_dtype(kernel_dtype(t));
  if (ndim == 1) {
    o.shape[0] = 1;
    o.shape[1] = dims[0];
    o.ndim = 2;
    o.transposed = is_y;
  } else {
    for (int d = 0; d < ndim; d++)
      o.shape[d] = dims[d];
    o.ndim = ndim;
    o.transposed = transpose;
  }
  return o;
}

/* The operand as a DIOPI tensor, its last two dims swapped when
 * `transpose` (a strided view). */
static diopiTensorHandle_t view(KernelCall &call, const Operand &o,
                                bool transpose) {
  int64_t shape[BP_OPS_MAX_DIMS], strides[BP_OPS_MAX_DIMS];
  int n = o.ndim;
  for (int d = n - 1; d >= 0; d--) {
    shape[d] = o.shape[d];
    strides[d] = d == n - 1 ? 1 : strides[d + 1] * o.shape[d + 1];
  }
  if (transpose) {
    int64_t s = shape[n - 1], st = strides[n - 1];
    shape[n - 1] = shape[n - 2];
    strides[n - 1] = strides[n - 2];
    shape[n - 2] = s;
    strides[n - 2] = st;
  }
  return call.wrap_data(o.data, o.dtype, n, shape, strides);
}

/* The product's shape [batch..., m, n] into `shape` (batch dims broadcast,
 * aligned right); returns its rank. */
static int product_shape(KernelCall &call, const Operand &x, const Operand &y,
                         int64_t *shape) {
  int xb = x.ndim - 2, yb = y.ndim - 2, nb = xb > yb ? xb : yb;
  for (int d = 0; d < nb; d++) {
    int dx = d - (nb - xb), dy = d - (nb - yb);
    int64_t sx = dx >= 0 ? x.shape[dx] : 1, sy = dy >= 0 ? y.shape[dy] : 1;
    if (sx != sy && sx != 1 && sy != 1)
      call.fail("batch dim %d: x has %lld, y has %lld (they do not broadcast)",
                d, (long long)sx, (long long)sy);
    shape[d] = sx == 1 ? sy : sx;
  }
  shape[nb] = x.shape[x.ndim - (x.transposed ? 1 : 2)];
  shape[nb + 1] = y.shape[y.ndim - (y.transposed ? 2 : 1)];
  int64_t kx = x.shape[x.ndim - (x.transposed ? 2 : 1)];
  int64_t ky = y.shape[y.ndim - (y.transposed ? 1 : 2)];
  if (kx != ky)
    call.fail("x's columns (%lld) differ from y's rows (%lld)", (long long)kx,
              (long long)ky);
  return nb + 2;
}

static void matmul(KernelCall &call, diopiTensorHandle_t out,
                   diopiConstTensorHandle_t a, diopiConstTensorHandle_t b) {
  call.check(DIOPI(call, diopiMatmul)(call.diopi(), out, a, b), "diopiMatmul");
}

/* Gradient `grad` of operand `o` from `a` @ `b`, whose result has o's
 * stored last two dims and the product's batch dims: written in place when
 * o has those batch dims, else summed down to o's shape. */
static void operand_grad(KernelCall &call, PD_Tensor *grad, const Operand &o,
                         int pn, const int64_t *pshape,
                         diopiConstTensorHandle_t a,
                         diopiConstTensorHandle_t b) {
  int64_t shape[BP_OPS_MAX_DIMS];
  for (int d = 0; d < pn - 2; d++)
    shape[d] = pshape[d];
  shape[pn - 2] = o.shape[o.ndim - 2];
  shape[pn - 1] = o.shape[o.ndim - 1];
  bool same = o.ndim == pn;
  for (int d = 0; same && d < pn - 2; d++)
    same = o.shape[d] == shape[d];
  if (same) {
    call.alloc(grad);
    matmul(call, call.wrap(grad, pn, shape), a, b);
    return;
  }
  diopiTensorHandle_t full = call.temp(o.dtype, pn, shape);
  matmul(call, full, a, b);
  kernel_sum_to(call, grad, full, pn, shape, 1.0);
}

/* One matrix y and x not a transposed batch: x's leading dims fold into
 * rows, every product a single diopiMm. */
static bool foldable(PD_Tensor *x, bool tx, PD_Tensor *y) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int xdims = kernel_dims(x, shape), ydims = kernel_dims(y, shape);
  return ydims == 2 && xdims >= 2 && (xdims == 2 || !tx);
}

/* `t` as a 2-D [rows, cols] view (leading dims folded into rows),
 * transposed when `transpose`. */
static diopiTensorHandle_t matrix(KernelCall &call, PD_Tensor *t,
                                  bool transpose) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(t, shape);
  int64_t cols = shape[ndim - 1];
  int64_t rows = kernel_numel(t) / (cols ? cols : 1);
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

template <typename T>
void MatmulKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  const phi::DenseTensor &y, bool tx, bool ty,
                  phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "matmul", kernel_dtype_of<T>());
  if (foldable(pd(x), tx, pd(y))) {
    diopiTensorHandle_t a = matrix(call, pd(x), tx);
    diopiTensorHandle_t b = matrix(call, pd(y), ty);
    call.alloc(pd(out));
    mm(call, matrix(call, pd(out), false), a, b);
    return;
  }
  Operand xo = operand(call, pd(x), tx, false);
  Operand yo = operand(call, pd(y), ty, true);
  int64_t shape[BP_OPS_MAX_DIMS];
  int n = product_shape(call, xo, yo, shape);
  call.alloc(pd(out));
  matmul(call, call.wrap(pd(out), n, shape), view(call, xo, xo.transposed),
         view(call, yo, yo.transposed));
}

/* With out = op(x) @ op(y): d op(x) = dout @ op(y)^T and d op(y) =
 * op(x)^T @ dout, each transposed back for a transposed operand. */
template <typename T>
void MatmulGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                      const phi::DenseTensor &y, const phi::DenseTensor &dout,
                      bool tx, bool ty, phi::DenseTensor *dx,
                      phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "matmul_grad", kernel_dtype_of<T>());
  if (foldable(pd(x), tx, pd(y))) {
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
    return;
  }
  Operand xo = operand(call, pd(x), tx, false);
  Operand yo = operand(call, pd(y), ty, true);
  int64_t shape[BP_OPS_MAX_DIMS];
  int n = product_shape(call, xo, yo, shape);
  int64_t count = 1;
  for (int d = 0; d < n; d++)
    count *= shape[d];
  if (kernel_numel(pd(dout)) != count)
    call.fail("out_grad: %lld elements, expected the product's %lld",
              (long long)kernel_numel(pd(dout)), (long long)count);
  PD_Status status = C_SUCCESS;
  Operand go;
  go.data = PD_TensorGetDataPointer(pd(dout), &status);
  go.dtype = kernel_diopi_dtype(kernel_dtype(pd(dout)));
  go.ndim = n;
  for (int d = 0; d < n; d++)
    go.shape[d] = shape[d];
  go.transposed = false;
  if (dx) {
    if (!xo.transposed)
      operand_grad(call, pd(dx), xo, n, shape, view(call, go, false),
                   view(call, yo, !yo.transposed));
    else
      operand_grad(call, pd(dx), xo, n, shape, view(call, yo, yo.transposed),
                   view(call, go, true));
  }
  if (dy) {
    if (!yo.transposed)
      operand_grad(call, pd(dy), yo, n, shape, view(call, xo, !xo.transposed),
                   view(call, go, false));
    else
      operand_grad(call, pd(dy), yo, n, shape, view(call, go, true),
                   view(call, xo, xo.transposed));
  }
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(matmul, backplane, ALL_LAYOUT, bridge::MatmulKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(matmul_grad, backplane, ALL_LAYOUT,
                    bridge::MatmulGradKernel, BRIDGE_FLOAT_DTYPES) {}
