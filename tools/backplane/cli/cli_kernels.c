#include "cli_kernels.h"

#include <limits.h>
#include <stdlib.h>

#include "cli_paths.h"

bp_status_t cli_kernels_load(bp_device_t *device, bp_module_t **out_module) {
  const char *from_env = getenv("BACKPLANE_CHECK_KERNELS");
  if (from_env && *from_env)
    return bp_module_load(device, from_env, out_module);
  char path[PATH_MAX];
  cli_path_beside_binary("lib/backplane/kernels/libbackplane_check_kernels.so",
                         path, sizeof path);
  return bp_module_load(device, path, out_module);
}
