/* `backplane optest` against the reference library (every case passes) and
 * against deliberately broken libraries (each is caught), and a library
 * without the op (NOIMPL, not a failure). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

/* Runs the tool; returns its exit code and the lines starting with `word`. */
static int run(const char *args, const char *word, int *lines) {
  char command[2048];
  snprintf(command, sizeof command, "%s optest --quick %s", BP_TOOL_PATH, args);
  FILE *out = popen(command, "r");
  assert_non_null(out);
  char line[4096];
  *lines = 0;
  while (fgets(line, sizeof line, out))
    *lines += !strncmp(line, word, strlen(word));
  int status = pclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void reference_passes_every_case(void **state) {
  (void)state;
  int fails, passes;
  assert_int_equal(run("", "FAIL", &fails), 0);
  assert_int_equal(fails, 0);
  assert_int_equal(run("", "PASS", &passes), 0);
  assert_true(passes >= 200);
}

static void off_by_one_add_is_caught(void **state) {
  (void)state;
  int fails;
  assert_int_equal(
      run("--ops " BROKEN_ADD " --filter add/f32/same", "FAIL", &fails), 1);
  assert_int_equal(fails, 1);
}

static void wrong_stride_copy_is_caught(void **state) {
  (void)state;
  int fails, passes;
  assert_int_equal(
      run("--ops " BROKEN_COPY " --filter copy/f32/strided", "FAIL", &fails),
      1);
  assert_int_equal(fails, 1);
  /* A contiguous copy is right even with strides ignored. */
  assert_int_equal(
      run("--ops " BROKEN_COPY " --filter copy/f32/large", "PASS", &passes), 0);
  assert_int_equal(passes, 1);
}

static void op_writing_its_input_is_caught(void **state) {
  (void)state;
  int fails;
  assert_int_equal(
      run("--ops " BROKEN_RELU " --filter relu/f32/large", "FAIL", &fails), 1);
  assert_int_equal(fails, 1);
}

static void missing_op_is_noimpl(void **state) {
  (void)state;
  int noimpl;
  assert_int_equal(
      run("--ops " BROKEN_RELU " --filter diopiMm", "NOIMPL", &noimpl), 0);
  assert_true(noimpl >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reference_passes_every_case),
      cmocka_unit_test(off_by_one_add_is_caught),
      cmocka_unit_test(wrong_stride_copy_is_caught),
      cmocka_unit_test(op_writing_its_input_is_caught),
      cmocka_unit_test(missing_op_is_noimpl),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
