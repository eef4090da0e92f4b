// Random fills on the device: uniform_, normal_, bernoulli_ (dropout's
// mask), random_. Each draw takes a fresh seed from the PyTorch generator
// the caller gives, else PyTorch's default CPU generator, so
// torch.manual_seed makes device randomness reproducible (the numbers differ
// from the CPU's: the op library has its own counter-based generator).
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/DistributionsHelper.h>
#include <torch/library.h>

#include <mutex>

#include "kernel_util.h"

namespace torch_backplane {
namespace {

// An op-library generator seeded from PyTorch's (owned; freed on scope
// exit; the op reads its seed and offset when it is called).
class Draw {
public:
  explicit Draw(const c10::optional<at::Generator> &generator) {
    at::Generator g = generator.has_value() && generator->defined()
                          ? *generator
                          : at::detail::getDefaultCPUGenerator();
    TORCH_CHECK(g.device().is_cpu(),
                "backplane: a random op on the backplane device takes a CPU "
                "generator (it seeds the device's own), got one of ",
                g.device());
    uint64_t seed;
    {
      std::lock_guard<std::mutex> lock(g.mutex());
      seed = at::check_generator<at::CPUGeneratorImpl>(g)->random64();
    }
    check(bp_ops_generator_create(seed, &handle_), "bp_ops_generator_create");
  }
  ~Draw() {
    bp_ops_generator_destroy(handle_);
  }
  Draw(const Draw &) = delete;
  Draw &operator=(const Draw &) = delete;
  operator diopiGeneratorHandle_t() const {
    return handle_;
  }

private:
  diopiGeneratorHandle_t handle_ = nullptr;
};

at::Tensor &uniform_(at::Tensor &self, double from, double to,
                     c10::optional<at::Generator> generator) {
  TORCH_CHECK(from <= to,
              "uniform_ expects to return a [from, to) range, but "
              "found from=",
              from, " > to=", to);
  if (self.numel() == 0)
    return self;
  Draw draw(generator);
  OpContext ctx(self);
  DiopiTensor x(self);
  BP_CALL(diopiUniformInp, ctx, x, from, to, draw);
  return self;
}

at::Tensor &normal_(at::Tensor &self, double mean, double std,
                    c10::optional<at::Generator> generator) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (self.numel() == 0)
    return self;
  Draw draw(generator);
  OpContext ctx(self);
  DiopiTensor x(self);
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
  Draw draw(generator);
  OpContext ctx(self);
  DiopiTensor x(self);
  BP_CALL(diopiBernoulliScalar, ctx, x, p, draw);
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
  Draw draw(generator);
  OpContext ctx(self);
  DiopiTensor x(self);
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

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("uniform_", uniform_);
  m.impl("normal_", normal_);
  m.impl("bernoulli_.float", bernoulli_);
  m.impl("random_.from", random_range);
  m.impl("random_.to", random_to);
  m.impl("random_", random_any);
}

} // namespace torch_backplane
