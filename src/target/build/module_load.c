/* Loading a built shared object: as a kernel module through the device's
 * kernels extension (bp_module_load), or with dlopen (RTLD_LOCAL, RTLD_NOW)
 * and dlsym for a direct host call. */
#include <dlfcn.h>
#include <stdlib.h>

#include "base/status.h"
#include "target/build/build_internal.h"

bp_status_t loaded_module_on_device(const char *path, bp_device_t *device,
                                    bp_module_t **out_module) {
  return bp_module_load(device, path, out_module);
}

struct loaded_module {
  void *handle;
};

bp_status_t loaded_module_open(const char *path, loaded_module_t **out) {
  loaded_module_t *module = calloc(1, sizeof(*module));
  if (!module)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_built_module: out of memory");
  module->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!module->handle) {
    const char *why = dlerror();
    free(module);
    return bp_error(BP_ERR_PLUGIN, "bp_built_module: cannot load %s: %s", path,
                    why ? why : "unknown reason");
  }
  *out = module;
  return BP_OK;
}

bp_status_t loaded_module_function(loaded_module_t *module, const char *name,
                                   bp_generated_fn *out_function) {
  void *symbol = dlsym(module->handle, name);
  if (!symbol)
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_built_module_function: no function '%s' in the "
                    "module",
                    name);
  *(void **)out_function = symbol;
  return BP_OK;
}

void loaded_module_close(loaded_module_t *module) {
  if (!module)
    return;
  dlclose(module->handle);
  free(module);
}
