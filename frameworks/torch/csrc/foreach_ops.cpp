// The _foreach_* ops of torch.optim's foreach paths (Adam, AdamW, SGD with
// foreach=True; clip_grad_norm_): PyTorch's own per-tensor loops, which call
// the bridge's kernels one tensor at a time. torch 1.13 registers them for
// CPU and CUDA only; without these they would fall back to the CPU.
#include <ATen/ops/_foreach_abs_native.h>
#include <ATen/ops/_foreach_acos_native.h>
#include <ATen/ops/_foreach_add_native.h>
#include <ATen/ops/_foreach_addcdiv_native.h>
#include <ATen/ops/_foreach_addcmul_native.h>
#include <ATen/ops/_foreach_asin_native.h>
#include <ATen/ops/_foreach_atan_native.h>
#include <ATen/ops/_foreach_ceil_native.h>
#include <ATen/ops/_foreach_cos_native.h>
#include <ATen/ops/_foreach_cosh_native.h>
#include <ATen/ops/_foreach_div_native.h>
#include <ATen/ops/_foreach_erf_native.h>
#include <ATen/ops/_foreach_exp_native.h>
#include <ATen/ops/_foreach_expm1_native.h>
#include <ATen/ops/_foreach_floor_native.h>
#include <ATen/ops/_foreach_log10_native.h>
#include <ATen/ops/_foreach_log1p_native.h>
#include <ATen/ops/_foreach_log2_native.h>
#include <ATen/ops/_foreach_log_native.h>
#include <ATen/ops/_foreach_maximum_native.h>
#include <ATen/ops/_foreach_minimum_native.h>
#include <ATen/ops/_foreach_mul_native.h>
#include <ATen/ops/_foreach_neg_native.h>
#include <ATen/ops/_foreach_norm_native.h>
#include <ATen/ops/_foreach_reciprocal_native.h>
#include <ATen/ops/_foreach_sigmoid_native.h>
#include <ATen/ops/_foreach_sin_native.h>
#include <ATen/ops/_foreach_sinh_native.h>
#include <ATen/ops/_foreach_sqrt_native.h>
#include <ATen/ops/_foreach_sub_native.h>
#include <ATen/ops/_foreach_tan_native.h>
#include <ATen/ops/_foreach_tanh_native.h>
#include <ATen/ops/_foreach_zero_native.h>
#include <torch/library.h>

namespace torch_backplane {

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_foreach_add.Scalar",
         at::native::foreach_tensor_add_scalar_kernel_slow);
  m.impl("_foreach_add_.Scalar",
         at::native::foreach_tensor_add_scalar_kernel_slow_);
  m.impl("_foreach_add.List", at::native::foreach_tensor_add_list_kernel_slow);
  m.impl("_foreach_add_.List",
         at::native::foreach_tensor_add_list_kernel_slow_);
  m.impl("_foreach_add.ScalarList",
         at::native::foreach_tensor_add_scalarlist_kernel_slow);
  m.impl("_foreach_add_.ScalarList",
         at::native::foreach_tensor_add_scalarlist_kernel_slow_);
  m.impl("_foreach_sub.Scalar",
         at::native::foreach_tensor_sub_scalar_kernel_slow);
  m.impl("_foreach_sub_.Scalar",
         at::native::foreach_tensor_sub_scalar_kernel_slow_);
  m.impl("_foreach_sub.List", at::native::foreach_tensor_sub_list_kernel_slow);
  m.impl("_foreach_sub_.List",
         at::native::foreach_tensor_sub_list_kernel_slow_);
  m.impl("_foreach_sub.ScalarList",
         at::native::foreach_tensor_sub_scalarlist_kernel_slow);
  m.impl("_foreach_sub_.ScalarList",
         at::native::foreach_tensor_sub_scalarlist_kernel_slow_);
  m.impl("_foreach_mul.Scalar",
         at::native::foreach_tensor_mul_scalar_kernel_slow);
  m.impl("_foreach_mul_.Scalar",
         at::native::foreach_tensor_mul_scalar_kernel_slow_);
  m.impl("_foreach_mul.List", at::native::foreach_tensor_mul_list_kernel_slow);
  m.impl("_foreach_mul_.List",
         at::native::foreach_tensor_mul_list_kernel_slow_);
  m.impl("_foreach_mul.ScalarList",
         at::native::foreach_tensor_mul_scalarlist_kernel_slow);
  m.impl("_foreach_mul_.ScalarList",
         at::native::foreach_tensor_mul_scalarlist_kernel_slow_);
  m.impl("_foreach_div.Scalar",
         at::native::foreach_tensor_div_scalar_kernel_slow);
  m.impl("_foreach_div_.Scalar",
         at::native::foreach_tensor_div_scalar_kernel_slow_);
  m.impl("_foreach_div.List", at::native::foreach_tensor_div_list_kernel_slow);
  m.impl("_foreach_div_.List",
         at::native::foreach_tensor_div_list_kernel_slow_);
  m.impl("_foreach_div.ScalarList",
         at::native::foreach_tensor_div_scalarlist_kernel_slow);
  m.impl("_foreach_div_.ScalarList",
         at::native::foreach_tensor_div_scalarlist_kernel_slow_);
  m.impl("_foreach_addcmul.Scalar",
         at::native::foreach_tensor_addcmul_scalar_slow);
  m.impl("_foreach_addcmul_.Scalar",
         at::native::foreach_tensor_addcmul_scalar_slow_);
  m.impl("_foreach_addcmul.ScalarList",
         at::native::foreach_tensor_addcmul_scalarlist_slow);
  m.impl("_foreach_addcmul_.ScalarList",
         at::native::foreach_tensor_addcmul_scalarlist_slow_);
  m.impl("_foreach_addcdiv.Scalar",
         at::native::foreach_tensor_addcdiv_scalar_slow);
  m.impl("_foreach_addcdiv_.Scalar",
         at::native::foreach_tensor_addcdiv_scalar_slow_);
  m.impl("_foreach_addcdiv.ScalarList",
         at::native::foreach_tensor_addcdiv_scalarlist_slow);
  m.impl("_foreach_addcdiv_.ScalarList",
         at::native::foreach_tensor_addcdiv_scalarlist_slow_);
  m.impl("_foreach_maximum.List", at::native::foreach_tensor_maximum_slow);
  m.impl("_foreach_maximum_.List", at::native::foreach_tensor_maximum_slow_);
  m.impl("_foreach_minimum.List", at::native::foreach_tensor_minimum_slow);
  m.impl("_foreach_minimum_.List", at::native::foreach_tensor_minimum_slow_);
  m.impl("_foreach_abs", at::native::foreach_tensor_abs_slow);
  m.impl("_foreach_abs_", at::native::foreach_tensor_abs_slow_);
  m.impl("_foreach_acos", at::native::foreach_tensor_acos_slow);
  m.impl("_foreach_acos_", at::native::foreach_tensor_acos_slow_);
  m.impl("_foreach_asin", at::native::foreach_tensor_asin_slow);
  m.impl("_foreach_asin_", at::native::foreach_tensor_asin_slow_);
  m.impl("_foreach_atan", at::native::foreach_tensor_atan_slow);
  m.impl("_foreach_atan_", at::native::foreach_tensor_atan_slow_);
  m.impl("_foreach_ceil", at::native::foreach_tensor_ceil_slow);
  m.impl("_foreach_ceil_", at::native::foreach_tensor_ceil_slow_);
  m.impl("_foreach_cos", at::native::foreach_tensor_cos_slow);
  m.impl("_foreach_cos_", at::native::foreach_tensor_cos_slow_);
  m.impl("_foreach_cosh", at::native::foreach_tensor_cosh_slow);
  m.impl("_foreach_cosh_", at::native::foreach_tensor_cosh_slow_);
  m.impl("_foreach_erf", at::native::foreach_tensor_erf_slow);
  m.impl("_foreach_erf_", at::native::foreach_tensor_erf_slow_);
  m.impl("_foreach_exp", at::native::foreach_tensor_exp_slow);
  m.impl("_foreach_exp_", at::native::foreach_tensor_exp_slow_);
  m.impl("_foreach_expm1", at::native::foreach_tensor_expm1_slow);
  m.impl("_foreach_expm1_", at::native::foreach_tensor_expm1_slow_);
  m.impl("_foreach_floor", at::native::foreach_tensor_floor_slow);
  m.impl("_foreach_floor_", at::native::foreach_tensor_floor_slow_);
  m.impl("_foreach_log", at::native::foreach_tensor_log_slow);
  m.impl("_foreach_log_", at::native::foreach_tensor_log_slow_);
  m.impl("_foreach_log10", at::native::foreach_tensor_log10_slow);
  m.impl("_foreach_log10_", at::native::foreach_tensor_log10_slow_);
  m.impl("_foreach_log1p", at::native::foreach_tensor_log1p_slow);
  m.impl("_foreach_log1p_", at::native::foreach_tensor_log1p_slow_);
  m.impl("_foreach_log2", at::native::foreach_tensor_log2_slow);
  m.impl("_foreach_log2_", at::native::foreach_tensor_log2_slow_);
  m.impl("_foreach_neg", at::native::foreach_tensor_neg_slow);
  m.impl("_foreach_neg_", at::native::foreach_tensor_neg_slow_);
  m.impl("_foreach_reciprocal", at::native::foreach_tensor_reciprocal_slow);
  m.impl("_foreach_reciprocal_", at::native::foreach_tensor_reciprocal_slow_);
  m.impl("_foreach_sigmoid", at::native::foreach_tensor_sigmoid_slow);
  m.impl("_foreach_sigmoid_", at::native::foreach_tensor_sigmoid_slow_);
  m.impl("_foreach_sin", at::native::foreach_tensor_sin_slow);
  m.impl("_foreach_sin_", at::native::foreach_tensor_sin_slow_);
  m.impl("_foreach_sinh", at::native::foreach_tensor_sinh_slow);
  m.impl("_foreach_sinh_", at::native::foreach_tensor_sinh_slow_);
  m.impl("_foreach_sqrt", at::native::foreach_tensor_sqrt_slow);
  m.impl("_foreach_sqrt_", at::native::foreach_tensor_sqrt_slow_);
  m.impl("_foreach_tan", at::native::foreach_tensor_tan_slow);
  m.impl("_foreach_tan_", at::native::foreach_tensor_tan_slow_);
  m.impl("_foreach_tanh", at::native::foreach_tensor_tanh_slow);
  m.impl("_foreach_tanh_", at::native::foreach_tensor_tanh_slow_);
  m.impl("_foreach_norm.Scalar", at::native::foreach_tensor_norm_slow);
  m.impl("_foreach_zero_", at::native::foreach_tensor_zero_slow_);
}

} // namespace torch_backplane
