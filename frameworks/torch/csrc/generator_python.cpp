// The devices' generators as Python torch.Generator objects.
#include <torch/csrc/Generator.h>
#include <torch/csrc/utils/pybind.h>

#include "generator.h"
#include "python_bindings.h"

namespace torch_backplane {
namespace {

pybind11::object wrap(const at::Generator &generator) {
  PyObject *object = THPGenerator_Wrap(generator);
  if (!object)
    throw pybind11::error_already_set();
  return pybind11::reinterpret_steal<pybind11::object>(object);
}

} // namespace

void bind_generators(pybind11::module_ &m) {
  m.def(
      "_default_generator",
      [](int index) {
        return wrap(default_generator(static_cast<c10::DeviceIndex>(index)));
      },
      pybind11::arg("index"));
  m.def(
      "_new_generator",
      [](int index) {
        return wrap(make_generator(static_cast<c10::DeviceIndex>(index)));
      },
      pybind11::arg("index"));
  m.def("_manual_seed_all", &manual_seed_all, pybind11::arg("seed"));
}

} // namespace torch_backplane
