/* Operator libraries: opened by path, ops found by their DIOPI name. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/ops.h"
#include "base/status.h"

struct bp_ops_library {
  void *handle;
  char *path;
  const char *(*vendor_name)(void);
  const char *(*last_error)(void);
};

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
  *out_library = lib;
  return BP_OK;
}

BP_API void bp_ops_library_close(bp_ops_library_t *lib) {
  if (!lib)
    return;
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
