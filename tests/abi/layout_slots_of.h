/* Where each row of the layout table (backplane/device_layout_table.h) sits
 * in the C_DeviceInterface that a C++ translation unit sees, read from that
 * header itself with offsetof: a unit includes exactly one layout's header
 * (Backplane's or Paddle's) and then this file. A row whose field the header
 * lacks reads -1. Everything here has internal linkage, so two units seeing
 * different C_DeviceInterface types never share an instantiation. */
#ifndef BACKPLANE_TESTS_ABI_LAYOUT_SLOTS_OF_H_
#define BACKPLANE_TESTS_ABI_LAYOUT_SLOTS_OF_H_

#include <cstddef>
#include <type_traits>

#include "backplane/device_layout_table.h"

namespace {

#define LAYOUT_SLOT_OF_ROW(row, field, a, b, c, d, e)                          \
  template <typename T, typename = void>                                       \
  struct has_##row : std::false_type {};                                       \
  template <typename T>                                                        \
  struct has_##row<T, std::void_t<decltype(&T::field)>> : std::true_type {};   \
  template <typename T> long slot_of_##row() {                                 \
    if constexpr (has_##row<T>::value)                                         \
      return static_cast<long>(offsetof(T, field) / 8);                        \
    else                                                                       \
      return -1;                                                               \
  }
BP_DEVICE_LAYOUT_SLOTS(LAYOUT_SLOT_OF_ROW)
#undef LAYOUT_SLOT_OF_ROW

/* Fills out[row] for every row, in table order. */
template <typename Interface> void layout_slots_of(long *out) {
  std::size_t row = 0;
#define LAYOUT_SLOT_OF_ROW(row_name, field, a, b, c, d, e)                     \
  out[row++] = slot_of_##row_name<Interface>();
  BP_DEVICE_LAYOUT_SLOTS(LAYOUT_SLOT_OF_ROW)
#undef LAYOUT_SLOT_OF_ROW
}

} // namespace

#endif /* BACKPLANE_TESTS_ABI_LAYOUT_SLOTS_OF_H_ */
