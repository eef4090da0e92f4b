/* BACKPLANE_LOG and BACKPLANE_LOG_FILE (base/log.h): the level and the
 * subsystems decide what the runtime says, and where. The switch is read
 * once per process, so each case runs in a child process with its own
 * environment and its stderr in a file. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/runtime_fixture.h"

typedef struct log_case {
  const char *level; /* BACKPLANE_LOG, NULL: unset */
  bool to_file;      /* BACKPLANE_LOG_FILE set */
  char stderr_text[8192];
  char file_text[8192];
} log_case_t;

/* What the child does: a failed huge allocation (an out-of-memory retry)
 * and a stream left for bp_runtime_destroy (a leak warning). */
static void child_work(void) {
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN);
  bp_device_t *device = NULL;
  bp_stream_t *stream = NULL;
  void *p = NULL;
  if (bp_device_get(runtime, "vcpu", 0, &device) != BP_OK ||
      bp_stream_create(device, &stream) != BP_OK ||
      bp_device_malloc(device, (size_t)1 << 46, &p) != BP_ERR_OUT_OF_MEMORY)
    _exit(3);
  bp_runtime_destroy(runtime);
}

static void read_all(const char *path, char *out, size_t size) {
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(out, 1, size - 1, f) : 0;
  out[n] = '\0';
  if (f)
    fclose(f);
}

static void run_case(log_case_t *c) {
  char err_path[] = "/tmp/bp_log_err_XXXXXX";
  char file_path[] = "/tmp/bp_log_file_XXXXXX";
  int err_fd = mkstemp(err_path), file_fd = mkstemp(file_path);
  assert_true(err_fd >= 0 && file_fd >= 0);
  close(file_fd);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(err_fd, STDERR_FILENO);
    if (c->level)
      setenv("BACKPLANE_LOG", c->level, 1);
    else
      unsetenv("BACKPLANE_LOG");
    if (c->to_file)
      setenv("BACKPLANE_LOG_FILE", file_path, 1);
    else
      unsetenv("BACKPLANE_LOG_FILE");
    child_work();
    _exit(0);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  close(err_fd);
  read_all(err_path, c->stderr_text, sizeof c->stderr_text);
  read_all(file_path, c->file_text, sizeof c->file_text);
  unlink(err_path);
  unlink(file_path);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static const char retry_line[] = "INFO alloc: vcpu:0: the device has no";
static const char leak_line[] =
    "WARN devices: vcpu:0: 1 streams never destroyed";
static const char loaded_line[] = "INFO plugins: loaded ";

static void default_is_warnings_only(void **state) {
  (void)state;
  log_case_t c = {.level = NULL};
  run_case(&c);
  assert_non_null(strstr(c.stderr_text, leak_line));
  assert_null(strstr(c.stderr_text, "INFO"));
}

static void info_says_what_was_loaded_and_retried(void **state) {
  (void)state;
  log_case_t c = {.level = "info"};
  run_case(&c);
  assert_non_null(strstr(c.stderr_text, loaded_line));
  assert_non_null(strstr(c.stderr_text, retry_line));
  assert_non_null(strstr(c.stderr_text, "retrying"));
  assert_non_null(strstr(c.stderr_text, "INFO alloc: vcpu:0: out of memory"));
  assert_non_null(strstr(c.stderr_text, leak_line));
  assert_null(strstr(c.stderr_text, "DEBUG"));
}

static void subsystems_filter_the_messages(void **state) {
  (void)state;
  log_case_t c = {.level = "INFO:alloc"};
  run_case(&c);
  assert_non_null(strstr(c.stderr_text, retry_line));
  assert_null(strstr(c.stderr_text, loaded_line));
  assert_null(strstr(c.stderr_text, leak_line));
}

static void file_takes_the_messages_instead_of_stderr(void **state) {
  (void)state;
  log_case_t c = {.level = "debug", .to_file = true};
  run_case(&c);
  assert_non_null(strstr(c.file_text, retry_line));
  assert_non_null(strstr(c.file_text, leak_line));
  assert_non_null(strstr(c.file_text, "DEBUG plugins: opening "));
  assert_null(strstr(c.stderr_text, "backplane:"));
}

static void off_is_silent(void **state) {
  (void)state;
  log_case_t c = {.level = "off"};
  run_case(&c);
  assert_string_equal(c.stderr_text, "");
}

static void bad_value_is_named_and_warn_is_kept(void **state) {
  (void)state;
  log_case_t c = {.level = "loud"};
  run_case(&c);
  assert_non_null(strstr(c.stderr_text, "BACKPLANE_LOG: expected "
                                        "off|error|warn|info|debug"));
  assert_non_null(strstr(c.stderr_text, "got 'loud'; using warn"));
  assert_non_null(strstr(c.stderr_text, leak_line));
  assert_null(strstr(c.stderr_text, retry_line));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(default_is_warnings_only),
      cmocka_unit_test(info_says_what_was_loaded_and_retried),
      cmocka_unit_test(subsystems_filter_the_messages),
      cmocka_unit_test(file_takes_the_messages_instead_of_stderr),
      cmocka_unit_test(off_is_silent),
      cmocka_unit_test(bad_value_is_named_and_warn_is_kept),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
