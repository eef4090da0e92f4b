/* `backplane check --plugin vcpu` under every layer (validation, trace,
 * fault with no rules) and under all of them together: every case passes,
 * including the peer copy ordered on the source's stream, and the
 * validation layer writes no line about the checker's correct calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool_runner.h"

static size_t file_lines(const char *path) {
  FILE *file = fopen(path, "r");
  if (!file)
    return 0;
  size_t n = 0;
  char line[2048];
  while (fgets(line, sizeof line, file)) {
    fputs(line, stderr);
    ++n;
  }
  fclose(file);
  return n;
}

static void check_passes_under(const char *layers) {
  char log[32], trace[32];
  strcpy(log, "/tmp/bp-check-vlog-XXXXXX");
  strcpy(trace, "/tmp/bp-check-trace-XXXXXX");
  int fd = mkstemp(log);
  assert_true(fd >= 0);
  close(fd);
  fd = mkstemp(trace);
  assert_true(fd >= 0);
  close(fd);
  setenv("BACKPLANE_LAYERS", layers, 1);
  setenv("BACKPLANE_FAULT", "", 1);
  setenv("BACKPLANE_VALIDATION_LOG", log, 1);
  setenv("BACKPLANE_VALIDATION_ABORT", "0", 1);
  setenv("BACKPLANE_TRACE_FILE", trace, 1);
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"check", "--plugin", "vcpu", "--quick", NULL},
               NULL, &run),
      0);
  fprintf(stderr, "--- BACKPLANE_LAYERS=%s\n%s", layers, run.out);
  assert_int_equal(tool_count_lines(run.out, "FAIL"), 0);
  assert_non_null(strstr(run.out, "copy.p2p.src_stream"));
  assert_true(tool_count_lines(run.out, "PASS") >= 25);
  assert_int_equal(run.exit_code, 0);
  assert_int_equal(file_lines(log), 0);
  tool_run_release(&run);
  unlink(log);
  unlink(trace);
  unsetenv("BACKPLANE_LAYERS");
}

static void test_validation(void **state) {
  (void)state;
  check_passes_under("validation");
}

static void test_trace(void **state) {
  (void)state;
  check_passes_under("trace");
}

static void test_fault_without_rules(void **state) {
  (void)state;
  check_passes_under("fault");
}

static void test_every_layer(void **state) {
  (void)state;
  check_passes_under("validation,trace,fault");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_validation),
      cmocka_unit_test(test_trace),
      cmocka_unit_test(test_fault_without_rules),
      cmocka_unit_test(test_every_layer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
