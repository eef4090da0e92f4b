/* Finding plugin files (internal).
 *
 * Order: options->plugin_path, BACKPLANE_PLUGIN_PATH (both colon lists of
 * directories or .so files), CUSTOM_DEVICE_ROOT (a directory), then the
 * built-in directory <dir of libbackplane.so>/BP_PLUGIN_SUBDIR. Directories are
 * read non-recursively, names ending in ".so", sorted. The environment is read
 * with secure_getenv. A file reached twice (same realpath) is listed once.
 * A listed file that does not exist is recorded as rejected; a missing
 * directory is skipped. */
#ifndef BACKPLANE_CORE_PLUGIN_SEARCH_H_
#define BACKPLANE_CORE_PLUGIN_SEARCH_H_

#include <stddef.h>

#include "backplane/runtime.h"

typedef struct bp_plugin_candidates {
  char **paths; /* as found (not resolved), owned */
  size_t count;
  size_t capacity;
  char **resolved; /* realpaths, parallel to paths, for deduplication */
} bp_plugin_candidates_t;

/* Fills `out` (zero it first). BP_ERR_OUT_OF_MEMORY is the only failure. */
bp_status_t bp_plugin_search(bp_runtime_t *runtime,
                             const bp_runtime_options_t *options,
                             bp_plugin_candidates_t *out);
void bp_plugin_candidates_release(bp_plugin_candidates_t *candidates);

#endif /* BACKPLANE_CORE_PLUGIN_SEARCH_H_ */
