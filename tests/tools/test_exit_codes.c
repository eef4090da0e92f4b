/* The exit codes of every `backplane` command: 2 only for a command line
 * that is wrong (unknown option or command, missing or malformed value,
 * conflicting options), 1 for a failure while running (a plugin call that
 * fails, even with BP_ERR_INVALID_ARGUMENT from an injected C_ERROR; a
 * file, device or target that does not exist), 0 for success. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tool_runner.h"

static void expect_exit(int code, const char *const *args) {
  tool_run_t run;
  assert_int_equal(tool_run(args, NULL, &run), 0);
  if (run.exit_code != code) {
    fprintf(stderr, "backplane");
    for (size_t i = 0; args[i]; i++)
      fprintf(stderr, " %s", args[i]);
    fail_msg("exit %d, expected %d", run.exit_code, code);
  }
  tool_run_release(&run);
}

#define EXPECT_EXIT(code, ...)                                                 \
  expect_exit(code, (const char *[]){__VA_ARGS__, NULL})

static void test_usage_errors_exit_2(void **state) {
  (void)state;
  EXPECT_EXIT(2, "no-such-command");
  EXPECT_EXIT(2, "info", "--bogus");
  EXPECT_EXIT(2, "check", "--bogus");
  EXPECT_EXIT(2, "check", "--plugin");
  EXPECT_EXIT(2, "bench", "no-such-bench");
  EXPECT_EXIT(2, "bench", "copy", "--op", "all_reduce");
  EXPECT_EXIT(2, "memory", "bogus");
  EXPECT_EXIT(2, "memory", "--svg");
  EXPECT_EXIT(2, "trace");
  EXPECT_EXIT(2, "optest", "--ops");
  /* A filter that keeps no case is a mistyped op, not 0 of 0 passing. */
  EXPECT_EXIT(2, "optest", "--quick", "--filter", "no-such-op");
  EXPECT_EXIT(2, "target", "--device");
  EXPECT_EXIT(2, "target", "vcpu", "--device", "0");
  EXPECT_EXIT(2, "build", "kernels.json");
  EXPECT_EXIT(2, "train", "--bogus");
  EXPECT_EXIT(2, "train", "--epochs", "x");
  EXPECT_EXIT(2, "train", "--batch", "63");
  EXPECT_EXIT(2, "train", "--processes", "3", "--batch", "64");
}

static void test_runtime_failures_exit_1(void **state) {
  (void)state;
  EXPECT_EXIT(1, "check", "--plugin", "no-such-plugin");
  EXPECT_EXIT(1, "target", "no-such-kind");
  EXPECT_EXIT(1, "target", "--device", "99");
  EXPECT_EXIT(1, "build", "/nonexistent/kernels.json", "--target", "vcpu");
  EXPECT_EXIT(1, "optest", "--ops", "/nonexistent/libops.so", "--quick");
  EXPECT_EXIT(1, "train", "--data", "/nonexistent/digits.csv.gz");
  EXPECT_EXIT(1, "train", "--ops", "/nonexistent/libops.so");
}

/* A plugin call that fails inside the run is a failure, not a usage error,
 * whatever status it maps to (C_ERROR gives BP_ERR_INVALID_ARGUMENT). */
static void test_injected_failures_exit_1(void **state) {
  (void)state;
  const char *rules[] = {"create_event:1=C_ERROR", "create_event:1",
                         "device_memory_allocate:1=C_ERROR",
                         "create_stream:1=C_ERROR"};
  setenv("BACKPLANE_LAYERS", "fault", 1);
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
    setenv("BACKPLANE_FAULT", rules[i], 1);
    fprintf(stderr, "--- BACKPLANE_FAULT=%s\n", rules[i]);
    EXPECT_EXIT(1, "train", "--epochs", "1");
  }
  unsetenv("BACKPLANE_FAULT");
  unsetenv("BACKPLANE_LAYERS");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_usage_errors_exit_2),
      cmocka_unit_test(test_runtime_failures_exit_1),
      cmocka_unit_test(test_injected_failures_exit_1),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
