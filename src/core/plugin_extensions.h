/* A plugin's Backplane extensions, read once at load (internal).
 *
 * BP_PLUGIN_EXTENSIONS(X) is the one list of the extensions the core knows,
 * X(name, type, ext_struct, last_field, usable, hooks):
 * - name:       the field of bp_plugin_extensions_t and the name that
 *               bp_plugin_info_t.extensions (and `backplane info`) lists;
 * - type:       its BP_ExtensionType;
 * - ext_struct: its struct (vendor face header);
 * - last_field: the last field the core reads: an extension whose
 *               struct_size does not cover it is ignored;
 * - usable(e):  whether the extension `e` is worth recording (e.g. its one
 *               function is set);
 * - hooks:      a bp_extension_hooks_t run at load and unload, defined by the
 *               floor that owns the concept (the target kind's in
 *               src/target), or bp_extension_no_hooks.
 * Adding an extension is one row here (and its header's include below).
 *
 * The chain is walked once, in bp_plugin_extensions_read; after that the
 * record is immutable until unload, so reading it needs no lock. The first
 * usable extension of each type wins; a chain entry whose struct_size is
 * below BP_ExtensionBase ends the walk (its `next` cannot be trusted), and
 * at most BP_PLUGIN_EXTENSIONS_MAX entries are read. */
#ifndef BACKPLANE_CORE_PLUGIN_EXTENSIONS_H_
#define BACKPLANE_CORE_PLUGIN_EXTENSIONS_H_

#include <stddef.h>

#include "backplane/comm_ext.h"
#include "backplane/device_ext.h"
#include "backplane/kernel_ext.h"
#include "backplane/runtime.h"
#include "backplane/target_ext.h"

#define BP_PLUGIN_EXTENSIONS(X)                                                \
  X(device_attributes, BP_EXTENSION_DEVICE_ATTRIBUTES,                         \
    BP_DeviceAttributesExtension, get_attribute, e->get_attribute != NULL,     \
    bp_extension_no_hooks)                                                     \
  X(event_timing, BP_EXTENSION_EVENT_TIMING, BP_EventTimingExtension,          \
    event_elapsed_time, e->event_elapsed_time != NULL, bp_extension_no_hooks)  \
  X(comm, BP_EXTENSION_COMM, BP_CommExtension, last_error, 1,                  \
    bp_extension_no_hooks)                                                     \
  X(kernels, BP_EXTENSION_KERNELS, BP_KernelExtension, last_error, 1,          \
    bp_extension_no_hooks)                                                     \
  X(target_kind, BP_EXTENSION_TARGET_KIND, BP_TargetKindExtension, build, 1,   \
    bp_target_kind_extension_hooks)                                            \
  X(ops_library, BP_EXTENSION_OPS_LIBRARY, BP_OpsLibraryExtension,             \
    native_stream, e->path != NULL && e->native_stream != NULL,                \
    bp_ops_library_extension_hooks)                                            \
  X(stream_inline, BP_EXTENSION_STREAM_INLINE, BP_StreamInlineExtension,       \
    run_callback_if_idle, e->run_callback_if_idle != NULL,                     \
    bp_extension_no_hooks)

#define BP_PLUGIN_EXTENSIONS_MAX 64

enum {
#define BP_EXTENSION_COUNT_ONE(name, type, ext_struct, last, usable, hooks)    \
  BP_PLUGIN_EXTENSION_INDEX_##name,
  BP_PLUGIN_EXTENSIONS(BP_EXTENSION_COUNT_ONE)
#undef BP_EXTENSION_COUNT_ONE
      BP_PLUGIN_EXTENSION_COUNT
};

/* What the core found in the chain: NULL for an extension the plugin does
 * not export (or exports too small to use). Pointers into the plugin's own
 * chain, valid until it is closed. */
typedef struct bp_plugin_extensions {
#define BP_EXTENSION_FIELD(name, type, ext_struct, last, usable, hooks)        \
  const ext_struct *name;
  BP_PLUGIN_EXTENSIONS(BP_EXTENSION_FIELD)
#undef BP_EXTENSION_FIELD
  /* The names of those present, in the order above, NULL-terminated. */
  const char *names[BP_PLUGIN_EXTENSION_COUNT + 1];
} bp_plugin_extensions_t;

struct bp_plugin;

/* Work done for a plugin's extension by the floor that owns its concept:
 * `load` runs once the plugin's devices exist (an error rejects the plugin;
 * bp_last_error() says why), `unload` before the plugin is finalized and
 * closed. Either may be NULL. Called single-threaded by the loader. */
typedef struct bp_extension_hooks {
  bp_status_t (*load)(struct bp_plugin *plugin,
                      const BP_ExtensionBase *extension);
  void (*unload)(struct bp_plugin *plugin, const BP_ExtensionBase *extension);
} bp_extension_hooks_t;

extern const bp_extension_hooks_t bp_extension_no_hooks;
#define BP_EXTENSION_HOOKS_DECLARE(name, type, ext_struct, last, usable,       \
                                   hooks)                                      \
  extern const bp_extension_hooks_t hooks;
BP_PLUGIN_EXTENSIONS(BP_EXTENSION_HOOKS_DECLARE)
#undef BP_EXTENSION_HOOKS_DECLARE

/* Walks the chain `handle` exports (BP_PLUGIN_EXTENSIONS_SYMBOL) into `out`;
 * no chain leaves it empty. Allocates nothing. */
void bp_plugin_extensions_read(void *handle, bp_plugin_extensions_t *out);

/* Runs the load hooks of the plugin's extensions in table order; on an
 * error, unloads those already loaded and returns it. */
bp_status_t bp_plugin_extensions_load(struct bp_plugin *plugin);

/* Runs the unload hooks of the plugin's extensions in reverse order. */
void bp_plugin_extensions_unload(struct bp_plugin *plugin);

#endif /* BACKPLANE_CORE_PLUGIN_EXTENSIONS_H_ */
