/* DIOPI dtypes: sizes and names. */
#include "backplane/ops.h"

BP_API size_t bp_ops_dtype_size(diopiDtype_t dtype) {
  switch (dtype) {
  case diopi_dtype_int8:
  case diopi_dtype_uint8:
  case diopi_dtype_bool:
    return 1;
  case diopi_dtype_int16:
  case diopi_dtype_uint16:
  case diopi_dtype_float16:
  case diopi_dtype_bfloat16:
    return 2;
  case diopi_dtype_int32:
  case diopi_dtype_uint32:
  case diopi_dtype_float32:
  case diopi_dtype_tfloat32:
  case diopi_dtype_complex32:
    return 4;
  case diopi_dtype_int64:
  case diopi_dtype_uint64:
  case diopi_dtype_float64:
  case diopi_dtype_complex64:
    return 8;
  case diopi_dtype_complex128:
    return 16;
  default:
    return 0;
  }
}

BP_API const char *bp_ops_dtype_name(diopiDtype_t dtype) {
  switch (dtype) {
#define NAME(d)                                                                \
  case diopi_dtype_##d:                                                        \
    return #d;
    NAME(int8)
    NAME(uint8)
    NAME(int16)
    NAME(uint16)
    NAME(int32)
    NAME(uint32)
    NAME(int64)
    NAME(uint64)
    NAME(float16)
    NAME(float32)
    NAME(float64)
    NAME(bool)
    NAME(bfloat16)
    NAME(tfloat32)
    NAME(complex32)
    NAME(complex64)
    NAME(complex128)
#undef NAME
  default:
    return "unknown";
  }
}
