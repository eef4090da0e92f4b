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

#include "core/copy_profiling.h"
#include "core/observer.h"
#include "core/plugin_extensions.h"
#include "core/plugin_slots.h"

/* At most this many layers exist (src/layers/registry.c checks it). */
#define BP_LAYER_CAPACITY 8

typedef struct bp_plugin {
  bp_runtime_t *runtime;
  size_t index; /* in load order */
  char *path;   /* as opened */
  void *handle; /* from dlopen */
  char *device_type;
  char *sub_device_type;
  CustomRuntimeVersion version;
  int layout;               /* the table layout it speaks (BP_DeviceLayoutId) */
  C_DeviceInterface native; /* its functions, in layout B */
  C_DeviceInterface dispatch;
  /* The extension chain, read once at load (core/plugin_extensions.h). */
  bp_plugin_extensions_t extensions;
  /* The op library its ops_library extension names, as an absolute path
   * (src/ops/ops_plugin_library.c); NULL without one. */
  char *ops_library;
  /* NULL-terminated lists of static names (see bp_interface_functions). */
  const char **native_functions;
  const char **fallback_functions;
  const char **missing_functions;
  size_t device_count;
  bp_device_t *devices; /* device_count entries */
  /* The layers' per-plugin contexts by registry index (core/layer.h),
   * NULL for a layer not enabled; `undecorated` is dispatch as it was
   * before they were spliced in. */
  void *layer_contexts[BP_LAYER_CAPACITY];
  C_DeviceInterface undecorated;
  /* The kernels extension the layers wrapped (bp_layer_t.attach_kernels):
   * while they are spliced in, extensions.kernels points at
   * `layered_kernels` and `undecorated_kernels` at the plugin's own. */
  BP_KernelExtension layered_kernels;
  const BP_KernelExtension *undecorated_kernels;
  bp_observer_t observer; /* observer.api_call NULL: not observed */
  /* Profiles collecting the copies run on the caller's thread. */
  bp_copy_profiles_t copy_profiles;
} bp_plugin_t;

/* Every function slot of C_DeviceInterface, in layout order: the rows of
 * BP_PLUGIN_SLOTS (core/plugin_slots.h) as values. */
typedef struct bp_interface_function {
  const char *name;
  size_t offset;
  bp_slot_need_t need;
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
