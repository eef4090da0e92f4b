/* Opening the runtime the way every command does, and finding a plugin. */
#ifndef BACKPLANE_CLI_RUNTIME_H_
#define BACKPLANE_CLI_RUNTIME_H_

#include "backplane/backplane.h"
#include "cli_options.h"

/* Creates a runtime that searches --plugin-path first, then the usual places.
 * On failure prints the reason on stderr. */
bp_status_t cli_runtime_open(const cli_options_t *options,
                             bp_runtime_t **out_runtime);

/* The index of the loaded plugin whose device_type is `name`. When there is
 * none, prints the loaded and rejected plugins on stderr and returns
 * BP_ERR_NOT_FOUND. */
bp_status_t cli_runtime_find_plugin(const bp_runtime_t *runtime,
                                    const char *name, size_t *out_index);
/* The same without printing anything. */
bp_status_t cli_runtime_find_plugin_quietly(const bp_runtime_t *runtime,
                                            const char *name,
                                            size_t *out_index);

#endif /* BACKPLANE_CLI_RUNTIME_H_ */
