/* Loading one plugin file (internal).
 *
 * dlopen(RTLD_NOW | RTLD_LOCAL), InitPlugin once per known layout of Paddle's
 * table (backplane/device_layouts.h; Backplane's own, B, first) until one
 * leaves device_type set, that layout's table translated to layout B, then
 * validation: the sizes the plugin wrote back, ABI version 0.x >= 0.1.1, the
 * required functions, a unique device_type, initialize, and at least one
 * device. A plugin failing any step is recorded with bp_runtime_reject and
 * closed; the others are unaffected. */
#ifndef BACKPLANE_CORE_LOADER_H_
#define BACKPLANE_CORE_LOADER_H_

#include "backplane/runtime.h"
#include "core/dispatch.h"

/* Loads `path` into `runtime` (appending the plugin and its devices) or
 * records it as rejected. Only running out of memory is an error. */
bp_status_t bp_plugin_load(bp_runtime_t *runtime, const char *path);

/* Loads a plugin linked into the process (no file: no dlopen, no
 * permission check, no extensions), `entry->name` standing in for its path;
 * validated and accepted or rejected exactly like a file. */
bp_status_t bp_plugin_load_in_process(bp_runtime_t *runtime,
                                      const bp_in_process_plugin_t *entry);

/* Releases the devices' objects, calls finalize, dlcloses (a file), frees. */
void bp_plugin_unload(bp_plugin_t *plugin);

#endif /* BACKPLANE_CORE_LOADER_H_ */
