#include "cli_kernels.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIBRARY "backplane/kernels/libbackplane_check_kernels.so"

bp_status_t cli_kernels_load(bp_device_t *device, bp_module_t **out_module) {
  const char *from_env = getenv("BACKPLANE_CHECK_KERNELS");
  if (from_env && *from_env)
    return bp_module_load(device, from_env, out_module);
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return bp_module_load(device, LIBRARY, out_module);
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash)
    *slash = '\0'; /* <prefix>/bin */
  const char *libdirs[] = {BP_INSTALL_LIBDIR, "lib"};
  char path[PATH_MAX + 64];
  for (size_t i = 0; i < sizeof libdirs / sizeof *libdirs; ++i) {
    snprintf(path, sizeof path, "%s/../%s/" LIBRARY, exe, libdirs[i]);
    if (access(path, R_OK) == 0)
      break;
  }
  return bp_module_load(device, path, out_module);
}
