/* The layout Backplane's own device_ext.h (layout B) declares. */
#include "backplane/device_ext.h"

#include "abi/layout_sizes.h"
#include "abi/layout_slots_of.h"

extern "C" void declared_layout_of_backplane(declared_layout_t *out) {
  out->interface_size = sizeof(C_DeviceInterface);
  out->params_size = sizeof(CustomRuntimeParams);
  out->params_version = offsetof(CustomRuntimeParams, version);
  out->params_device_type = offsetof(CustomRuntimeParams, device_type);
  out->params_sub_device_type = offsetof(CustomRuntimeParams, sub_device_type);
  layout_slots_of<C_DeviceInterface>(out->slots);
}
