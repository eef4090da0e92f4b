#include "core/dispatch.h"

#include <stdlib.h>
#include <string.h>

#include "core/device_table.h"

/* Each row's params must be the header's type for that field. */
#define BP_SLOT_TYPE_CHECK(name, need, layers, params, args)                   \
  _Static_assert(_Generic(((C_DeviceInterface *)0)->name,                      \
                          C_Status(*) params : 1, default : 0),                \
                 "core/plugin_slots.h: the parameters of " #name               \
                 " differ from device_ext.h");
BP_PLUGIN_SLOTS(BP_SLOT_TYPE_CHECK)
#undef BP_SLOT_TYPE_CHECK

const bp_interface_function_t bp_interface_functions[] = {
#define BP_SLOT_ROW(name, need, layers, params, args)                          \
  {#name, offsetof(C_DeviceInterface, name), BP_SLOT_NEED_##need},
    BP_PLUGIN_SLOTS(BP_SLOT_ROW)
#undef BP_SLOT_ROW
};
const size_t bp_interface_function_count =
    sizeof bp_interface_functions / sizeof bp_interface_functions[0];

int bp_interface_has(const C_DeviceInterface *table, size_t offset) {
  void (*fn)(void);
  memcpy(&fn, (const char *)table + offset, sizeof fn);
  return fn != NULL;
}

bp_status_t bp_plugin_classify_functions(bp_plugin_t *plugin) {
  const char ***lists[] = {&plugin->native_functions,
                           &plugin->fallback_functions,
                           &plugin->missing_functions};
  for (size_t l = 0; l < 3; ++l) {
    *lists[l] = calloc(bp_interface_function_count + 1, sizeof(const char *));
    if (!*lists[l])
      return BP_ERR_OUT_OF_MEMORY;
  }
  size_t counts[3] = {0, 0, 0};
  for (size_t i = 0; i < bp_interface_function_count; ++i) {
    const bp_interface_function_t *fn = &bp_interface_functions[i];
    size_t l = bp_interface_has(&plugin->native, fn->offset)     ? 0
               : bp_interface_has(&plugin->dispatch, fn->offset) ? 1
                                                                 : 2;
    (*lists[l])[counts[l]++] = fn->name;
  }
  return BP_OK;
}

bp_plugin_t *bp_plugin_of(const C_Device device) {
  return ((const bp_device_t *)device)->plugin;
}
