// at::Tensor and c10::Scalar as DIOPI handles and scalars.
#include <c10/util/Exception.h>

#include "op_call.h"

namespace torch_backplane {

diopiDtype_t diopi_dtype(c10::ScalarType type) {
  switch (type) {
  case c10::ScalarType::Float:
    return diopi_dtype_float32;
  case c10::ScalarType::Double:
    return diopi_dtype_float64;
  case c10::ScalarType::Half:
    return diopi_dtype_float16;
  case c10::ScalarType::BFloat16:
    return diopi_dtype_bfloat16;
  case c10::ScalarType::Long:
    return diopi_dtype_int64;
  case c10::ScalarType::Int:
    return diopi_dtype_int32;
  case c10::ScalarType::Short:
    return diopi_dtype_int16;
  case c10::ScalarType::Char:
    return diopi_dtype_int8;
  case c10::ScalarType::Byte:
    return diopi_dtype_uint8;
  case c10::ScalarType::Bool:
    return diopi_dtype_bool;
  default:
    break;
  }
  TORCH_CHECK_NOT_IMPLEMENTED(false, "backplane: dtype ", type,
                              " has no DIOPI equivalent");
}

DiopiTensor::DiopiTensor(const at::Tensor &t) {
  if (!t.defined())
    return;
  TORCH_CHECK(t.dim() <= BP_OPS_MAX_DIMS, "backplane: a tensor of ", t.dim(),
              " dims; DIOPI ops take at most ", BP_OPS_MAX_DIMS);
  bp_device_t *d = nullptr;
  if (t.device().type() == c10::DeviceType::PrivateUse1)
    d = device(t.device().index());
  else
    TORCH_CHECK(t.device().is_cpu(), "backplane: a ", t.device(),
                " tensor cannot be an argument of a backplane op");
  check(bp_ops_tensor_wrap(d, t.data_ptr(), diopi_dtype(t.scalar_type()),
                           static_cast<size_t>(t.dim()), t.sizes().data(),
                           t.strides().data(), &handle_),
        "bp_ops_tensor_wrap");
}

diopiScalar_t diopi_scalar(const c10::Scalar &s) {
  diopiScalar_t out{};
  if (s.isFloatingPoint()) {
    out.stype = diopi_dtype_float64;
    out.fval = s.toDouble();
  } else {
    TORCH_CHECK_NOT_IMPLEMENTED(!s.isComplex(),
                                "backplane: complex scalars are unsupported");
    out.stype = diopi_dtype_int64;
    out.ival = s.toLong();
  }
  return out;
}

} // namespace torch_backplane
