/* transpose, permute, contiguous and cat: strided copies. Transpose and
 * permute copy a view of the input with its dims reordered into out;
 * contiguous requires its out from the context; cat copies each input into
 * its slice of out. */
#include <stdio.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_elementwise.h"
#include "ref_error.h"

/* A copy of `in` into `out`, both already viewed and shaped alike. */
static diopiError_t enqueue_copy(diopiContextHandle_t ctx, const char *op,
                                 const char *arg, const ref_view_t *out,
                                 const ref_view_t *in) {
  diopiError_t err = ref_expect_shape(op, "out", out, in->shape, in->ndim);
  if (!err)
    err = ref_expect_no_partial_overlap(op, arg, out, in);
  if (err)
    return err;
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 1;
  ew.fn = ref_copy_fn;
  ew.f32 = ref_copy_f32;
  ew.int_fn = ref_copy_int;
  ew.out = *out;
  ew.in[0] = *in;
  return ref_ew_enqueue(ctx, op, &ew);
}

/* `in` with its dims in the order `dims` (a permutation of [0, ndim)). */
static diopiError_t permuted(const char *op, const ref_view_t *in,
                             const int64_t *dims, int64_t n, ref_view_t *out) {
  if (n != in->ndim)
    return ref_fail(op, "dims: %lld dims for an input of %d", (long long)n,
                    in->ndim);
  bool used[REF_MAX_DIMS] = {false};
  *out = *in;
  for (int i = 0; i < in->ndim; i++) {
    int d;
    diopiError_t err = ref_dim(op, "dims", dims[i], in->ndim, &d);
    if (err)
      return err;
    if (used[d])
      return ref_fail(op, "dims: dim %d appears twice", d);
    used[d] = true;
    out->shape[i] = in->shape[d];
    out->strides[i] = in->strides[d];
  }
  return diopiSuccess;
}

REF_EXPORT diopiError_t diopiPermute(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t out,
                                     diopiConstTensorHandle_t input,
                                     diopiSize_t dims) {
  const char *op = "diopiPermute";
  ref_view_t o, in, p;
  diopiError_t err = ref_view(ctx, op, "out", out, &o);
  if (!err)
    err = ref_view(ctx, op, "input", input, &in);
  if (!err && !dims.data && dims.len)
    err = ref_fail(op, "dims: NULL data");
  if (!err)
    err = permuted(op, &in, dims.data, dims.len, &p);
  return err ? err : enqueue_copy(ctx, op, "input", &o, &p);
}

REF_EXPORT diopiError_t diopiTranspose(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t out,
                                       diopiConstTensorHandle_t input,
                                       int64_t dim0, int64_t dim1) {
  const char *op = "diopiTranspose";
  ref_view_t o, in, p;
  int d0, d1;
  diopiError_t err = ref_view(ctx, op, "out", out, &o);
  if (!err)
    err = ref_view(ctx, op, "input", input, &in);
  if (!err)
    err = ref_dim(op, "dim0", dim0, in.ndim, &d0);
  if (!err)
    err = ref_dim(op, "dim1", dim1, in.ndim, &d1);
  if (err)
    return err;
  int64_t dims[REF_MAX_DIMS];
  for (int i = 0; i < in.ndim; i++)
    dims[i] = i == d0 ? d1 : i == d1 ? d0 : i;
  err = permuted(op, &in, dims, in.ndim, &p);
  return err ? err : enqueue_copy(ctx, op, "input", &o, &p);
}

REF_EXPORT diopiError_t diopiContiguous(diopiContextHandle_t ctx,
                                        diopiTensorHandle_t *out,
                                        diopiConstTensorHandle_t input,
                                        diopiMemoryFormat_t memoryFormat) {
  const char *op = "diopiContiguous";
  ref_view_t in, o;
  diopiDevice_t device;
  if (!out)
    return ref_fail(op, "out: NULL");
  diopiError_t err = ref_view(ctx, op, "input", input, &in);
  if (err)
    return err;
  if (memoryFormat != Contiguous)
    return ref_fail(op, "memoryFormat: %d is not supported (only Contiguous)",
                    (int)memoryFormat);
  diopiTensorHandle_t result;
  diopiSize_t shape = {in.shape, in.ndim};
  if (diopiGetTensorDevice(input, &device) ||
      diopiRequireTensor(ctx, &result, &shape, NULL, in.dtype, device))
    return ref_fail(op, "out: the context cannot allocate %lld elements",
                    (long long)in.numel);
  err = ref_view(ctx, op, "out", result, &o);
  if (!err)
    err = enqueue_copy(ctx, op, "input", &o, &in);
  if (!err)
    *out = result;
  return err;
}

REF_EXPORT diopiError_t diopiCat(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t out,
                                 diopiConstTensorHandle_t *tensors,
                                 int64_t num_inputs, int64_t dim) {
  const char *op = "diopiCat";
  ref_view_t o;
  int d;
  diopiError_t err = ref_view(ctx, op, "out", out, &o);
  if (!err && (num_inputs < 1 || !tensors))
    err = ref_fail(op, "tensors: %lld inputs (at least 1)",
                   (long long)num_inputs);
  if (!err)
    err = ref_dim(op, "dim", dim, o.ndim, &d);
  if (err)
    return err;
  /* Check every input (and the total) before enqueueing any copy. */
  int64_t total = 0;
  char arg[32];
  for (int64_t k = 0; k < num_inputs; k++) {
    ref_view_t in;
    snprintf(arg, sizeof arg, "tensors[%lld]", (long long)k);
    err = ref_view(ctx, op, arg, tensors[k], &in);
    if (err)
      return err;
    int64_t want[REF_MAX_DIMS];
    memcpy(want, o.shape, sizeof want);
    want[d] = in.ndim == o.ndim ? in.shape[d] : 0;
    if ((err = ref_expect_shape(op, arg, &in, want, o.ndim)))
      return err;
    total += in.shape[d];
  }
  if (total != o.shape[d])
    return ref_fail(op, "out: dim %d is %lld, the inputs add up to %lld", d,
                    (long long)o.shape[d], (long long)total);
  int64_t at = 0;
  size_t elem = ref_dtype_size(o.dtype);
  for (int64_t k = 0; k < num_inputs && !err; k++) {
    ref_view_t in, slice = o;
    snprintf(arg, sizeof arg, "tensors[%lld]", (long long)k);
    ref_view(ctx, op, arg, tensors[k], &in);
    slice.shape[d] = in.shape[d];
    slice.numel = in.numel;
    slice.data += at * o.strides[d] * (int64_t)elem;
    at += in.shape[d];
    err = enqueue_copy(ctx, op, arg, &slice, &in);
  }
  return err;
}
