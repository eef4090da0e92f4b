/* stack (each input copied into its slice of out along a new dim) and
 * expand (input broadcast into out): strided copies. */
#include <stdio.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_elementwise.h"
#include "ref_error.h"

REF_EXPORT diopiError_t diopiStack(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out,
                                   diopiConstTensorHandle_t *tensors,
                                   int64_t numTensors, int64_t dim) {
  const char *op = "diopiStack";
  ref_view_t o, first;
  if (!tensors || numTensors < 1)
    return ref_fail(op, "tensors: expected at least one tensor, got %lld",
                    (long long)numTensors);
  diopiError_t err = ref_view(ctx, op, "out", out, &o);
  if (!err)
    err = ref_view(ctx, op, "tensors[0]", tensors[0], &first);
  int d = 0;
  if (!err)
    err = ref_dim(op, "dim", dim, first.ndim + 1, &d);
  if (!err && first.ndim + 1 > REF_MAX_DIMS)
    err = ref_fail(op, "tensors[0]: %d dims, at most %d", first.ndim,
                   REF_MAX_DIMS - 1);
  if (err)
    return err;
  int64_t shape[REF_MAX_DIMS];
  for (int i = 0, j = 0; i <= first.ndim; i++)
    shape[i] = i == d ? numTensors : first.shape[j++];
  if ((err = ref_expect_shape(op, "out", &o, shape, first.ndim + 1)))
    return err;
  /* out's slice k: dim d dropped, data moved k strides along it. */
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 1;
  ew.fn = ref_copy_fn;
  ew.f32 = ref_copy_f32;
  ew.out = o;
  ew.out.ndim = first.ndim;
  ew.out.numel = first.numel;
  for (int i = 0, j = 0; i <= first.ndim; i++)
    if (i != d) {
      ew.out.shape[j] = o.shape[i];
      ew.out.strides[j++] = o.strides[i];
    }
  char name[32];
  for (int64_t k = 0; k < numTensors; k++) {
    snprintf(name, sizeof name, "tensors[%lld]", (long long)k);
    if ((err = ref_view(ctx, op, name, tensors[k], &ew.in[0])) ||
        (err =
             ref_expect_shape(op, name, &ew.in[0], first.shape, first.ndim)) ||
        (err = ref_expect_no_partial_overlap(op, name, &o, &ew.in[0])))
      return err;
  }
  for (int64_t k = 0; k < numTensors; k++) {
    ref_view(ctx, op, "tensors", tensors[k], &ew.in[0]);
    if ((err = ref_ew_enqueue(ctx, op, &ew)))
      return err;
    ew.out.data += o.strides[d] * (int64_t)ref_dtype_size(o.dtype);
  }
  return diopiSuccess;
}

REF_EXPORT diopiError_t diopiExpand(diopiContextHandle_t ctx,
                                    diopiTensorHandle_t out,
                                    diopiConstTensorHandle_t input) {
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = 1;
  ew.fn = ref_copy_fn;
  ew.f32 = ref_copy_f32;
  static const char *const names[1] = {"input"};
  return ref_ew_launch(ctx, "diopiExpand", &ew, out, &input, names);
}
