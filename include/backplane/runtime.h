/* The runtime object: owns every loaded plugin, device, stream and event.
 * There is no hidden global state; several runtimes may coexist. */
#ifndef BACKPLANE_RUNTIME_H_
#define BACKPLANE_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bp_runtime bp_runtime_t;

struct CustomRuntimeParams; /* backplane/device_ext.h */

/* A plugin linked into the process rather than found as a file (e.g. the
 * device the DIOPI-IMPL adapter builds, backplane/ops.h): loaded and checked
 * like a file whose InitPlugin is `init_plugin`; `name` stands in for the
 * path in plugin info and rejections. */
typedef struct bp_in_process_plugin {
  const char *name;
  void (*init_plugin)(struct CustomRuntimeParams *params);
} bp_in_process_plugin_t;

typedef struct bp_runtime_options {
  size_t struct_size; /* sizeof(bp_runtime_options_t) */
  /* Colon-separated directories or .so files searched before anything else;
   * NULL for none. */
  const char *plugin_path;
  /* Nonzero: ignore BACKPLANE_PLUGIN_PATH, CUSTOM_DEVICE_ROOT and
   * BACKPLANE_VISIBLE_DEVICES. */
  int ignore_environment;
  /* Nonzero: do not search the built-in plugin directory. */
  int skip_builtin_plugins;
  /* Nonzero: bp_copy and bp_memset skip the bounds check of device pointers
   * against the caching allocator's blocks (on by default: a range running
   * past the end of its allocation, or starting in a freed block or in
   * memory the allocator gave back to the plugin, is refused with
   * BP_ERR_INVALID_ARGUMENT). For those who measure every nanosecond. */
  int skip_range_checks;
  /* Loaded after the plugin files, in order; NULL/0 for none. */
  const bp_in_process_plugin_t *in_process_plugins;
  size_t in_process_plugin_count;
  /* Which devices the runtime shows, in which order (device.h): a
   * comma-separated list of `type:index` or bare `type` entries, as
   * BACKPLANE_VISIBLE_DEVICES. NULL: that variable (unless
   * ignore_environment); "": every device. */
  const char *visible_devices;
} bp_runtime_options_t;

/* Loads every plugin found on BACKPLANE_PLUGIN_PATH, then CUSTOM_DEVICE_ROOT,
 * then the built-in directory beside libbackplane.so, then the in-process
 * plugins of `options` (which may be NULL).
 * A plugin that fails to load is recorded as rejected, never fatal. Devices
 * are numbered as device.h says, after BACKPLANE_VISIBLE_DEVICES (or
 * options->visible_devices) selected them: a malformed selection is
 * BP_ERR_INVALID_ARGUMENT, an entry naming no loaded device
 * BP_ERR_NOT_FOUND, each naming the entry.
 * Writes *out_runtime only on success. */
BP_API bp_status_t bp_runtime_create(const bp_runtime_options_t *options,
                                     bp_runtime_t **out_runtime);

/* Synchronizes and releases everything the runtime owns. Objects the caller
 * forgot (streams, events, device memory) are reported on stderr and freed.
 * NULL is a no-op. Not thread-safe against concurrent use of the runtime. */
BP_API void bp_runtime_destroy(bp_runtime_t *runtime);

/* Which optional plugin functions are the plugin's own ("native") and which
 * are substitutes from Backplane's fallbacks. */
typedef struct bp_plugin_info {
  const char *path;            /* the shared object that was opened */
  const char *device_type;     /* unique, e.g. "vcpu" */
  const char *sub_device_type; /* may be "" */
  size_t abi_major, abi_minor, abi_patch;
  /* The plugin's C_DeviceInterface layout in bytes: 912 for Backplane's
   * own (B), others in backplane/device_layouts.h (1128: Paddle 3.3.1). */
  size_t interface_size;
  size_t device_count;
  /* Names of interface functions, each array NULL-terminated and owned by the
   * runtime. */
  const char *const *native_functions;
  const char *const *fallback_functions;
  const char *const *missing_functions; /* neither native nor substituted */
  const char *const *extensions;        /* extension names the plugin exports */
  /* How the plugin's collectives move data (its comm extension's
   * description, e.g. "host-staged: ..."), or NULL. */
  const char *collectives;
} bp_plugin_info_t;

BP_API size_t bp_runtime_plugin_count(const bp_runtime_t *runtime);
/* Fills *out_info for plugin `index`; pointers live as long as the runtime. */
BP_API bp_status_t bp_runtime_plugin_info(const bp_runtime_t *runtime,
                                          size_t index,
                                          bp_plugin_info_t *out_info);

/* Plugins that were found but not loaded, with the reason. */
BP_API size_t bp_runtime_rejected_count(const bp_runtime_t *runtime);
BP_API bp_status_t bp_runtime_rejected_info(const bp_runtime_t *runtime,
                                            size_t index, const char **out_path,
                                            const char **out_reason);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_RUNTIME_H_ */
