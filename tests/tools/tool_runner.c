/* Spawning the `backplane` binary and collecting its stdout and stderr. */
#include "tool_runner.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Everything readable from `fd` into *text (NUL-terminated), until EOF or,
 * when `deadline_ms` is not 0, that moment: returns 1 if it came first. */
static int read_all_until(int fd, char **text, size_t *size,
                          uint64_t deadline_ms) {
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
    if (deadline_ms) {
      uint64_t now = now_ms();
      struct pollfd ready = {.fd = fd, .events = POLLIN};
      if (now >= deadline_ms ||
          poll(&ready, 1, (int)(deadline_ms - now)) == 0) {
        (*text)[*size] = '\0';
        return 1;
      }
    }
    ssize_t got = read(fd, *text + *size, capacity - *size - 1);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    *size += (size_t)got;
  }
  (*text)[*size] = '\0';
  return 0;
}

static int read_all(int fd, char **text, size_t *size) {
  return read_all_until(fd, text, size, 0) < 0 ? -1 : 0;
}

/* Waits for `pid` until `deadline_ms` (0: for ever), then kills it. */
static int wait_until(pid_t pid, uint64_t deadline_ms, int *status,
                      int *timed_out) {
  for (;;) {
    pid_t got = waitpid(pid, status, deadline_ms ? WNOHANG : 0);
    if (got == pid)
      return 0;
    if (got < 0 && errno != EINTR)
      return -1;
    if (deadline_ms && now_ms() >= deadline_ms) {
      *timed_out = 1;
      kill(pid, SIGKILL);
      deadline_ms = 0;
    } else if (deadline_ms) {
      nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
  }
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
  return tool_run_within(args, plugin_path, 0, out);
}

int tool_run_within(const char *const *args, const char *plugin_path,
                    unsigned seconds, tool_run_t *out) {
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
  uint64_t deadline = seconds ? now_ms() + 1000u * seconds : 0;
  int read_status = -1;
  if (spawned == 0) {
    read_status =
        read_all_until(pipe_fds[0], &out->out, &out->out_size, deadline);
    if (read_status == 1) { /* stdout still open at the deadline */
      out->timed_out = 1;
      kill(pid, SIGKILL);
      read_status = 0;
    }
  }
  close(pipe_fds[0]);
  int status;
  if (spawned != 0 || wait_until(pid, deadline, &status, &out->timed_out)) {
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
