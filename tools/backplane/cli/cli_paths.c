/* Paths beside the executable, from /proc/self/exe. */
#include "cli_paths.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void cli_path_beside_binary(const char *rest, char *out, size_t size) {
  char self[PATH_MAX / 2];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = '\0';
  char *slash = strrchr(self, '/');
  if (slash)
    *slash = '\0';
  if ((size_t)snprintf(out, size, "%s/../%s", self, rest) >= size)
    out[0] = '\0';
}

void cli_path_reference_ops(char *out, size_t size) {
  cli_path_beside_binary("lib/backplane/ops/libbackplane_ops_ref.so", out,
                         size);
}
