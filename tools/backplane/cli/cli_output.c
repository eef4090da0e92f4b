/* The private standard output of the tool. */
#include "cli_output.h"

#include <fcntl.h>
#include <unistd.h>

static FILE *tool_out;   /* NULL until claimed */
static int tool_fd = -1; /* the descriptor behind tool_out */

int cli_output_claim(void) {
  if (tool_out)
    return 0;
  fflush(stdout);
  /* Close-on-exec: commands the tool runs get their own descriptor 1. */
  int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (fd < 0)
    return -1;
  FILE *out = fdopen(fd, "w");
  if (!out) {
    close(fd);
    return -1;
  }
  if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    fclose(out);
    return -1;
  }
  tool_fd = fd;
  tool_out = out;
  return 0;
}

FILE *cli_out(void) {
  return tool_out ? tool_out : stdout;
}

int cli_output_give_back(void) {
  if (tool_fd < 0)
    return 0;
  return dup2(tool_fd, STDOUT_FILENO) < 0 ? -1 : 0;
}
