/* Spawning the `backplane` binary and collecting its stdout and stderr. */
#include "tool_runner.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void clear_environment(const char *plugin_path) {
  static const char *const cleared[] = {
      "CUSTOM_DEVICE_ROOT", "BACKPLANE_VCPU_DEVICES", "BACKPLANE_VCPU_MEMORY",
      "BACKPLANE_VCPU_JITTER_US", "BACKPLANE_VCPU_CORES"};
  for (size_t i = 0; i < sizeof(cleared) / sizeof(cleared[0]); i++)
    unsetenv(cleared[i]);
  if (plugin_path)
    setenv("BACKPLANE_PLUGIN_PATH", plugin_path, 1);
  else
    unsetenv("BACKPLANE_PLUGIN_PATH");
}

/* Everything readable from `fd` into *text (NUL-terminated). */
static int read_all(int fd, char **text, size_t *size) {
  size_t capacity = 4096;
  *text = malloc(capacity);
  *size = 0;
  if (!*text)
    return -1;
  for (;;) {
    if (capacity - *size < 2048) {
      char *grown = realloc(*text, capacity * 2);
      if (!grown)
        return -1;
      *text = grown;
      capacity *= 2;
    }
    ssize_t got = read(fd, *text + *size, capacity - *size - 1);
    if (got <= 0)
      break;
    *size += (size_t)got;
  }
  (*text)[*size] = '\0';
  return 0;
}

/* The child's stderr, kept in a temporary file (so a full pipe cannot
 * block it while stdout is read), then copied to ours. */
static int read_errors(FILE *file, tool_run_t *out) {
  size_t size = 0;
  rewind(file);
  int status = read_all(fileno(file), &out->err, &size);
  if (status == 0 && size)
    fputs(out->err, stderr);
  return status;
}

int tool_run(const char *const *args, const char *plugin_path,
             tool_run_t *out) {
  memset(out, 0, sizeof(*out));
  size_t count = 0;
  while (args[count])
    count++;
  char **argv = calloc(count + 2, sizeof(char *));
  int pipe_fds[2];
  FILE *errors = tmpfile();
  if (!argv || !errors || pipe(pipe_fds) != 0) {
    free(argv);
    if (errors)
      fclose(errors);
    return -1;
  }
  argv[0] = (char *)BP_TOOL_PATH;
  for (size_t i = 0; i < count; i++)
    argv[i + 1] = (char *)args[i];
  clear_environment(plugin_path);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fileno(errors), STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  pid_t pid;
  int spawned = posix_spawn(&pid, BP_TOOL_PATH, &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  free(argv);
  close(pipe_fds[1]);
  int read_status =
      spawned == 0 ? read_all(pipe_fds[0], &out->out, &out->out_size) : -1;
  close(pipe_fds[0]);
  int status;
  if (spawned != 0 || waitpid(pid, &status, 0) != pid) {
    fclose(errors);
    return -1;
  }
  if (read_errors(errors, out) != 0)
    read_status = -1;
  fclose(errors);
  out->exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return read_status;
}

void tool_run_release(tool_run_t *run) {
  free(run->out);
  free(run->err);
  memset(run, 0, sizeof(*run));
}

size_t tool_count_lines(const char *text, const char *prefix) {
  size_t count = 0, prefix_len = strlen(prefix);
  for (const char *line = text; line && *line;) {
    const char *start = line;
    while (*start == ' ')
      start++;
    if (!strncmp(start, prefix, prefix_len))
      count++;
    const char *end = strchr(line, '\n');
    line = end ? end + 1 : NULL;
  }
  return count;
}
