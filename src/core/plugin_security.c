#include "core/plugin_security.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int bp_plugin_permissions_ok(const char *path, char *reason,
                             size_t reason_size) {
  return bp_file_permissions_ok(path, "plugin", reason, reason_size);
}

int bp_file_permissions_ok(const char *path, const char *what, char *reason,
                           size_t reason_size) {
  const char *allow = secure_getenv("BACKPLANE_ALLOW_INSECURE_PLUGINS");
  if (allow && strcmp(allow, "1") == 0)
    return 1;
  char *resolved = realpath(path, NULL);
  if (!resolved) {
    snprintf(reason, reason_size, "cannot resolve path: %s", strerror(errno));
    return 0;
  }
  int ok = 1;
  struct stat st;
  char *slash = strrchr(resolved, '/');
  if (stat(resolved, &st) != 0) {
    snprintf(reason, reason_size, "cannot stat: %s", strerror(errno));
    ok = 0;
  } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(reason, reason_size,
             "refused: %s file is writable by group/others (mode %04o); "
             "set BACKPLANE_ALLOW_INSECURE_PLUGINS=1 to load it anyway",
             what, (unsigned)(st.st_mode & 07777));
    ok = 0;
  } else if (slash) {
    *slash = '\0';
    const char *dir = slash == resolved ? "/" : resolved;
    if (stat(dir, &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH))) {
      snprintf(reason, reason_size,
               "refused: %s directory %s is writable by group/others "
               "(mode %04o); set BACKPLANE_ALLOW_INSECURE_PLUGINS=1 to load it "
               "anyway",
               what, dir, (unsigned)(st.st_mode & 07777));
      ok = 0;
    }
  }
  free(resolved);
  return ok;
}

bp_status_t bp_plugin_refusal_status(const char *path) {
  struct stat st;
  return stat(path, &st) != 0 && errno == ENOENT ? BP_ERR_NOT_FOUND
                                                 : BP_ERR_INVALID_ARGUMENT;
}
