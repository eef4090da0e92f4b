#include "kernel_util.h"

#include <ATen/ops/any.h>
#include <ATen/ops/eq.h>

#include <algorithm>

namespace torch_backplane {

void check_integral_divisor(at::ScalarType type, const at::Tensor &divisor) {
  if (!c10::isIntegralType(type, /*includeBool=*/false))
    return;
  bool zero = is_host_scalar(divisor) ? divisor.item().toDouble() == 0
                                      : at::eq(divisor, 0).any().item<bool>();
  TORCH_CHECK(!zero, "ZeroDivisionError");
}

std::vector<int64_t> reduced_dims(const at::Tensor &self,
                                  at::OptionalIntArrayRef dim) {
  std::vector<int64_t> dims;
  if (dim.has_value() && !dim->empty()) {
    for (int64_t d : *dim)
      dims.push_back(c10::maybe_wrap_dim(d, self.dim()));
  } else {
    for (int64_t d = 0; d < self.dim(); d++)
      dims.push_back(d);
  }
  return dims;
}

std::vector<int64_t> reduced_shape(const at::Tensor &self,
                                   const std::vector<int64_t> &dims,
                                   bool keepdim) {
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < self.dim(); d++) {
    bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced)
      shape.push_back(self.size(d));
    else if (keepdim)
      shape.push_back(1);
  }
  return shape;
}

at::ScalarType scalar_type(diopiDtype_t dtype) {
  switch (dtype) {
  case diopi_dtype_float32:
    return at::kFloat;
  case diopi_dtype_float64:
    return at::kDouble;
  case diopi_dtype_float16:
    return at::kHalf;
  case diopi_dtype_bfloat16:
    return at::kBFloat16;
  case diopi_dtype_int64:
    return at::kLong;
  case diopi_dtype_int32:
    return at::kInt;
  case diopi_dtype_int16:
    return at::kShort;
  case diopi_dtype_int8:
    return at::kChar;
  case diopi_dtype_uint8:
    return at::kByte;
  case diopi_dtype_bool:
    return at::kBool;
  default:
    break;
  }
  TORCH_CHECK(false,
              "backplane: the op library returned a tensor of DIOPI "
              "dtype ",
              static_cast<int>(dtype), ", which PyTorch has no match for");
}

} // namespace torch_backplane
