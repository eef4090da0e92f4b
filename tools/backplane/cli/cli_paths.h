/* Paths of files installed beside the `backplane` executable. */
#ifndef BACKPLANE_TOOLS_CLI_PATHS_H_
#define BACKPLANE_TOOLS_CLI_PATHS_H_

#include <stddef.h>

/* "<dir of the executable>/../<rest>" into out; "" if it does not fit. */
void cli_path_beside_binary(const char *rest, char *out, size_t size);

/* The reference op library: lib/backplane/ops/libbackplane_ops_ref.so. */
void cli_path_reference_ops(char *out, size_t size);

#endif /* BACKPLANE_TOOLS_CLI_PATHS_H_ */
