/* The op library a plugin names for its devices (BP_OpsLibraryExtension):
 * its path, resolved against the plugin's own directory when the plugin is
 * loaded (the core's extension table runs these hooks), and the vendor's
 * native stream behind a Backplane stream, which that library enqueues on. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/ops.h"
#include "backplane/vendor_access.h"
#include "base/status.h"
#include "core/active.h"
#include "core/device_table.h"
#include "core/dispatch.h"
#include "core/plugin_extensions.h"
#include "core/stream_internal.h"

/* A relative path is taken from the directory of the plugin's file. */
static bp_status_t load_ops_library(bp_plugin_t *plugin,
                                    const BP_ExtensionBase *extension) {
  const char *named = ((const BP_OpsLibraryExtension *)extension)->path;
  const char *slash = strrchr(plugin->path, '/');
  int dir_length = slash ? (int)(slash - plugin->path) : 1;
  const char *dir = slash ? plugin->path : ".";
  char joined[PATH_MAX];
  int n = named[0] == '/' ? snprintf(joined, sizeof joined, "%s", named)
                          : snprintf(joined, sizeof joined, "%.*s/%s",
                                     dir_length, dir, named);
  if (n < 0 || (size_t)n >= sizeof joined)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: the op library it names (%s) makes a path longer "
                    "than %d bytes",
                    plugin->path, named, PATH_MAX);
  /* Canonical when the file is there; as joined otherwise (bp_ops_library_
   * open then says it is missing). */
  char resolved[PATH_MAX];
  plugin->ops_library = strdup(realpath(joined, resolved) ? resolved : joined);
  return plugin->ops_library
             ? BP_OK
             : bp_error(BP_ERR_OUT_OF_MEMORY, "out of host memory");
}

static void unload_ops_library(bp_plugin_t *plugin,
                               const BP_ExtensionBase *extension) {
  (void)extension;
  free(plugin->ops_library);
  plugin->ops_library = NULL;
}

const bp_extension_hooks_t bp_ops_library_extension_hooks = {
    load_ops_library, unload_ops_library};

BP_API const char *bp_ops_library_for_device(const bp_device_t *device) {
  return device ? device->plugin->ops_library : NULL;
}

BP_API bp_status_t bp_ops_native_stream(bp_stream_t *stream,
                                        void **out_native) {
  if (stream == BP_STREAM_ACTIVE) /* an op context holds a real stream */
    return bp_stream_active_refused("bp_ops_native_stream");
  if (!stream || !out_native)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_ops_native_stream: %s is NULL",
                    !stream ? "stream" : "out_native");
  bp_status_t status = bp_stream_check("bp_ops_native_stream", stream);
  if (status != BP_OK)
    return status;
  bp_device_t *device = bp_stream_device(stream);
  const BP_OpsLibraryExtension *ext = device->plugin->extensions.ops_library;
  if (!ext)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_ops_native_stream: the %s plugin names no op library, "
                    "so it hands out no native stream",
                    device->plugin->device_type);
  C_Stream native = bp_stream_c_handle(stream);
  C_Device c_device = bp_device_c_handle(device); /* binds the thread */
  if (!c_device)
    return BP_ERR_PLUGIN; /* bp_device_c_handle said why */
  void *handle = NULL;
  if (!native || ext->native_stream(c_device, native, &handle) != C_SUCCESS ||
      !handle)
    return bp_error(BP_ERR_PLUGIN,
                    "bp_ops_native_stream: the %s plugin gave no native "
                    "stream for %p",
                    device->plugin->device_type, (void *)native);
  *out_native = handle;
  return BP_OK;
}
