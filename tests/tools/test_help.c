/* `backplane COMMAND --help` for every command: exit 0, the text ends with
 * a newline, every option the command accepts is listed (the lists below
 * are read off each command's parser), and every listed option says its
 * default (or that it is required). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tool_runner.h"

typedef struct command_options {
  const char *command;
  const char *options[20]; /* NULL-terminated */
} command_options_t;

static const command_options_t commands[] = {
    {"info", {"--json", "--plugin-path"}},
    {"check", {"--plugin", "--quick", "--json", "--plugin-path"}},
    {"bench",
     {"NAME...|all", "--plugin", "--quick", "--op", "--ranks", "--transport",
      "--json", "--plugin-path"}},
    {"memory",
     {"--plugin", "replay", "snapshot FILE", "svg FILE", "--svg", "--json",
      "--plugin-path"}},
    {"trace", {"-o, --output", "--svg", "-- COMMAND...", "--plugin-path"}},
    {"optest",
     {"--ops", "--device", "--filter", "--data", "--quick", "--json",
      "--plugin-path"}},
    {"target", {"TARGET", "--device", "--json", "--plugin-path"}},
    {"build",
     {"IR.json|SOURCE.c", "--target", "-o", "--function", "--json",
      "--plugin-path"}},
    {"train",
     {"--devices", "--processes", "--batch", "--epochs", "--seed", "--lr",
      "--no-overlap", "--checkpoint", "--checkpoint-every", "--data", "--ops",
      "--trace", "--svg", "--svg-window", "--json", "--plugin-path"}},
};

/* The line of `text` that lists `option` (starts with two spaces, then the
 * option followed by a space or a comma), or NULL. */
static const char *option_line(const char *text, const char *option) {
  size_t length = strlen(option);
  for (const char *line = text; line && *line;) {
    if (!strncmp(line, "  ", 2) && !strncmp(line + 2, option, length) &&
        (line[2 + length] == ' ' || line[2 + length] == ','))
      return line;
    const char *end = strchr(line, '\n');
    line = end ? end + 1 : NULL;
  }
  return NULL;
}

static void test_every_option_listed_with_its_default(void **state) {
  (void)state;
  for (size_t c = 0; c < sizeof commands / sizeof *commands; c++) {
    tool_run_t run;
    assert_int_equal(
        tool_run((const char *[]){commands[c].command, "--help", NULL}, NULL,
                 &run),
        0);
    assert_int_equal(run.exit_code, 0);
    assert_true(run.out_size > 0 && run.out[run.out_size - 1] == '\n');
    const char *listed = strstr(run.out, "\noptions:\n");
    if (!listed)
      fail_msg("%s --help has no options section:\n%s", commands[c].command,
               run.out);
    for (const char *const *o = commands[c].options; *o; o++) {
      const char *line = option_line(listed, *o);
      if (!line)
        fail_msg("%s --help does not list %s:\n%s", commands[c].command, *o,
                 run.out);
      const char *end = strchr(line, '\n');
      size_t length = end ? (size_t)(end - line) : strlen(line);
      char copy[512];
      snprintf(copy, sizeof copy, "%.*s", (int)length, line);
      if (!strstr(copy, "default:") && !strstr(copy, "required"))
        fail_msg("%s --help: %s gives no default: %s", commands[c].command, *o,
                 copy);
    }
    tool_run_release(&run);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_option_listed_with_its_default),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
