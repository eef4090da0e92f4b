#include "cli_kernels.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_paths.h"

/* The plugins that build the kernels from source instead of loading host
 * code, by device type. */
static const struct {
  const char *device_type;
  const char *source;
} kernel_sources[] = {
    {"opencl", "conformance_kernels.cl"},
    {"cuda", "conformance_kernels.cu"},
};

const char *cli_kernels_source(const char *device_type) {
  for (size_t i = 0;
       device_type && i < sizeof kernel_sources / sizeof *kernel_sources; ++i)
    if (strcmp(device_type, kernel_sources[i].device_type) == 0)
      return kernel_sources[i].source;
  return NULL;
}

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

/* Loads lib/backplane/kernels/`name` beside the executable. */
static bp_status_t load_beside_binary(bp_device_t *device, const char *name,
                                      bp_module_t **out_module) {
  char relative[PATH_MAX], path[PATH_MAX];
  snprintf(relative, sizeof relative, "lib/backplane/kernels/%s", name);
  cli_path_beside_binary(relative, path, sizeof path);
  return bp_module_load(device, path, out_module);
}

bp_status_t cli_kernels_load(bp_device_t *device, bp_module_t **out_module) {
  char path[PATH_MAX];
  if (cli_kernels_path(path, sizeof path))
    return bp_module_load(device, path, out_module);
  const char *source = cli_kernels_source(bp_device_type(device));
  if (source)
    return load_beside_binary(device, source, out_module);
  bp_status_t status = bp_module_load(device, path, out_module);
  if (status == BP_OK || status == BP_ERR_UNSUPPORTED)
    return status;
  /* Another plugin that loads no host shared objects may build OpenCL C. */
  if (load_beside_binary(device, "conformance_kernels.cl", out_module) == BP_OK)
    return BP_OK;
  /* Neither: report the shared object's failure (loading it again leaves
   * its message in bp_last_error). */
  return bp_module_load(device, path, out_module);
}
