/* The misuse corpus under the validation layer: each program's misuse is
 * reported exactly once, with the right message, and the program runs to its
 * end; without the layer the same program produces no report (the plugin
 * refuses the call itself, or the misuse goes unnoticed, or it crashes).
 * Programs whose misuse hangs without the layer (a callback waiting for
 * itself) run under validation only. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/runtime_fixture.h"

typedef struct misuse_case {
  const char *program;
  const char *message; /* in the one report line */
  int validation_only; /* hangs without the layer: not run without it */
} misuse_case_t;

static const misuse_case_t cases[] = {
    {"destroyed_stream", "synchronize_stream on vcpu:0: stream ", 0},
    {"destroyed_event", "query_event on vcpu:0: event ", 0},
    {"foreign_stream_record", "record_event on vcpu:0: event ", 0},
    {"double_free", "device_memory_deallocate on vcpu:0: double free of ", 0},
    {"never_allocated_free", "was never allocated as device memory", 0},
    {"size_mismatch",
     "size 1024 differs from the 4096 bytes of device "
     "memory #1",
     0},
    {"copy_past_end",
     "runs 4096 bytes past the end of device memory #1 "
     "(4096 bytes",
     0},
    {"device_pointer_as_host", "memory_copy_d2h on vcpu:0: destination ", 0},
    {"pending_destroy", "destroy_stream on vcpu:0: stream ", 0},
    {"leak", "finalize on vcpu:1: leaked device memory #1: 4096 bytes", 0},
    {"callback_syncs_own_stream",
     "synchronize_stream on vcpu:0: called on stream 0x", 1},
};

/* A second fragment each message must hold. */
static const char *const details[] = {
    "was already destroyed",
    "was already destroyed",
    "recorded on stream",
    "already freed",
    "vcpu:0",
    "at 0x",
    "destination range",
    "passed as host memory",
    "with work pending",
    "at 0x",
    "from a host callback of that stream",
};

/* Runs BP_MISUSE_DIR/program with BACKPLANE_LAYERS=`layers` and the log at
 * `log_path`; returns the exit status (128 + signal when killed). */
static int run_program(const char *program, const char *layers,
                       const char *log_path) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", BP_MISUSE_DIR, program);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0)
      dup2(devnull, STDERR_FILENO);
    setenv("BACKPLANE_LAYERS", layers, 1);
    setenv("BACKPLANE_VALIDATION_LOG", log_path, 1);
    setenv("BACKPLANE_VALIDATION_ABORT", "0", 1);
    setenv("BACKPLANE_VCPU_DEVICES", "2", 1);
    execl(path, path, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The report lines ("backplane validation: FN on DEVICE: ...") of a log. */
static size_t read_reports(const char *log_path, char lines[][1024],
                           size_t max) {
  FILE *log = fopen(log_path, "r");
  if (!log)
    return 0;
  size_t n = 0;
  char line[1024];
  while (fgets(line, sizeof line, log))
    if (strncmp(line, "backplane validation: ", 22) == 0 &&
        strstr(line, " on vcpu:") && n < max)
      strcpy(lines[n++], line);
  fclose(log);
  return n;
}

static void test_corpus(void **state) {
  (void)state;
  char log_path[] = "/tmp/bp-misuse-XXXXXX";
  int fd = mkstemp(log_path);
  assert_true(fd >= 0);
  close(fd);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const misuse_case_t *c = &cases[i];
    unlink(log_path);
    int status = run_program(c->program, "validation", log_path);
    if (status != 0)
      fail_msg("%s under validation exited with %d", c->program, status);
    char lines[8][1024];
    size_t n = read_reports(log_path, lines, 8);
    if (n != 1)
      fail_msg("%s: %zu reports under validation, expected 1%s%s", c->program,
               n, n ? ": " : "", n ? lines[0] : "");
    if (!strstr(lines[0], c->message) || !strstr(lines[0], details[i]))
      fail_msg("%s: report \"%s\" lacks \"%s\" / \"%s\"", c->program, lines[0],
               c->message, details[i]);
    printf("%-24s validation: %s", c->program, lines[0] + 22);
    if (c->validation_only) {
      printf("%-24s without: not run (hangs)\n", c->program);
      continue;
    }

    unlink(log_path);
    status = run_program(c->program, "", log_path);
    assert_int_equal(read_reports(log_path, lines, 8), 0);
    printf("%-24s without: exit status %d, no report\n", c->program, status);
  }
  unlink(log_path);
}

static void test_leak_table(void **state) {
  (void)state;
  char log_path[] = "/tmp/bp-misuse-XXXXXX";
  int fd = mkstemp(log_path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(run_program("leak", "validation", log_path), 0);
  FILE *log = fopen(log_path, "r");
  assert_non_null(log);
  char line[1024];
  int table_row = 0, stream_row = 0;
  while (fgets(line, sizeof line, log)) {
    if (strstr(line, "device memory") && strstr(line, "LEAK = 1"))
      table_row = 1;
    if (strstr(line, "  stream ") && !strstr(line, "LEAK"))
      stream_row = 1;
  }
  fclose(log);
  unlink(log_path);
  assert_true(table_row);
  assert_true(stream_row);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corpus),
      cmocka_unit_test(test_leak_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
