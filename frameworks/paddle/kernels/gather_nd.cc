/* gather_nd, scatter_nd_add and their gradients. index's last dim holds k
 * coordinates into x's first k dims (int32 or int64, each in [0, size)),
 * made here into one row number of x seen as [x's first k dims' product,
 * x's other dims...]; then gather_nd is diopiIndexSelect of those rows
 * (gradient: diopiIndexSelectBackward, summing repeated rows) and
 * scatter_nd_add x plus updates' rows added at them (diopiIndexPutInp
 * accumulating; gradient: out_grad, and updates_grad gathered from it). */
#include "kernel_call.h"

namespace bridge {

/* x as rows and index as row numbers. */
struct nd_rows {
  int ndim;                        /* of the row views */
  int64_t x_rows[BP_OPS_MAX_DIMS]; /* [rows of x, x's dims after k...] */
  int64_t picked[BP_OPS_MAX_DIMS]; /* [index's rows, x's dims after k...] */
  diopiTensorHandle_t row_numbers; /* int64 [index's rows] */
};

static nd_rows nd_rows_of(KernelCall &call, PD_Tensor *x, PD_Tensor *index) {
  int64_t xs[BP_OPS_MAX_DIMS], is[BP_OPS_MAX_DIMS];
  int xn = kernel_dims(x, xs), in = kernel_dims(index, is);
  int k = in ? (int)is[in - 1] : 0;
  if (in == 0 || k < 1 || k > xn)
    call.fail("index: expected a last dim of 1 to %d coordinates", xn);
  nd_rows r;
  r.ndim = 1 + xn - k;
  int64_t count = kernel_numel(index) / k, size = 1;
  for (int d = 0; d < k; d++)
    size *= xs[d];
  r.x_rows[0] = size;
  r.picked[0] = count;
  for (int d = k; d < xn; d++)
    r.x_rows[1 + d - k] = r.picked[1 + d - k] = xs[d];
  /* row = ((c0 * s1 + c1) * s2 + c2) ..., the coordinates as int64. */
  int64_t coords[2] = {count, k};
  diopiTensorHandle_t all = call.temp(diopi_dtype_int64, 2, coords);
  call.check(DIOPI(call, diopiCastDtype)(call.diopi(), all,
                                         call.wrap(index, 2, coords)),
             "diopiCastDtype");
  void *data = NULL;
  diopiGetTensorData(all, &data);
  r.row_numbers = call.temp(diopi_dtype_int64, 1, &count);
  diopiScalar_t one = kernel_scalar(1.0);
  for (int d = 0; d < k; d++) {
    diopiTensorHandle_t column = call.wrap_data(
        (int64_t *)data + d, diopi_dtype_int64, 1, &count, coords + 1);
    if (d == 0) {
      call.check(DIOPI(call, diopiCopyInp)(call.diopi(), column, r.row_numbers),
                 "diopiCopyInp");
      continue;
    }
    diopiScalar_t s = kernel_scalar((double)xs[d]);
    call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), r.row_numbers, &s),
               "diopiMulInpScalar");
    call.check(
        DIOPI(call, diopiAddInp)(call.diopi(), r.row_numbers, column, &one),
        "diopiAddInp");
  }
  return r;
}

template <typename T>
void GatherNdKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &index, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "gather_nd", kernel_dtype_of<T>());
  nd_rows r = nd_rows_of(call, pd(x), pd(index));
  call.alloc(pd(out));
  call.check(DIOPI(call, diopiIndexSelect)(
                 call.diopi(), call.wrap(pd(out), r.ndim, r.picked),
                 call.wrap(pd(x), r.ndim, r.x_rows), 0, r.row_numbers),
             "diopiIndexSelect");
}

template <typename T>
void GatherNdGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                        const phi::DenseTensor &index,
                        const phi::DenseTensor &out_grad,
                        phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "gather_nd_grad", kernel_dtype_of<T>());
  nd_rows r = nd_rows_of(call, pd(x), pd(index));
  call.alloc(pd(x_grad));
  diopiSize_t sizes = {r.x_rows, r.ndim};
  call.check(DIOPI(call, diopiIndexSelectBackward)(
                 call.diopi(), call.wrap(pd(x_grad), r.ndim, r.x_rows),
                 call.wrap(pd(out_grad), r.ndim, r.picked), sizes, 0,
                 r.row_numbers),
             "diopiIndexSelectBackward");
}

template <typename T>
void ScatterNdAddKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                        const phi::DenseTensor &index,
                        const phi::DenseTensor &updates,
                        phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "scatter_nd_add", kernel_dtype_of<T>());
  nd_rows r = nd_rows_of(call, pd(x), pd(index));
  call.alloc(pd(out));
  diopiTensorHandle_t o = call.wrap(pd(out), r.ndim, r.x_rows);
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(),
                                       call.wrap(pd(x), r.ndim, r.x_rows), o),
             "diopiCopyInp");
  diopiConstTensorHandle_t rows = r.row_numbers;
  call.check(DIOPI(call, diopiIndexPutInp)(
                 call.diopi(), o, call.wrap(pd(updates), r.ndim, r.picked),
                 &rows, 1, true),
             "diopiIndexPutInp");
}

/* updates_grad = out_grad's indexed rows; x_grad = out_grad. */
template <typename T>
void ScatterNdAddGradKernel(const phi::Context &dev_ctx,
                            const phi::DenseTensor &index,
                            const phi::DenseTensor &updates,
                            const phi::DenseTensor &out_grad,
                            phi::DenseTensor *x_grad,
                            phi::DenseTensor *updates_grad) {
  KernelCall call(dev_ctx, "scatter_nd_add_grad", kernel_dtype_of<T>());
  nd_rows r = nd_rows_of(call, pd(out_grad), pd(index));
  diopiTensorHandle_t g = call.wrap(pd(out_grad));
  /* updates_grad first: x_grad may share out_grad's memory. */
  if (updates_grad) {
    call.alloc(pd(updates_grad));
    call.check(DIOPI(call, diopiIndexSelect)(
                   call.diopi(), call.wrap(pd(updates_grad), r.ndim, r.picked),
                   call.wrap(pd(out_grad), r.ndim, r.x_rows), 0, r.row_numbers),
               "diopiIndexSelect");
  }
  if (x_grad)
    call.check(
        DIOPI(call, diopiCopyInp)(call.diopi(), g, call.alloc(pd(x_grad))),
        "diopiCopyInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(gather_nd, backplane, ALL_LAYOUT, bridge::GatherNdKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(gather_nd_grad, backplane, ALL_LAYOUT,
                    bridge::GatherNdGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(scatter_nd_add, backplane, ALL_LAYOUT,
                    bridge::ScatterNdAddKernel, BRIDGE_FLOAT_DTYPES, int32_t,
                    int64_t) {}
PD_BUILD_PHI_KERNEL(scatter_nd_add_grad, backplane, ALL_LAYOUT,
                    bridge::ScatterNdAddGradKernel, BRIDGE_FLOAT_DTYPES) {}
