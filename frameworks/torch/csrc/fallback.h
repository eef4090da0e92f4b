// Counts of the ops that ran through the CPU fallback (fallback.cpp).
#pragma once

#include <string>

namespace torch_backplane {

// "op.overload count\n" per op, sorted by name.
std::string fallback_counts();
void reset_fallback_counts();

} // namespace torch_backplane
