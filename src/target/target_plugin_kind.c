/* A plugin's target-kind extension (target_ext.h) registers its kind while
 * the plugin is loaded: the core's extension table (core/plugin_extensions.h)
 * runs these hooks at load and unload. */
#include "core/dispatch.h"
#include "core/plugin_extensions.h"
#include "target/target_internal.h"

/* An error (a malformed kind, or a name another registrant holds) rejects
 * the plugin with the registry's message. */
static bp_status_t load_kind(bp_plugin_t *plugin,
                             const BP_ExtensionBase *extension) {
  (void)plugin;
  return target_kind_acquire((const BP_TargetKindExtension *)extension);
}

static void unload_kind(bp_plugin_t *plugin,
                        const BP_ExtensionBase *extension) {
  (void)plugin;
  target_kind_release((const BP_TargetKindExtension *)extension);
}

const bp_extension_hooks_t bp_target_kind_extension_hooks = {load_kind,
                                                             unload_kind};
