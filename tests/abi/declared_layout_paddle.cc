/* The layout Paddle's own device_ext.h declares: the installed wheel's
 * header, named by its full path (BP_PADDLE_DEVICE_EXT_H, under
 * paddle.sysconfig.get_include()) since Backplane's include folder has a
 * forwarder at the same relative path. */
#include BP_PADDLE_DEVICE_EXT_H

#include "abi/layout_sizes.h"
#include "abi/layout_slots_of.h"

extern "C" void declared_layout_of_paddle(declared_layout_t *out) {
  out->interface_size = sizeof(C_DeviceInterface);
  out->params_size = sizeof(CustomRuntimeParams);
  out->params_version = offsetof(CustomRuntimeParams, version);
  out->params_device_type = offsetof(CustomRuntimeParams, device_type);
  out->params_sub_device_type = offsetof(CustomRuntimeParams, sub_device_type);
  layout_slots_of<C_DeviceInterface>(out->slots);
}
