/* Conversions between the framework face's enumerations and the vendor
 * ABI's. Written as switches, not casts, so that neither numbering depends
 * on the other. */
#include "core/vendor_types.h"

#include <string.h>

bool bp_dtype_to_c(bp_dtype_t dtype, C_DataType *out) {
  C_DataType c;
  switch (dtype) {
  case BP_DTYPE_BOOL:
    c = BOOL;
    break;
  case BP_DTYPE_UINT8:
    c = UINT8;
    break;
  case BP_DTYPE_UINT16:
    c = UINT16;
    break;
  case BP_DTYPE_UINT32:
    c = UINT32;
    break;
  case BP_DTYPE_UINT64:
    c = UINT64;
    break;
  case BP_DTYPE_INT8:
    c = INT8;
    break;
  case BP_DTYPE_INT16:
    c = INT16;
    break;
  case BP_DTYPE_INT32:
    c = INT32;
    break;
  case BP_DTYPE_INT64:
    c = INT64;
    break;
  case BP_DTYPE_FLOAT16:
    c = FLOAT16;
    break;
  case BP_DTYPE_FLOAT32:
    c = FLOAT32;
    break;
  case BP_DTYPE_FLOAT64:
    c = FLOAT64;
    break;
  case BP_DTYPE_BFLOAT16:
    c = BFLOAT16;
    break;
  case BP_DTYPE_COMPLEX64:
    c = COMPLEX64;
    break;
  case BP_DTYPE_COMPLEX128:
    c = COMPLEX128;
    break;
  default:
    return false;
  }
  *out = c;
  return true;
}

bool bp_reduce_op_to_c(bp_reduce_op_t op, C_CCLReduceOp *out) {
  C_CCLReduceOp c;
  switch (op) {
  case BP_REDUCE_SUM:
    c = SUM;
    break;
  case BP_REDUCE_AVG:
    c = AVG;
    break;
  case BP_REDUCE_MAX:
    c = MAX;
    break;
  case BP_REDUCE_MIN:
    c = MIN;
    break;
  case BP_REDUCE_PRODUCT:
    c = PRODUCT;
    break;
  default:
    return false;
  }
  *out = c;
  return true;
}

bool bp_device_attr_to_c(bp_device_attr_t attr, BP_DeviceAttr *out) {
  static const BP_DeviceAttr table[BP_DEVICE_ATTR_COUNT] = {
      [BP_DEVICE_ATTR_EXIST] = BP_ATTR_EXIST,
      [BP_DEVICE_ATTR_MAX_THREADS_PER_BLOCK] = BP_ATTR_MAX_THREADS_PER_BLOCK,
      [BP_DEVICE_ATTR_WARP_SIZE] = BP_ATTR_WARP_SIZE,
      [BP_DEVICE_ATTR_MAX_SHARED_MEMORY_PER_BLOCK] =
          BP_ATTR_MAX_SHARED_MEMORY_PER_BLOCK,
      [BP_DEVICE_ATTR_COMPUTE_VERSION] = BP_ATTR_COMPUTE_VERSION,
      [BP_DEVICE_ATTR_DEVICE_NAME] = BP_ATTR_DEVICE_NAME,
      [BP_DEVICE_ATTR_MAX_CLOCK_RATE] = BP_ATTR_MAX_CLOCK_RATE,
      [BP_DEVICE_ATTR_MULTI_PROCESSOR_COUNT] = BP_ATTR_MULTI_PROCESSOR_COUNT,
      [BP_DEVICE_ATTR_MAX_THREAD_DIMENSIONS] = BP_ATTR_MAX_THREAD_DIMENSIONS,
      [BP_DEVICE_ATTR_MAX_REGISTERS_PER_BLOCK] =
          BP_ATTR_MAX_REGISTERS_PER_BLOCK,
      [BP_DEVICE_ATTR_GCN_ARCH] = BP_ATTR_GCN_ARCH,
      [BP_DEVICE_ATTR_API_VERSION] = BP_ATTR_API_VERSION,
      [BP_DEVICE_ATTR_DRIVER_VERSION] = BP_ATTR_DRIVER_VERSION,
      [BP_DEVICE_ATTR_L2_CACHE_SIZE_BYTES] = BP_ATTR_L2_CACHE_SIZE_BYTES,
      [BP_DEVICE_ATTR_TOTAL_GLOBAL_MEMORY] = BP_ATTR_TOTAL_GLOBAL_MEMORY,
      [BP_DEVICE_ATTR_AVAILABLE_GLOBAL_MEMORY] =
          BP_ATTR_AVAILABLE_GLOBAL_MEMORY,
      [BP_DEVICE_ATTR_IMAGE_PITCH_ALIGNMENT] = BP_ATTR_IMAGE_PITCH_ALIGNMENT,
  };
  if ((int)attr < 0 || attr >= BP_DEVICE_ATTR_COUNT)
    return false;
  *out = table[attr];
  return true;
}

bool bp_device_attr_value_from_c(const BP_AttrValue *value,
                                 bp_device_attr_value_t *out) {
  switch (value->kind) {
  case BP_ATTR_VALUE_INT:
    memset(out, 0, sizeof *out);
    out->kind = BP_DEVICE_ATTR_VALUE_INT;
    out->i64 = value->i64;
    return true;
  case BP_ATTR_VALUE_STRING:
    memset(out, 0, sizeof *out);
    out->kind = BP_DEVICE_ATTR_VALUE_STRING;
    memcpy(out->str, value->str, sizeof out->str - 1);
    return true;
  default:
    return false;
  }
}

bp_status_t bp_status_from_comm_ext(int32_t status) {
  switch (status) {
  case BP_COMM_EXT_OK:
    return BP_OK;
  case BP_COMM_EXT_INVALID_USAGE:
    return BP_ERR_INVALID_ARGUMENT;
  case BP_COMM_EXT_OUT_OF_MEMORY:
    return BP_ERR_OUT_OF_MEMORY;
  case BP_COMM_EXT_UNSUPPORTED:
    return BP_ERR_UNSUPPORTED;
  case BP_COMM_EXT_SYSTEM_ERROR:
    return BP_ERR_PLUGIN;
  case BP_COMM_EXT_TIMEOUT:
    return BP_ERR_TIMEOUT;
  case BP_COMM_EXT_ABORTED:
    return BP_ERR_ABORTED;
  case BP_COMM_EXT_INTERNAL:
    return BP_ERR_INTERNAL;
  case BP_COMM_EXT_PEER_LOST:
    return BP_ERR_PEER_LOST;
  default:
    return BP_ERR_PLUGIN;
  }
}
