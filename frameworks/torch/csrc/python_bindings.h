// Parts of the Python module torch_backplane._C (defined in
// process_group.cpp) that other files bind.
#pragma once

namespace pybind11 {
class module_;
} // namespace pybind11

namespace torch_backplane {

// _default_generator(index), _new_generator(index), _manual_seed_all(seed):
// the devices' generators as torch.Generator objects (generator.h).
void bind_generators(pybind11::module_ &m);

} // namespace torch_backplane
