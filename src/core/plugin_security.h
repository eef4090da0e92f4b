/* Refusing plugin files others could have replaced (internal). */
#ifndef BACKPLANE_CORE_PLUGIN_SECURITY_H_
#define BACKPLANE_CORE_PLUGIN_SECURITY_H_

#include <stddef.h>

#include "base/status.h"

/* Checks that neither the file at `path` nor its directory is writable by
 * group or others (unless BACKPLANE_ALLOW_INSECURE_PLUGINS=1). On refusal
 * writes a one-line reason into `reason` and returns 0. */
int bp_plugin_permissions_ok(const char *path, char *reason,
                             size_t reason_size);

/* The same check for another file that code comes from; the reason names
 * it as `what` ("kernel library", "manifest"): "refused: <what> file is
 * writable ..." or "refused: <what> directory <dir> is writable ...". */
int bp_file_permissions_ok(const char *path, const char *what, char *reason,
                           size_t reason_size);

/* The status for a path bp_plugin_permissions_ok refused: BP_ERR_NOT_FOUND
 * when nothing is at `path`, BP_ERR_INVALID_ARGUMENT otherwise. */
bp_status_t bp_plugin_refusal_status(const char *path);

#endif /* BACKPLANE_CORE_PLUGIN_SECURITY_H_ */
