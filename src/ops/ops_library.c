/* Operator libraries: opened by path, ops found by their DIOPI name; a
 * DIOPI-IMPL library's device runtime gathered and handed to the adapter. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/ops.h"
#include "base/status.h"
#include "ops/ops_impl.h"

struct bp_ops_library {
  void *handle;
  char *path;
  const char *(*vendor_name)(void);
  const char *(*last_error)(void);
  bp_ops_impl_style_t impl_style;
  char adapter_name[64 + 4096]; /* the adapter plugin's name, with the path */
};

static void *symbol(void *handle, const char *name) {
  dlerror();
  return dlsym(handle, name);
}

/* The new-style device runtime: the library's own symbols. */
static ops_impl_hooks_t find_new_style_hooks(void *handle) {
  ops_impl_hooks_t h = {0};
#define FIND(field, name)                                                      \
  do {                                                                         \
    void *found = symbol(handle, name);                                        \
    memcpy(&h.field, &found, sizeof found);                                    \
  } while (0)
  FIND(malloc, "device_malloc");
  FIND(free, "device_free");
  FIND(create_stream, "device_make_stream");
  FIND(destroy_stream, "device_destroy_stream");
  FIND(sync_stream, "device_synchronize_stream");
  FIND(h2d, "device_memcpy_h2d_async");
  FIND(d2h, "device_memcpy_d2h_async");
  FIND(d2d, "device_memcpy_d2d_async");
  FIND(last_error, "diopiGetLastErrorString");
#undef FIND
  return h;
}

/* finalizeLibrary, if the library has one and was initialized. */
static void finalize_impl(bp_ops_library_t *lib) {
  void *found = symbol(lib->handle, "finalizeLibrary");
  int32_t (*finalize)(void);
  memcpy(&finalize, &found, sizeof finalize);
  if (finalize)
    finalize();
}

/* Called with the open lock held, right after dlopen: decides the style
 * (new if it defines any device_* function, else old if it has initLibrary),
 * claims the adapter, runs initLibrary, gathers the hooks and activates the
 * adapter. Anything missing refuses the library with a message naming it. */
static bp_status_t open_impl(bp_ops_library_t *lib) {
  void *init_symbol = symbol(lib->handle, "initLibrary");
  int32_t (*init)(void);
  memcpy(&init, &init_symbol, sizeof init);
  ops_impl_hooks_t own = find_new_style_hooks(lib->handle);
  if (own.malloc || own.free || own.create_stream || own.destroy_stream ||
      own.sync_stream || own.h2d || own.d2h || own.d2d)
    lib->impl_style = BP_OPS_IMPL_NEW;
  else if (init)
    lib->impl_style = BP_OPS_IMPL_OLD;
  else
    return BP_OK; /* Backplane-native */
  bp_status_t status = ops_impl_claim(lib->path);
  if (status != BP_OK)
    return status;
  ops_impl_registration_begin();
  int32_t result = init ? init() : diopiSuccess;
  if (result != diopiSuccess) {
    ops_impl_release();
    return bp_error(BP_ERR_PLUGIN,
                    "bp_ops_library_open: %s: initLibrary returned %s",
                    lib->path, bp_ops_error_name((diopiError_t)result));
  }
  ops_impl_hooks_t hooks =
      lib->impl_style == BP_OPS_IMPL_NEW ? own : ops_impl_registered();
  char missing[512];
  ops_impl_missing(&hooks, lib->impl_style, missing, sizeof missing);
  if (missing[0]) {
    finalize_impl(lib);
    ops_impl_release();
    return bp_error(BP_ERR_PLUGIN,
                    "bp_ops_library_open: %s: a DIOPI-IMPL library (%s) "
                    "without its device runtime: %s %s",
                    lib->path, bp_ops_impl_style_name(lib->impl_style),
                    lib->impl_style == BP_OPS_IMPL_OLD
                        ? "initLibrary did not call"
                        : "it does not define",
                    missing);
  }
  snprintf(lib->adapter_name, sizeof lib->adapter_name,
           "diopi-impl adapter (%s)", lib->path);
  ops_impl_activate(&hooks, lib->impl_style);
  return BP_OK;
}

BP_API bp_status_t bp_ops_library_open(const char *path,
                                       bp_ops_library_t **out_library) {
  if (!path || !out_library)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_library_open: path or out_library is NULL");
  bp_ops_library_t *lib = calloc(1, sizeof *lib);
  if (!lib || !(lib->path = strdup(path))) {
    free(lib);
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_ops_library_open: out of host memory");
  }
  lib->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle) {
    const char *why = dlerror();
    bp_status_t status =
        bp_error(BP_ERR_NOT_FOUND, "bp_ops_library_open: cannot open %s: %s",
                 path, why ? why : "unknown error");
    free(lib->path);
    free(lib);
    return status;
  }
  *(void **)&lib->vendor_name = dlsym(lib->handle, "diopiGetVendorName");
  *(void **)&lib->last_error = dlsym(lib->handle, "diopiGetLastErrorString");
  ops_impl_lock();
  bp_status_t status = open_impl(lib);
  ops_impl_unlock();
  if (status != BP_OK) {
    dlclose(lib->handle);
    free(lib->path);
    free(lib);
    return status;
  }
  *out_library = lib;
  return BP_OK;
}

BP_API void bp_ops_library_close(bp_ops_library_t *lib) {
  if (!lib)
    return;
  if (lib->impl_style != BP_OPS_IMPL_NONE) {
    ops_impl_lock();
    ops_impl_release();
    finalize_impl(lib);
    ops_impl_unlock();
  }
  dlclose(lib->handle);
  free(lib->path);
  free(lib);
}

BP_API bp_status_t bp_ops_library_find(const bp_ops_library_t *lib,
                                       const char *name, void **out_function) {
  if (!lib || !name || !out_function)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_library_find: library, name or out_function is "
                    "NULL");
  void *fn = dlsym(lib->handle, name);
  if (!fn)
    return bp_error(BP_ERR_UNSUPPORTED, "%s: %s: diopiNoImplement", lib->path,
                    name);
  *out_function = fn;
  return BP_OK;
}

BP_API const char *bp_ops_library_vendor(const bp_ops_library_t *lib) {
  if (!lib)
    return "";
  if (lib->vendor_name)
    return lib->vendor_name();
  const char *slash = strrchr(lib->path, '/');
  return slash ? slash + 1 : lib->path;
}

BP_API const char *bp_ops_library_last_error(const bp_ops_library_t *lib) {
  const char *message = lib && lib->last_error ? lib->last_error() : NULL;
  return message ? message : "";
}

BP_API const char *bp_ops_library_path(const bp_ops_library_t *lib) {
  return lib ? lib->path : "";
}

BP_API bp_ops_impl_style_t
bp_ops_library_impl_style(const bp_ops_library_t *lib) {
  return lib ? lib->impl_style : BP_OPS_IMPL_NONE;
}

BP_API const char *bp_ops_impl_style_name(bp_ops_impl_style_t style) {
  switch (style) {
  case BP_OPS_IMPL_OLD:
    return "old style";
  case BP_OPS_IMPL_NEW:
    return "new style";
  default:
    return "Backplane-native";
  }
}

BP_API bp_status_t bp_ops_library_adapter(const bp_ops_library_t *lib,
                                          bp_in_process_plugin_t *out_plugin) {
  if (!lib || !out_plugin)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_library_adapter: library or out_plugin is NULL");
  if (lib->impl_style == BP_OPS_IMPL_NONE)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_ops_library_adapter: %s is a Backplane-native op "
                    "library (no initLibrary, no device_malloc): run it on a "
                    "Backplane device",
                    lib->path);
  *out_plugin =
      (bp_in_process_plugin_t){lib->adapter_name, ops_impl_init_plugin};
  return BP_OK;
}

BP_API bp_status_t bp_ops_status(diopiError_t error) {
  switch (error) {
  case diopiSuccess:
    return BP_OK;
  case diopiNoImplement:
    return BP_ERR_UNSUPPORTED;
  default:
    return BP_ERR_PLUGIN;
  }
}

BP_API const char *bp_ops_error_name(diopiError_t error) {
  switch (error) {
#define NAME(e)                                                                \
  case e:                                                                      \
    return #e;
    NAME(diopiSuccess)
    NAME(diopiErrorOccurred)
    NAME(diopiNotInited)
    NAME(diopiNoRegisteredStreamCreateFunction)
    NAME(diopiNoRegisteredStreamDestoryFunction)
    NAME(diopiNoRegisteredStreamSyncFunction)
    NAME(diopiNoRegisteredDeviceMemoryMallocFunction)
    NAME(diopiNoRegisteredDeviceMemoryFreeFunction)
    NAME(diopiNoRegisteredDevice2DdeviceMemoryCopyFunction)
    NAME(diopiNoRegisteredDevice2HostMemoryCopyFunction)
    NAME(diopiNoRegisteredHost2DeviceMemoryCopyFunction)
    NAME(diopiNoRegisteredGetLastErrorFunction)
    NAME(diopi5DNotSupported)
    NAME(diopiNoImplement)
    NAME(diopiForceFallbackToCPU)
    NAME(diopiDtypeNotSupported)
#undef NAME
  default:
    return "diopiError(unknown)";
  }
}
