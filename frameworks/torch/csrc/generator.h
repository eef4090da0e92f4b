// The device's torch.Generator: a c10::GeneratorImpl over the op library's
// (seed, offset) counter generator (bp_ops_generator_create), so a draw is
// a pure function of the generator's state, as CUDA's Philox generator.
// torch 1.13's torch.Generator(device=...) accepts only cpu and cuda, so
// Python reaches these through torch_backplane.Generator and
// torch_backplane.default_generators (THPGenerator_Wrap: real
// torch.Generator objects, with manual_seed, seed, initial_seed,
// get_state and set_state).
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/GeneratorImpl.h>

#include "backplane/ops.h"

namespace torch_backplane {

class DeviceGenerator final : public c10::GeneratorImpl {
public:
  explicit DeviceGenerator(c10::DeviceIndex index,
                           uint64_t seed = c10::default_rng_seed_val);
  ~DeviceGenerator() override;

  // at::check_generator's tag: a generator of another device type passed
  // to a device op is refused, as CUDA refuses a CPU generator.
  static c10::DeviceType device_type() {
    return c10::DeviceType::PrivateUse1;
  }

  void set_current_seed(uint64_t seed) override; // offset back to 0
  uint64_t current_seed() const override;
  uint64_t seed() override; // a nondeterministic seed, set and returned
  // The state is a CPU uint8 tensor of 16 bytes: seed, then offset.
  void set_state(const c10::TensorImpl &new_state) override;
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override;

  // The op library's handle: ops reserve their draws from it when called
  // (advancing its offset). Hold mutex_ across the op call.
  diopiGeneratorHandle_t handle() const {
    return handle_;
  }

private:
  DeviceGenerator *clone_impl() const override;
  diopiGeneratorHandle_t handle_ = nullptr;
};

// Device `index`'s default generator (created on first use with
// c10::default_rng_seed_val, as CUDA's); lives as long as the process.
const at::Generator &default_generator(c10::DeviceIndex index);
// Seeds every device's default generator (torch.cuda.manual_seed_all);
// before the first draw this starts nothing: the generators take the seed
// when they are made.
void manual_seed_all(uint64_t seed);
// A new generator of device `index`.
at::Generator make_generator(c10::DeviceIndex index);
// `generator` when given (it must be a backplane generator), else the
// default generator of `index`.
DeviceGenerator *
generator_or_default(const c10::optional<at::Generator> &generator,
                     c10::DeviceIndex index);

} // namespace torch_backplane
