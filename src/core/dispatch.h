/* A loaded plugin and the table the core calls it through (internal).
 *
 * `native` is the plugin's own C_DeviceInterface as InitPlugin filled it.
 * `dispatch` is a copy in which every missing optional slot holds a fallback
 * (fallbacks.c); the core calls a plugin ONLY through `dispatch`, so a layer
 * can later splice wrappers into it. Immutable after loading, so reading it
 * needs no lock. */
#ifndef BACKPLANE_CORE_DISPATCH_H_
#define BACKPLANE_CORE_DISPATCH_H_

#include <stddef.h>

#include "backplane/device_ext.h"
#include "backplane/runtime.h"

#include "core/observer.h"

/* At most this many layers exist (src/layers/registry.c checks it). */
#define BP_LAYER_CAPACITY 8

typedef C_Status (*bp_get_attribute_fn)(const C_Device device, int32_t attr,
                                        BP_AttrValue *value);
typedef C_Status (*bp_event_elapsed_time_fn)(const C_Device device,
                                             C_Event start, C_Event end,
                                             float *milliseconds);

typedef struct bp_plugin {
  bp_runtime_t *runtime;
  size_t index; /* in load order */
  char *path;   /* as opened */
  void *handle; /* from dlopen */
  char *device_type;
  char *sub_device_type;
  CustomRuntimeVersion version;
  C_DeviceInterface native;
  C_DeviceInterface dispatch;
  /* From the extension chain; NULL when the plugin lacks them. */
  bp_get_attribute_fn get_attribute;
  bp_event_elapsed_time_fn event_elapsed_time;
  const struct BP_KernelExtension *kernels; /* kernel_ext.h */
  /* NULL-terminated lists of static names (see bp_interface_functions). */
  const char **native_functions;
  const char **fallback_functions;
  const char **missing_functions;
  const char **extensions;
  size_t device_count;
  bp_device_t *devices; /* device_count entries */
  /* The layers' per-plugin contexts by registry index (core/layer.h),
   * NULL for a layer not enabled; `undecorated` is dispatch as it was
   * before they were spliced in. */
  void *layer_contexts[BP_LAYER_CAPACITY];
  C_DeviceInterface undecorated;
  bp_observer_t observer; /* observer.api_call NULL: not observed */
} bp_plugin_t;

/* Every function slot of C_DeviceInterface, in layout order. */
typedef struct bp_interface_function {
  const char *name;
  size_t offset;
} bp_interface_function_t;

extern const bp_interface_function_t bp_interface_functions[];
extern const size_t bp_interface_function_count;

/* Whether the slot at `offset` of `table` holds a function. */
int bp_interface_has(const C_DeviceInterface *table, size_t offset);

/* Fills the plugin's native/fallback/missing name lists by comparing `native`
 * and `dispatch`. BP_ERR_OUT_OF_MEMORY on allocation failure. */
bp_status_t bp_plugin_classify_functions(bp_plugin_t *plugin);

/* The plugin a C_Device belongs to: the core's C_Device is the first member of
 * its bp_device_t, so fallbacks receiving a C_Device can find their way. */
bp_plugin_t *bp_plugin_of(const C_Device device);

#endif /* BACKPLANE_CORE_DISPATCH_H_ */
