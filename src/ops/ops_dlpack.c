/* DLPack import and export of tensors. */
#include <string.h>

#include "backplane/device.h"
#include "base/status.h"
#include "ops/ops_tensor.h"

/* The DIOPI dtype of a DLPack dtype (lanes 1), or diopi_dtype_unsupported. */
static diopiDtype_t from_dl_dtype(DLDataType t) {
  if (t.lanes != 1)
    return diopi_dtype_unsupported;
  switch (t.code) {
  case kDLInt:
    return t.bits == 8    ? diopi_dtype_int8
           : t.bits == 16 ? diopi_dtype_int16
           : t.bits == 32 ? diopi_dtype_int32
           : t.bits == 64 ? diopi_dtype_int64
                          : diopi_dtype_unsupported;
  case kDLUInt:
    return t.bits == 8    ? diopi_dtype_uint8
           : t.bits == 16 ? diopi_dtype_uint16
           : t.bits == 32 ? diopi_dtype_uint32
           : t.bits == 64 ? diopi_dtype_uint64
                          : diopi_dtype_unsupported;
  case kDLFloat:
    return t.bits == 16   ? diopi_dtype_float16
           : t.bits == 32 ? diopi_dtype_float32
           : t.bits == 64 ? diopi_dtype_float64
                          : diopi_dtype_unsupported;
  case kDLBfloat:
    return t.bits == 16 ? diopi_dtype_bfloat16 : diopi_dtype_unsupported;
  default:
    return diopi_dtype_unsupported;
  }
}

static bool to_dl_dtype(diopiDtype_t d, DLDataType *out) {
  static const struct {
    diopiDtype_t dtype;
    uint8_t code;
  } table[] = {
      {diopi_dtype_int8, kDLInt},        {diopi_dtype_int16, kDLInt},
      {diopi_dtype_int32, kDLInt},       {diopi_dtype_int64, kDLInt},
      {diopi_dtype_uint8, kDLUInt},      {diopi_dtype_uint16, kDLUInt},
      {diopi_dtype_uint32, kDLUInt},     {diopi_dtype_uint64, kDLUInt},
      {diopi_dtype_bool, kDLUInt},       {diopi_dtype_float16, kDLFloat},
      {diopi_dtype_float32, kDLFloat},   {diopi_dtype_float64, kDLFloat},
      {diopi_dtype_bfloat16, kDLBfloat},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (table[i].dtype == d) {
      out->code = table[i].code;
      out->bits = (uint8_t)(8 * bp_ops_dtype_size(d));
      out->lanes = 1;
      return true;
    }
  }
  return false;
}

BP_API bp_status_t bp_ops_tensor_from_dlpack(bp_runtime_t *runtime,
                                             const DLTensor *dl,
                                             diopiTensorHandle_t *out_tensor) {
  if (!dl || !out_tensor)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_tensor_from_dlpack: dl or out_tensor is NULL");
  diopiDtype_t dtype = from_dl_dtype(dl->dtype);
  if (dtype == diopi_dtype_unsupported)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_ops_tensor_from_dlpack: DLPack dtype code %u, %u bits, "
                    "%u lanes has no DIOPI dtype",
                    dl->dtype.code, dl->dtype.bits, dl->dtype.lanes);
  if (dl->ndim < 0 || dl->ndim > BP_OPS_MAX_DIMS)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_tensor_from_dlpack: %d dims (at most %d)", dl->ndim,
                    BP_OPS_MAX_DIMS);
  bp_device_t *device = NULL;
  if (dl->device.device_type != kDLCPU) {
    bp_status_t status = runtime
                             ? bp_device_from_dl(runtime, dl->device, &device)
                             : bp_error(BP_ERR_INVALID_ARGUMENT,
                                        "bp_ops_tensor_from_dlpack: a "
                                        "device tensor needs a runtime");
    if (status != BP_OK)
      return status;
  }
  size_t elem = bp_ops_dtype_size(dtype);
  if (dl->byte_offset % elem)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_tensor_from_dlpack: byte_offset %llu is not a "
                    "multiple of the element size %zu",
                    (unsigned long long)dl->byte_offset, elem);
  struct diopiTensor *t;
  bp_status_t status = ops_tensor_new(dl->data, 0, dtype, (size_t)dl->ndim,
                                      dl->shape, dl->strides, device, &t);
  if (status != BP_OK)
    return status;
  t->storage_offset = (int64_t)(dl->byte_offset / elem);
  t->storage_nbytes =
      dl->byte_offset +
      ops_tensor_span_bytes(dtype, (size_t)t->ndim, t->shape, t->strides);
  *out_tensor = t;
  return BP_OK;
}

BP_API bp_status_t bp_ops_tensor_to_dlpack(diopiConstTensorHandle_t t,
                                           DLTensor *out_dl) {
  if (!t || !out_dl)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_tensor_to_dlpack: tensor or out_dl is NULL");
  DLDataType dtype;
  if (!to_dl_dtype(t->dtype, &dtype))
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_ops_tensor_to_dlpack: %s has no DLPack dtype",
                    bp_ops_dtype_name(t->dtype));
  memset(out_dl, 0, sizeof *out_dl);
  out_dl->data = t->storage;
  out_dl->device =
      t->device ? bp_device_to_dl(t->device) : (DLDevice){kDLCPU, 0};
  out_dl->ndim = (int32_t)t->ndim;
  out_dl->dtype = dtype;
  out_dl->shape = (int64_t *)t->shape;
  out_dl->strides = (int64_t *)t->strides;
  out_dl->byte_offset =
      (uint64_t)t->storage_offset * bp_ops_dtype_size(t->dtype);
  return BP_OK;
}
