#include "cli_kernels.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli_paths.h"

int cli_kernels_path(char *out, size_t size) {
  const char *from_env = getenv("BACKPLANE_CHECK_KERNELS");
  if (from_env && *from_env) {
    snprintf(out, size, "%s", from_env);
    return 1;
  }
  cli_path_beside_binary("lib/backplane/kernels/libbackplane_check_kernels.so",
                         out, size);
  return 0;
}

bp_status_t cli_kernels_load(bp_device_t *device, bp_module_t **out_module) {
  char path[PATH_MAX];
  int from_env = cli_kernels_path(path, sizeof path);
  bp_status_t status = bp_module_load(device, path, out_module);
  if (status == BP_OK || status == BP_ERR_UNSUPPORTED || from_env)
    return status;
  /* A plugin that loads no host shared objects may build OpenCL C. */
  char source[PATH_MAX];
  cli_path_beside_binary("lib/backplane/kernels/conformance_kernels.cl", source,
                         sizeof source);
  if (bp_module_load(device, source, out_module) == BP_OK)
    return BP_OK;
  /* Neither: report the shared object's failure (loading it again leaves
   * its message in bp_last_error). */
  return bp_module_load(device, path, out_module);
}
