/* Files the module loader accepts from a temporary place: it refuses a
 * module whose folder others may write to (/tmp itself), so a command that
 * writes a module for one run puts it in a fresh folder of its own. */
#ifndef BACKPLANE_TOOLS_CLI_PRIVATE_FILE_H_
#define BACKPLANE_TOOLS_CLI_PRIVATE_FILE_H_

#include <stddef.h>

typedef struct cli_private_file {
  char folder[4096]; /* "" until written */
  char path[4200];   /* folder/name */
} cli_private_file_t;

/* Writes the `size` bytes at `data` to `name` (mode 0600) in a new folder
 * made by mkdtemp (mode 0700) under $TMPDIR, or /tmp. 0 on success; -1
 * with errno set, nothing left behind. */
int cli_private_file_write(cli_private_file_t *file, const char *name,
                           const void *data, size_t size);

/* Removes the file and its folder (nothing when none was written). */
void cli_private_file_remove(cli_private_file_t *file);

#endif /* BACKPLANE_TOOLS_CLI_PRIVATE_FILE_H_ */
