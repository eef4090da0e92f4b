// DeviceGenerator, and each device's default one.
#include "generator.h"

#include <ATen/EmptyTensor.h>
#include <c10/util/Exception.h>

#include <array>
#include <cstring>
#include <mutex>
#include <vector>

#include "bridge.h"

namespace torch_backplane {
namespace {

constexpr size_t kStateBytes = 2 * sizeof(uint64_t); // seed, offset

void check_rt(diopiError_t error, const char *what) {
  TORCH_CHECK(error == diopiSuccess, "backplane: ", what, " failed");
}

} // namespace

DeviceGenerator::DeviceGenerator(c10::DeviceIndex index, uint64_t seed)
    : c10::GeneratorImpl(c10::Device(c10::DeviceType::PrivateUse1, index),
                         c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)) {
  check(bp_ops_generator_create(seed, &handle_), "bp_ops_generator_create");
}

DeviceGenerator::~DeviceGenerator() {
  bp_ops_generator_destroy(handle_);
}

void DeviceGenerator::set_current_seed(uint64_t seed) {
  check_rt(diopiGeneratorSetSeedAndOffset(handle_, seed, 0),
           "diopiGeneratorSetSeedAndOffset");
}

uint64_t DeviceGenerator::current_seed() const {
  uint64_t seed = 0, offset = 0;
  check_rt(diopiGeneratorGetSeedAndOffset(handle_, &seed, &offset),
           "diopiGeneratorGetSeedAndOffset");
  return seed;
}

uint64_t DeviceGenerator::seed() {
  uint64_t seed = c10::detail::getNonDeterministicRandom();
  set_current_seed(seed);
  return seed;
}

c10::intrusive_ptr<c10::TensorImpl> DeviceGenerator::get_state() const {
  std::array<uint64_t, 2> state{};
  check_rt(diopiGeneratorGetSeedAndOffset(handle_, &state[0], &state[1]),
           "diopiGeneratorGetSeedAndOffset");
  at::TensorBase t = at::detail::empty_cpu(
      {static_cast<int64_t>(kStateBytes)}, c10::ScalarType::Byte, c10::nullopt,
      c10::nullopt, c10::nullopt, c10::nullopt);
  std::memcpy(t.data_ptr(), state.data(), kStateBytes);
  return t.getIntrusivePtr();
}

void DeviceGenerator::set_state(const c10::TensorImpl &new_state) {
  at::detail::check_rng_state(new_state);
  TORCH_CHECK(new_state.numel() == static_cast<int64_t>(kStateBytes),
              "RNG state is wrong size: a backplane generator's state is ",
              kStateBytes, " bytes (seed, offset), got ", new_state.numel());
  std::array<uint64_t, 2> state{};
  std::memcpy(state.data(), new_state.data(), kStateBytes);
  check_rt(diopiGeneratorSetSeedAndOffset(handle_, state[0], state[1]),
           "diopiGeneratorSetSeedAndOffset");
}

DeviceGenerator *DeviceGenerator::clone_impl() const {
  auto *copy = new DeviceGenerator(device().index());
  uint64_t seed = 0, offset = 0;
  check_rt(diopiGeneratorGetSeedAndOffset(handle_, &seed, &offset),
           "diopiGeneratorGetSeedAndOffset");
  check_rt(diopiGeneratorSetSeedAndOffset(copy->handle_, seed, offset),
           "diopiGeneratorSetSeedAndOffset");
  return copy;
}

namespace {

// The default generators, made for every device at the first draw (so
// seeding them does not start Backplane's runtime: a seed given before
// that waits in `last_seed`). Never destroyed, as the runtime.
struct Defaults {
  std::mutex mutex;
  std::vector<at::Generator> generators;
  c10::optional<uint64_t> last_seed; // of manual_seed_all, for those made later
};

Defaults &defaults() {
  static auto *d = new Defaults();
  return *d;
}

void seed_locked(const at::Generator &g, uint64_t seed) {
  auto *impl = g.get<DeviceGenerator>();
  std::lock_guard<std::mutex> lock(impl->mutex_);
  impl->set_current_seed(seed);
}

} // namespace

const at::Generator &default_generator(c10::DeviceIndex index) {
  device(index); // validates
  Defaults &d = defaults();
  std::lock_guard<std::mutex> lock(d.mutex);
  if (d.generators.empty()) {
    for (int i = 0; i < device_count(); i++) {
      d.generators.push_back(at::make_generator<DeviceGenerator>(
          static_cast<c10::DeviceIndex>(i)));
      if (d.last_seed)
        seed_locked(d.generators.back(), *d.last_seed);
    }
  }
  return d.generators[index];
}

void manual_seed_all(uint64_t seed) {
  Defaults &d = defaults();
  std::lock_guard<std::mutex> lock(d.mutex);
  d.last_seed = seed;
  for (const at::Generator &g : d.generators)
    seed_locked(g, seed);
}

at::Generator make_generator(c10::DeviceIndex index) {
  device(index); // validates
  return at::make_generator<DeviceGenerator>(index);
}

DeviceGenerator *
generator_or_default(const c10::optional<at::Generator> &generator,
                     c10::DeviceIndex index) {
  return at::get_generator_or_default<DeviceGenerator>(
      generator, default_generator(index));
}

} // namespace torch_backplane
