#include "cli_private_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int cli_private_file_write(cli_private_file_t *file, const char *name,
                           const void *data, size_t size) {
  const char *tmp = getenv("TMPDIR");
  int n = snprintf(file->folder, sizeof file->folder, "%s/bp_module_XXXXXX",
                   tmp && *tmp ? tmp : "/tmp");
  if (n < 0 || (size_t)n >= sizeof file->folder) {
    file->folder[0] = '\0';
    errno = ENAMETOOLONG;
    return -1;
  }
  if (!mkdtemp(file->folder)) {
    file->folder[0] = '\0';
    return -1;
  }
  snprintf(file->path, sizeof file->path, "%s/%s", file->folder, name);
  errno = 0;
  int fd = open(file->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && write(fd, data, size) == (ssize_t)size;
  if (fd >= 0 && close(fd) != 0)
    ok = false;
  if (!ok) {
    int saved = errno ? errno : EIO; /* a short write sets none */
    cli_private_file_remove(file);
    errno = saved;
    return -1;
  }
  return 0;
}

void cli_private_file_remove(cli_private_file_t *file) {
  if (!file->folder[0])
    return;
  unlink(file->path);
  rmdir(file->folder);
  file->folder[0] = '\0';
}
