#include "core/plugin_extensions.h"

#include <dlfcn.h>
#include <string.h>

#include "core/dispatch.h"

const bp_extension_hooks_t bp_extension_no_hooks = {NULL, NULL};

void bp_plugin_extensions_read(void *handle, bp_plugin_extensions_t *out) {
  *out = (bp_plugin_extensions_t){0};
  BP_PluginExtensionsFn entry;
  void *symbol = dlsym(handle, BP_PLUGIN_EXTENSIONS_SYMBOL);
  memcpy(&entry, &symbol, sizeof entry);
  if (!entry)
    return;
  const BP_ExtensionBase *ext = entry();
  for (int n = 0; ext && n < BP_PLUGIN_EXTENSIONS_MAX; ++n, ext = ext->next) {
    if (ext->struct_size < sizeof(BP_ExtensionBase))
      break; /* cannot trust `next` either */
#define BP_EXTENSION_READ(name, ext_type, ext_struct, last_field, usable,      \
                          hooks)                                               \
  if (ext->type == ext_type && !out->name &&                                   \
      ext->struct_size >= offsetof(ext_struct, last_field) +                   \
                              sizeof(((const ext_struct *)0)->last_field)) {   \
    const ext_struct *e = (const ext_struct *)ext;                             \
    (void)e;                                                                   \
    if (usable)                                                                \
      out->name = e;                                                           \
  }
    BP_PLUGIN_EXTENSIONS(BP_EXTENSION_READ)
#undef BP_EXTENSION_READ
  }
  size_t names = 0;
#define BP_EXTENSION_NAME(name, type, ext_struct, last, usable, hooks)         \
  if (out->name)                                                               \
    out->names[names++] = #name;
  BP_PLUGIN_EXTENSIONS(BP_EXTENSION_NAME)
#undef BP_EXTENSION_NAME
}

/* The extension at table index `index` of `plugin` and its hooks. */
typedef struct extension_entry {
  const BP_ExtensionBase *extension; /* NULL: not exported */
  const bp_extension_hooks_t *hooks;
} extension_entry_t;

static extension_entry_t entry_at(const bp_plugin_t *plugin, size_t index) {
  const extension_entry_t entries[BP_PLUGIN_EXTENSION_COUNT] = {
#define BP_EXTENSION_ENTRY(name, type, ext_struct, last, usable, hooks)        \
  {plugin->extensions.name ? &plugin->extensions.name->base : NULL, &hooks},
      BP_PLUGIN_EXTENSIONS(BP_EXTENSION_ENTRY)
#undef BP_EXTENSION_ENTRY
  };
  return entries[index];
}

static void unload_first(bp_plugin_t *plugin, size_t count) {
  for (size_t i = count; i-- > 0;) {
    extension_entry_t entry = entry_at(plugin, i);
    if (entry.extension && entry.hooks->unload)
      entry.hooks->unload(plugin, entry.extension);
  }
}

bp_status_t bp_plugin_extensions_load(bp_plugin_t *plugin) {
  for (size_t i = 0; i < BP_PLUGIN_EXTENSION_COUNT; ++i) {
    extension_entry_t entry = entry_at(plugin, i);
    if (!entry.extension || !entry.hooks->load)
      continue;
    bp_status_t status = entry.hooks->load(plugin, entry.extension);
    if (status != BP_OK) {
      unload_first(plugin, i);
      return status;
    }
  }
  return BP_OK;
}

void bp_plugin_extensions_unload(bp_plugin_t *plugin) {
  unload_first(plugin, BP_PLUGIN_EXTENSION_COUNT);
}
