/* Running the built `backplane` binary from a test and capturing what it
 * prints on stdout and stderr (stderr is also copied to the test's stderr
 * once the command has exited). */
#ifndef BACKPLANE_TESTS_TOOL_RUNNER_H_
#define BACKPLANE_TESTS_TOOL_RUNNER_H_

#include <stddef.h>

typedef struct tool_run {
  int exit_code; /* the exit status; 128 + signal if it was killed */
  char *out;     /* everything printed on stdout, NUL-terminated; owned */
  size_t out_size;
  char *err;     /* everything printed on stderr, NUL-terminated; owned */
  int timed_out; /* tool_run_within killed it at its time limit */
} tool_run_t;

/* Runs BP_TOOL_PATH with `args` (NULL-terminated, without argv[0]) and
 * BACKPLANE_PLUGIN_PATH set to `plugin_path` (unset when NULL). The
 * environment that could add plugins (CUSTOM_DEVICE_ROOT) and change vcpu
 * (BACKPLANE_VCPU_*) is cleared first, so results do not depend on the
 * caller's shell. Returns 0, or -1 if the binary could not be run. */
int tool_run(const char *const *args, const char *plugin_path, tool_run_t *out);
/* tool_run, but the command is killed with SIGKILL once it has run for
 * `seconds`: then exit_code is 128 + SIGKILL and `timed_out` is set. */
int tool_run_within(const char *const *args, const char *plugin_path,
                    unsigned seconds, tool_run_t *out);
void tool_run_release(tool_run_t *run);

/* Counts the lines of `text` that start with `prefix` after leading spaces. */
size_t tool_count_lines(const char *text, const char *prefix);

#endif /* BACKPLANE_TESTS_TOOL_RUNNER_H_ */
