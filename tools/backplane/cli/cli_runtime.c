/* Opening the runtime for a command and looking plugins up by name. */
#include "cli_runtime.h"

#include <stdio.h>
#include <string.h>

bp_status_t cli_runtime_open(const cli_options_t *options,
                             bp_runtime_t **out_runtime) {
  bp_runtime_options_t runtime_options = {
      .struct_size = sizeof(runtime_options),
      .plugin_path = options->plugin_path,
  };
  bp_status_t status = bp_runtime_create(&runtime_options, out_runtime);
  if (status != BP_OK)
    fprintf(stderr, "backplane: cannot create the runtime: %s: %s\n",
            bp_status_name(status), bp_last_error());
  return status;
}

bp_status_t cli_runtime_find_plugin_quietly(const bp_runtime_t *runtime,
                                            const char *name,
                                            size_t *out_index) {
  size_t count = bp_runtime_plugin_count(runtime);
  bp_plugin_info_t info;
  for (size_t i = 0; i < count; i++) {
    if (bp_runtime_plugin_info(runtime, i, &info) == BP_OK &&
        !strcmp(info.device_type, name)) {
      *out_index = i;
      return BP_OK;
    }
  }
  return BP_ERR_NOT_FOUND;
}

bp_status_t cli_runtime_find_plugin(const bp_runtime_t *runtime,
                                    const char *name, size_t *out_index) {
  if (cli_runtime_find_plugin_quietly(runtime, name, out_index) == BP_OK)
    return BP_OK;
  size_t count = bp_runtime_plugin_count(runtime);
  bp_plugin_info_t info;
  fprintf(stderr, "backplane: no loaded plugin is named '%s'; loaded:", name);
  for (size_t i = 0; i < count; i++)
    if (bp_runtime_plugin_info(runtime, i, &info) == BP_OK)
      fprintf(stderr, " %s", info.device_type);
  fprintf(stderr, "%s\n", count ? "" : " none");
  size_t rejected = bp_runtime_rejected_count(runtime);
  for (size_t i = 0; i < rejected; i++) {
    const char *path, *reason;
    if (bp_runtime_rejected_info(runtime, i, &path, &reason) == BP_OK)
      fprintf(stderr, "  rejected %s: %s\n", path, reason);
  }
  return BP_ERR_NOT_FOUND;
}
