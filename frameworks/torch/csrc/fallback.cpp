// Ops without a backplane kernel. BACKPLANE_TORCH_FALLBACKS chooses:
//   unset / "warn": run on the CPU (inputs copied to the host, results back),
//                   one warning per op naming it;
//   "1" / "print":  the same, and one line on stderr for every call;
//   "0" / "error":  NotImplementedError naming the op.
// Every fallback is counted per op (torch_backplane.fallback_counts()).
#include <ATen/native/CPUFallback.h>
#include <torch/library.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "fallback.h"

namespace torch_backplane {
namespace {

enum class Mode { kWarn, kPrint, kError };

Mode mode() {
  static const Mode m = [] {
    const char *v = std::getenv("BACKPLANE_TORCH_FALLBACKS");
    std::string s = v ? v : "";
    if (s == "0" || s == "error")
      return Mode::kError;
    if (s == "1" || s == "print")
      return Mode::kPrint;
    return Mode::kWarn;
  }();
  return m;
}

std::mutex counts_mutex;
std::map<std::string, uint64_t> counts;

void cpu_fallback(const c10::OperatorHandle &op, torch::jit::Stack *stack) {
  const auto &name = op.schema().operator_name();
  std::string full = name.overload_name.empty()
                         ? name.name
                         : name.name + "." + name.overload_name;
  TORCH_CHECK_NOT_IMPLEMENTED(
      mode() != Mode::kError, "backplane: ", full,
      " has no kernel for the backplane device (PrivateUse1), and "
      "BACKPLANE_TORCH_FALLBACKS=error forbids running it on the CPU");
  bool first;
  {
    std::lock_guard<std::mutex> lock(counts_mutex);
    first = counts[full]++ == 0;
  }
  if (mode() == Mode::kPrint)
    std::fprintf(stderr, "backplane: CPU fallback: %s\n", full.c_str());
  else if (first)
    TORCH_WARN("backplane: ", full,
               " has no backplane kernel and runs on the CPU (counted in "
               "torch_backplane.fallback_counts(); "
               "BACKPLANE_TORCH_FALLBACKS=error refuses it)");
  at::native::cpu_fallback(op, stack);
}

} // namespace

std::string fallback_counts() {
  std::lock_guard<std::mutex> lock(counts_mutex);
  std::string out;
  for (const auto &entry : counts)
    out += entry.first + " " + std::to_string(entry.second) + "\n";
  return out;
}

void reset_fallback_counts() {
  std::lock_guard<std::mutex> lock(counts_mutex);
  counts.clear();
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&cpu_fallback>());
}

} // namespace torch_backplane

namespace torch_backplane {

// torch 1.13 registers a fallthrough for the autograd keys of CPU, CUDA and
// a few others, not for AutogradPrivateUse1: without this one, ops that have
// no autograd formula (c10d::allreduce_ and the other collectives) could not
// reach their PrivateUse1 kernel at all. Ops with a formula keep it.
TORCH_LIBRARY_IMPL(_, AutogradPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFallthrough());
}

} // namespace torch_backplane
