/* A program built against an installed Backplane only (by pkg-config or by
 * find_package). It creates a runtime with the default search and checks
 * that each device type named on the command line was loaded, not rejected,
 * and can round-trip data; the first one must come from `plugin_dir`.
 *
 *   consumer <plugin_dir> <device_type>...
 *
 * Exit status 0 when every check passed; messages on stderr otherwise. */
#define _DEFAULT_SOURCE /* realpath, PATH_MAX in strict C11 */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/backplane.h"

static const bp_plugin_info_t *find_plugin(const bp_runtime_t *runtime,
                                           const char *device_type,
                                           bp_plugin_info_t *info) {
  for (size_t i = 0; i < bp_runtime_plugin_count(runtime); i++) {
    if (bp_runtime_plugin_info(runtime, i, info) == BP_OK &&
        strcmp(info->device_type, device_type) == 0)
      return info;
  }
  return NULL;
}

static int loaded_from(const bp_plugin_info_t *info, const char *plugin_dir) {
  char plugin_real[PATH_MAX];
  char dir_real[PATH_MAX];
  if (realpath(info->path, plugin_real) == NULL ||
      realpath(plugin_dir, dir_real) == NULL)
    return 0;
  char *slash = strrchr(plugin_real, '/');
  if (slash == NULL)
    return 0;
  *slash = '\0';
  return strcmp(plugin_real, dir_real) == 0;
}

static int round_trip(bp_runtime_t *runtime, const char *device_type) {
  enum { BYTES = 4096 };
  unsigned char written[BYTES];
  unsigned char read_back[BYTES];
  for (size_t i = 0; i < BYTES; i++) {
    written[i] = (unsigned char)(i * 7u + 3u);
    read_back[i] = 0;
  }
  bp_device_t *device = NULL;
  void *buffer = NULL;
  int ok = bp_device_get(runtime, device_type, 0, &device) == BP_OK &&
           bp_device_malloc(device, BYTES, &buffer) == BP_OK &&
           bp_copy(device, buffer, NULL, written, BYTES, NULL) == BP_OK &&
           bp_copy(NULL, read_back, device, buffer, BYTES, NULL) == BP_OK &&
           memcmp(written, read_back, BYTES) == 0;
  if (!ok)
    fprintf(stderr, "%s: round trip failed: %s\n", device_type,
            bp_last_error());
  if (buffer != NULL)
    bp_device_free(device, buffer);
  return ok;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s <plugin_dir> <device_type>...\n", argv[0]);
    return 2;
  }
  bp_runtime_t *runtime = NULL;
  if (bp_runtime_create(NULL, &runtime) != BP_OK) {
    fprintf(stderr, "bp_runtime_create: %s\n", bp_last_error());
    return 1;
  }
  for (size_t i = 0; i < bp_runtime_rejected_count(runtime); i++) {
    const char *path = "";
    const char *reason = "";
    bp_runtime_rejected_info(runtime, i, &path, &reason);
    fprintf(stderr, "rejected %s: %s\n", path, reason);
  }
  int ok = 1;
  for (int arg = 2; arg < argc; arg++) {
    bp_plugin_info_t info;
    if (find_plugin(runtime, argv[arg], &info) == NULL) {
      fprintf(stderr, "plugin %s was not loaded\n", argv[arg]);
      ok = 0;
      continue;
    }
    if (arg == 2 && !loaded_from(&info, argv[1])) {
      fprintf(stderr, "plugin %s came from %s, not from %s\n", argv[arg],
              info.path, argv[1]);
      ok = 0;
    }
    if (!round_trip(runtime, argv[arg]))
      ok = 0;
    else
      printf("%s: loaded from %s, data round trip ok\n", argv[arg], info.path);
  }
  bp_runtime_destroy(runtime);
  return ok ? 0 : 1;
}
