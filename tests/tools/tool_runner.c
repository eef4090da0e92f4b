/* Spawning the `backplane` binary and collecting its stdout. */
#include "tool_runner.h"

#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void clear_environment(const char *plugin_path) {
  static const char *const cleared[] = {
      "CUSTOM_DEVICE_ROOT", "BACKPLANE_VCPU_DEVICES", "BACKPLANE_VCPU_MEMORY",
      "BACKPLANE_VCPU_JITTER_US"};
  for (size_t i = 0; i < sizeof(cleared) / sizeof(cleared[0]); i++)
    unsetenv(cleared[i]);
  if (plugin_path)
    setenv("BACKPLANE_PLUGIN_PATH", plugin_path, 1);
  else
    unsetenv("BACKPLANE_PLUGIN_PATH");
}

static int read_all(int fd, tool_run_t *out) {
  size_t capacity = 4096;
  out->out = malloc(capacity);
  out->out_size = 0;
  if (!out->out)
    return -1;
  for (;;) {
    if (capacity - out->out_size < 2048) {
      char *grown = realloc(out->out, capacity * 2);
      if (!grown)
        return -1;
      out->out = grown;
      capacity *= 2;
    }
    ssize_t got =
        read(fd, out->out + out->out_size, capacity - out->out_size - 1);
    if (got <= 0)
      break;
    out->out_size += (size_t)got;
  }
  out->out[out->out_size] = '\0';
  return 0;
}

int tool_run(const char *const *args, const char *plugin_path,
             tool_run_t *out) {
  memset(out, 0, sizeof(*out));
  size_t count = 0;
  while (args[count])
    count++;
  char **argv = calloc(count + 2, sizeof(char *));
  int pipe_fds[2];
  if (!argv || pipe(pipe_fds) != 0) {
    free(argv);
    return -1;
  }
  argv[0] = (char *)BP_TOOL_PATH;
  for (size_t i = 0; i < count; i++)
    argv[i + 1] = (char *)args[i];
  clear_environment(plugin_path);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  pid_t pid;
  int spawned = posix_spawn(&pid, BP_TOOL_PATH, &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  free(argv);
  close(pipe_fds[1]);
  int read_status = spawned == 0 ? read_all(pipe_fds[0], out) : -1;
  close(pipe_fds[0]);
  if (spawned != 0)
    return -1;
  int status;
  if (waitpid(pid, &status, 0) != pid)
    return -1;
  out->exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return read_status;
}

void tool_run_release(tool_run_t *run) {
  free(run->out);
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
