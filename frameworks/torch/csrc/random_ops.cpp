// Random ops on the device: uniform_, normal_, bernoulli_ (a probability or
// a tensor of them; so dropout), random_ (so randint), randperm and
// multinomial. Each draws from a backplane generator (generator.h): the one
// the caller passes, else the device's default one, which
// torch.manual_seed seeds; so same seed, same numbers (they differ from the
// CPU's: the op library has its own counter-based generator).
#include <ATen/ExpandUtils.h>
#include <torch/library.h>

#include <mutex>

#include "generator.h"
#include "kernel_util.h"

namespace torch_backplane {
namespace {

// The generator of a draw on `self`'s device, locked for the op call: the
// op reserves its draws from it when called.
class Draw {
public:
  Draw(const c10::optional<at::Generator> &generator, const at::Tensor &self)
      : generator_(generator_or_default(generator, self.device().index())),
        lock_(generator_->mutex_) {}
  Draw(const Draw &) = delete;
  Draw &operator=(const Draw &) = delete;
  operator diopiGeneratorHandle_t() const {
    return generator_->handle();
  }

private:
  DeviceGenerator *generator_;
  std::lock_guard<std::mutex> lock_;
};

at::Tensor &uniform_(at::Tensor &self, double from, double to,
                     c10::optional<at::Generator> generator) {
  TORCH_CHECK(from <= to,
              "uniform_ expects to return a [from, to) range, but "
              "found from=",
              from, " > to=", to);
  if (self.numel() == 0)
    return self;
  OpContext ctx(self);
  DiopiTensor x(self);
  Draw draw(generator, self);
  BP_CALL(diopiUniformInp, ctx, x, from, to, draw);
  return self;
}

at::Tensor &normal_(at::Tensor &self, double mean, double std,
                    c10::optional<at::Generator> generator) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (self.numel() == 0)
    return self;
  OpContext ctx(self);
  DiopiTensor x(self);
  Draw draw(generator, self);
  BP_CALL(diopiNormalInp, ctx, x, mean, std, draw);
  return self;
}

at::Tensor &bernoulli_(at::Tensor &self, double p,
                       c10::optional<at::Generator> generator) {
  TORCH_CHECK(0 <= p && p <= 1,
              "bernoulli_ expects p to be in [0, 1], but "
              "got p=",
              p);
  if (self.numel() == 0)
    return self;
  OpContext ctx(self);
  DiopiTensor x(self);
  Draw draw(generator, self);
  BP_CALL(diopiBernoulliScalar, ctx, x, p, draw);
  return self;
}

// Each element 1 with the probability at its place in p (broadcast to
// self's shape).
at::Tensor &bernoulli_tensor_(at::Tensor &self, const at::Tensor &p,
                              c10::optional<at::Generator> generator) {
  if (self.numel() == 0)
    return self;
  at::Tensor probs = on_device(p, self.device()).expand(self.sizes());
  OpContext ctx(self);
  DiopiTensor x(self), q(probs);
  Draw draw(generator, self);
  BP_CALL(diopiBernoulli, ctx, x, q, draw);
  return self;
}

// [from, to), to absent: the library's default range for the dtype.
at::Tensor &random_range(at::Tensor &self, int64_t from,
                         c10::optional<int64_t> to,
                         c10::optional<at::Generator> generator) {
  TORCH_CHECK(!to.has_value() || from < *to,
              "random_ expects 'from' to be less than 'to', but got from=",
              from, " >= to=", to.value_or(0));
  if (self.numel() == 0)
    return self;
  int64_t end = to.value_or(0);
  OpContext ctx(self);
  DiopiTensor x(self);
  Draw draw(generator, self);
  BP_CALL(diopiRandomInp, ctx, x, from, to.has_value() ? &end : nullptr, draw);
  return self;
}
at::Tensor &random_to(at::Tensor &self, int64_t to,
                      c10::optional<at::Generator> generator) {
  return random_range(self, 0, to, generator);
}
at::Tensor &random_any(at::Tensor &self,
                       c10::optional<at::Generator> generator) {
  return random_range(self, 0, c10::nullopt, generator);
}

// torch.randperm(n, device=...) allocates out and lands here.
at::Tensor &randperm_out(int64_t n, c10::optional<at::Generator> generator,
                         at::Tensor &out) {
  TORCH_CHECK(n >= 0, "n must be non-negative, got", n);
  shaped_out(out, {n});
  if (n == 0)
    return out;
  OpContext ctx(out);
  DiopiTensor o(out);
  Draw draw(generator, out);
  BP_CALL(diopiRandperm, ctx, o, n, draw);
  return out;
}

at::Tensor &multinomial_out(const at::Tensor &self, int64_t n_sample,
                            bool replacement,
                            c10::optional<at::Generator> generator,
                            at::Tensor &out) {
  TORCH_CHECK(self.dim() > 0 && self.dim() <= 2,
              "prob_dist must be 1 or 2 dim");
  std::vector<int64_t> shape{n_sample};
  if (self.dim() == 2)
    shape.insert(shape.begin(), self.size(0));
  shaped_out(out, shape);
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  Draw draw(generator, self);
  BP_CALL(diopiMultinomial, ctx, o, x, n_sample, replacement, draw);
  return out;
}

at::Tensor multinomial(const at::Tensor &self, int64_t n_sample,
                       bool replacement,
                       c10::optional<at::Generator> generator) {
  at::Tensor out = new_tensor(self, {0}, at::kLong);
  return multinomial_out(self, n_sample, replacement, generator, out);
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("uniform_", uniform_);
  m.impl("normal_", normal_);
  m.impl("bernoulli_.float", bernoulli_);
  m.impl("bernoulli_.Tensor", bernoulli_tensor_);
  m.impl("random_.from", random_range);
  m.impl("random_.to", random_to);
  m.impl("random_", random_any);
  m.impl("randperm.generator_out", randperm_out);
  m.impl("multinomial", multinomial);
  m.impl("multinomial.out", multinomial_out);
}

} // namespace torch_backplane
