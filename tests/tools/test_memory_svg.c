/* `backplane memory --svg FILE` (the form `train` and `trace` take) writes
 * the allocator picture as `svg FILE` does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool_runner.h"

/* The first bytes of the file at `path` ("" if it cannot be read). */
static void read_start(const char *path, char *out, size_t size) {
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(out, 1, size - 1, f) : 0;
  out[n] = '\0';
  if (f)
    fclose(f);
}

static void test_svg_option_writes_the_picture(void **state) {
  (void)state;
  char dir[] = "/tmp/bp-memory-svg-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char option_path[64], word_path[64];
  snprintf(option_path, sizeof option_path, "%s/option.svg", dir);
  snprintf(word_path, sizeof word_path, "%s/word.svg", dir);

  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"memory", "--plugin", "vcpu", "replay", "--svg",
                                option_path, NULL},
               NULL, &run),
      0);
  assert_int_equal(run.exit_code, 0);
  tool_run_release(&run);
  assert_int_equal(tool_run((const char *[]){"memory", "--plugin", "vcpu",
                                             "replay", "svg", word_path, NULL},
                            NULL, &run),
                   0);
  assert_int_equal(run.exit_code, 0);
  tool_run_release(&run);

  char option_start[8], word_start[8];
  read_start(option_path, option_start, sizeof option_start);
  read_start(word_path, word_start, sizeof word_start);
  assert_true(strncmp(option_start, "<svg", 4) == 0);
  assert_true(strncmp(word_start, "<svg", 4) == 0);
  unlink(option_path);
  unlink(word_path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_svg_option_writes_the_picture),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
