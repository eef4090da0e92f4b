// Reflection and replication padding of the last 1 to 3 dims, forward and
// backward. Forward is diopiPad in the mode. Backward adds each output
// gradient into the input element the forward read it from: the input's
// flat positions (diopiArange) padded in the same mode name each output's
// source, and diopiIndexPutInp accumulates the gradient there.
#include <torch/library.h>

#include <vector>

#include "kernel_util.h"

namespace torch_backplane {
namespace {

// self's shape with each of the last padding.size() / 2 dims grown by its
// two pads (padding as F.pad orders it: the last dim's pair first).
std::vector<int64_t> padded_shape(const at::Tensor &self,
                                  c10::IntArrayRef padding, const char *op) {
  int64_t dims = static_cast<int64_t>(padding.size()) / 2;
  TORCH_CHECK(padding.size() % 2 == 0 && dims <= self.dim(), op,
              ": padding of ", padding.size(), " values for a ", self.dim(),
              "-d input");
  std::vector<int64_t> shape = self.sizes().vec();
  for (int64_t i = 0; i < dims; i++) {
    int64_t &n = shape[self.dim() - 1 - i];
    n += padding[2 * i] + padding[2 * i + 1];
    TORCH_CHECK(n > 0, op, ": padding ", padding, " leaves dim ",
                self.dim() - 1 - i, " of ", self.sizes(), " empty");
  }
  return shape;
}

at::Tensor &pad_into(const at::Tensor &self, c10::IntArrayRef padding,
                     const char *mode, const char *op, at::Tensor &out) {
  shaped_out(out, padded_shape(self, padding, op));
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiPad, ctx, o, x, diopi_size(padding), mode, nullptr);
  return out;
}

at::Tensor &pad_backward_into(const at::Tensor &grad_output,
                              const at::Tensor &self, c10::IntArrayRef padding,
                              const char *mode, const char *op,
                              at::Tensor &grad_input) {
  std::vector<int64_t> out_shape = padded_shape(self, padding, op);
  TORCH_CHECK(grad_output.sizes().equals(out_shape), op, ": grad_output is ",
              grad_output.sizes(), ", the padded input ",
              c10::IntArrayRef(out_shape));
  shaped_out(grad_input, self.sizes());
  int64_t numel = self.numel();
  at::Tensor positions = new_tensor(self, {numel}, at::kLong);
  at::Tensor sources = new_tensor(self, out_shape, at::kLong);
  at::Tensor sums = new_tensor(self, {numel}, self.scalar_type());
  at::Tensor grads = grad_output.contiguous();
  OpContext ctx(self);
  diopiScalar_t zero = diopi_scalar(0), end = diopi_scalar(numel),
                one = diopi_scalar(1);
  {
    DiopiTensor p(positions), s(sums);
    if (numel > 0)
      BP_CALL(diopiArange, ctx, p, &zero, &end, &one);
    BP_CALL(diopiFill, ctx, s, &zero);
  }
  {
    DiopiTensor p(positions.view(self.sizes())), s(sources);
    BP_CALL(diopiPad, ctx, s, p, diopi_size(padding), mode, nullptr);
  }
  DiopiTensor s(sums), g(grads.view({grads.numel()})),
      index(sources.view({sources.numel()}));
  diopiConstTensorHandle_t indices[1] = {index};
  BP_CALL(diopiIndexPutInp, ctx, s, g, indices, 1, true);
  DiopiTensor from(sums.view(self.sizes())), to(grad_input);
  BP_CALL(diopiCopyInp, ctx, from, to);
  return grad_input;
}

// One forward and one backward kernel (functional and out=) per mode and
// dim count, named as ATen names them.
template <int Dims, bool Reflect> struct Padding {
  static constexpr const char *mode = Reflect ? "reflect" : "replicate";
  static const char *name() {
    static const char *names[2][3] = {
        {"replication_pad1d", "replication_pad2d", "replication_pad3d"},
        {"reflection_pad1d", "reflection_pad2d", "reflection_pad3d"}};
    return names[Reflect][Dims - 1];
  }
  static at::Tensor &forward_out(const at::Tensor &self,
                                 c10::IntArrayRef padding, at::Tensor &out) {
    return pad_into(self, padding, mode, name(), out);
  }
  static at::Tensor forward(const at::Tensor &self, c10::IntArrayRef padding) {
    at::Tensor out = new_tensor(self, {0}, self.scalar_type());
    return pad_into(self, padding, mode, name(), out);
  }
  static at::Tensor &backward_out(const at::Tensor &grad_output,
                                  const at::Tensor &self,
                                  c10::IntArrayRef padding,
                                  at::Tensor &grad_input) {
    return pad_backward_into(grad_output, self, padding, mode, name(),
                             grad_input);
  }
  static at::Tensor backward(const at::Tensor &grad_output,
                             const at::Tensor &self, c10::IntArrayRef padding) {
    at::Tensor grad_input = new_tensor(self, {0}, self.scalar_type());
    return pad_backward_into(grad_output, self, padding, mode, name(),
                             grad_input);
  }
};

template <int Dims, bool Reflect> void register_padding(torch::Library &m) {
  using P = Padding<Dims, Reflect>;
  std::string name = P::name();
  m.impl(name.c_str(), P::forward);
  m.impl((name + ".out").c_str(), P::forward_out);
  m.impl((name + "_backward").c_str(), P::backward);
  m.impl((name + "_backward.grad_input").c_str(), P::backward_out);
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_padding<1, true>(m);
  register_padding<2, true>(m);
  register_padding<3, true>(m);
  register_padding<1, false>(m);
  register_padding<2, false>(m);
  register_padding<3, false>(m);
}

} // namespace torch_backplane
