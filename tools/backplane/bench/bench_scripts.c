/* Finding the package's bench modules and their interpreter. */
#include "bench_scripts.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli_paths.h"

const char *bench_python_interpreter(void) {
  const char *python = getenv("BACKPLANE_PYTHON");
  return python && *python ? python : "/usr/bin/python3";
}

bool bench_python_package(char *out, size_t size) {
  /* build/bin/../python in a build tree; <package>/bin/../.. in a wheel. */
  static const char *const candidates[] = {"python", ".."};
  for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
    char probe[PATH_MAX + 32];
    cli_path_beside_binary(candidates[i], out, size);
    snprintf(probe, sizeof probe, "%s/backplane/__init__.py", out);
    if (out[0] && access(probe, R_OK) == 0)
      return true;
  }
  return false;
}

bool bench_python_script(const char *file, char *out, size_t size) {
  char package[PATH_MAX];
  if (!bench_python_package(package, sizeof package))
    return false;
  if ((size_t)snprintf(out, size, "%s/backplane/%s", package, file) >= size)
    return false;
  return access(out, R_OK) == 0;
}
