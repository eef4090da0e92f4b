/* strided_views.h: views with positive strides of slices and of Paddle's
 * strided tensors. */
#include "strided_views.h"

/* [start, end) by `step` over a dim of `size` as Paddle normalizes it
 * (negative bounds count from the end, out-of-range ones are clamped, an
 * end of -size-1 with a negative step runs through index 0): the first
 * index into *first and the element count into *count. */
static void normalize(int64_t start, int64_t end, int64_t step, int64_t size,
                      int64_t *first, int64_t *count) {
  *first = *count = 0;
  if (size <= 0)
    return;
  if (step > 0) {
    if (start >= size || end <= -size)
      return;
    start = start < 0 ? (start < -size ? 0 : start + size) : start;
    end = end < 0 ? end + size : (end > size ? size : end);
    if (start >= end)
      return;
    *first = start;
    *count = (end - start + step - 1) / step;
    return;
  }
  if (start <= -size - 1 || end >= size - 1)
    return;
  start = start < 0 ? start + size : (start > size - 1 ? size - 1 : start);
  end = end < 0 ? (end < -size ? -1 : end + size) : end;
  if (end >= start)
    return;
  *first = start;
  *count = (start - end - step - 1) / -step;
}

SliceView slice_view(KernelCall &call, PD_Tensor *t,
                     const std::vector<int64_t> &axes,
                     const std::vector<int64_t> &starts,
                     const std::vector<int64_t> &ends,
                     const std::vector<int64_t> &steps,
                     const std::vector<int64_t> &decrease_axes,
                     const std::vector<int64_t> &none_axes) {
  int64_t shape[BP_OPS_MAX_DIMS], strides[BP_OPS_MAX_DIMS];
  bool reversed[BP_OPS_MAX_DIMS] = {false},
       decreased[BP_OPS_MAX_DIMS] = {false};
  int ndim = kernel_dims(t, shape);
  size_t n = axes.size();
  if (starts.size() != n || ends.size() != n ||
      (!steps.empty() && steps.size() != n))
    call.fail("starts, ends, steps: expected %zu each (one per axis), got "
              "%zu, %zu, %zu",
              n, starts.size(), ends.size(), steps.size());
  for (int d = ndim - 1; d >= 0; d--)
    strides[d] = d == ndim - 1 ? 1 : strides[d + 1] * shape[d + 1];
  int64_t offset = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + ndim : axes[i];
    if (a < 0 || a >= ndim)
      call.fail("axes: %lld out of range for rank %d", (long long)axes[i],
                ndim);
    int64_t step = steps.empty() ? 1 : steps[i], first, count;
    if (step == 0)
      call.fail("steps: step %zu is 0", i);
    normalize(starts[i], ends[i], step, shape[a], &first, &count);
    if (step < 0 && count > 1) { /* walk it forwards from the last */
      first += (count - 1) * step;
      step = -step;
      reversed[a] = true;
    }
    offset += first * strides[a];
    shape[a] = count;
    strides[a] *= step > 0 ? step : -step;
  }
  for (int64_t d : decrease_axes) {
    int64_t a = d < 0 ? d + ndim : d;
    if (a < 0 || a >= ndim)
      call.fail("decrease_axis: %lld out of range for rank %d", (long long)d,
                ndim);
    if (shape[a] != 1)
      call.fail("decrease_axis: dim %lld has %lld elements, expected 1",
                (long long)d, (long long)shape[a]);
    decreased[a] = true;
  }
  SliceView v;
  int64_t vstrides[BP_OPS_MAX_DIMS];
  v.ndim = v.nreversed = 0;
  v.numel = 1;
  size_t none = 0;
  for (int d = 0; d <= ndim; d++) {
    while (none < none_axes.size() && (none_axes[none] <= d || d == ndim)) {
      if (v.ndim == BP_OPS_MAX_DIMS)
        call.fail("none_axes: more than %d dims", (int)BP_OPS_MAX_DIMS);
      v.shape[v.ndim] = 1;
      vstrides[v.ndim++] = 1;
      none++;
    }
    if (d == ndim)
      break;
    if (decreased[d])
      continue;
    if (reversed[d])
      v.reversed[v.nreversed++] = v.ndim;
    v.numel *= shape[d];
    v.shape[v.ndim] = shape[d];
    vstrides[v.ndim++] = strides[d];
  }
  PD_Status status = C_SUCCESS;
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(t));
  char *base = static_cast<char *>(PD_TensorGetDataPointer(t, &status));
  v.view = call.wrap_data(base + offset * (int64_t)bp_ops_dtype_size(dtype),
                          dtype, v.ndim, v.shape, vstrides);
  return v;
}

/* A scratch tensor of the view's shape and dtype. */
static diopiTensorHandle_t scratch_like(KernelCall &call, const SliceView &v) {
  diopiDtype_t dtype;
  diopiGetTensorDtype(v.view, &dtype);
  return call.temp(dtype, v.ndim, v.shape);
}

void slice_assign(KernelCall &call, const SliceView &v,
                  diopiConstTensorHandle_t value) {
  if (v.nreversed == 0) {
    call.check(DIOPI(call, diopiExpand)(call.diopi(), v.view, value),
               "diopiExpand");
    return;
  }
  diopiTensorHandle_t expanded = scratch_like(call, v);
  call.check(DIOPI(call, diopiExpand)(call.diopi(), expanded, value),
             "diopiExpand");
  call.check(DIOPI(call, diopiFlip)(call.diopi(), v.view, expanded,
                                    {v.reversed, v.nreversed}),
             "diopiFlip");
}

diopiConstTensorHandle_t slice_values(KernelCall &call, const SliceView &v) {
  if (v.nreversed == 0)
    return v.view;
  diopiTensorHandle_t flipped = scratch_like(call, v);
  call.check(DIOPI(call, diopiFlip)(call.diopi(), flipped, v.view,
                                    {v.reversed, v.nreversed}),
             "diopiFlip");
  return flipped;
}

diopiTensorHandle_t positive_view(KernelCall &call, PD_Tensor *t,
                                  int64_t *reversed, int *nreversed) {
  PD_Status status = C_SUCCESS;
  int64_t shape[BP_OPS_MAX_DIMS], strides[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(t, shape);
  if (PD_TensorGetNumStrides(t, &status) != ndim)
    call.fail("strides do not match the rank %d", ndim);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(t));
  int64_t offset = 0;
  *nreversed = 0;
  for (int d = 0; d < ndim; d++) {
    strides[d] = PD_TensorGetStride(t, (size_t)d, &status);
    if (strides[d] < 0 && shape[d] > 1) {
      offset += (shape[d] - 1) * strides[d];
      strides[d] = -strides[d];
      reversed[(*nreversed)++] = d;
    } else if (strides[d] < 0) { /* one element: the stride is unused */
      strides[d] = 0;
    }
  }
  char *base = static_cast<char *>(PD_TensorGetDataPointer(t, &status));
  return call.wrap_data(base + offset * (int64_t)bp_ops_dtype_size(dtype),
                        dtype, ndim, shape, strides);
}

void copy_views(KernelCall &call, diopiTensorHandle_t dst,
                const int64_t *dst_reversed, int dst_nreversed,
                diopiConstTensorHandle_t src, const int64_t *src_reversed,
                int src_nreversed) {
  int64_t flip[BP_OPS_MAX_DIMS];
  int nflip = 0;
  for (int i = 0; i < dst_nreversed; i++) {
    bool both = false;
    for (int j = 0; j < src_nreversed; j++)
      both = both || src_reversed[j] == dst_reversed[i];
    if (!both)
      flip[nflip++] = dst_reversed[i];
  }
  for (int j = 0; j < src_nreversed; j++) {
    bool both = false;
    for (int i = 0; i < dst_nreversed; i++)
      both = both || src_reversed[j] == dst_reversed[i];
    if (!both)
      flip[nflip++] = src_reversed[j];
  }
  if (nflip == 0)
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), src, dst),
               "diopiCopyInp");
  else
    call.check(DIOPI(call, diopiFlip)(call.diopi(), dst, src, {flip, nflip}),
               "diopiFlip");
}
