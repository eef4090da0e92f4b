/* A plugin that prints to stdout (chatty_plugin.c) must not corrupt what
 * `backplane` prints there: the --json outputs still parse, the text outputs
 * hold none of the plugin's lines, and what the plugin printed is on stderr
 * rather than lost. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "tool_runner.h"

#define CHATTY_MARK "chatty plugin says"

/* Runs `backplane <args>` with only the chatty plugin on the search path and
 * returns its stdout parsed as JSON (fails the test if it does not parse). */
static json_t *run_json(const char *const *args, int expected_exit) {
  tool_run_t run;
  assert_int_equal(tool_run(args, BP_CHATTY_PLUGIN, &run), 0);
  assert_int_equal(run.exit_code, expected_exit);
  assert_null(strstr(run.out, CHATTY_MARK));
  json_error_t error;
  json_t *root = json_loads(run.out, 0, &error);
  if (!root)
    fail_msg("stdout is not JSON: %s at line %d:\n%s", error.text, error.line,
             run.out);
  tool_run_release(&run);
  return root;
}

/* The chatty plugin's entry of `info --json` plugins or `check --json`. */
static json_t *chatty_entry(json_t *array, const char *key) {
  size_t i;
  json_t *item;
  json_array_foreach(array, i, item) {
    json_t *name = json_object_get(item, key);
    if (json_is_string(name) && !strcmp(json_string_value(name), "chatty"))
      return item;
  }
  return NULL;
}

static void test_info_json_parses(void **state) {
  (void)state;
  json_t *root = run_json((const char *[]){"info", "--json", NULL}, 0);
  json_t *chatty =
      chatty_entry(json_object_get(root, "plugins"), "device_type");
  assert_non_null(chatty);
  assert_int_equal(json_integer_value(json_object_get(chatty, "device_count")),
                   1);
  json_decref(root);
}

static void test_check_json_parses(void **state) {
  (void)state;
  json_t *root = run_json((const char *[]){"check", "--plugin", "chatty",
                                           "--quick", "--json", NULL},
                          0);
  json_t *chatty = chatty_entry(json_object_get(root, "plugins"), "plugin");
  assert_non_null(chatty);
  assert_int_equal(json_integer_value(json_object_get(chatty, "failed")), 0);
  assert_true(json_integer_value(json_object_get(chatty, "passed")) > 0);
  json_decref(root);
}

static void test_memory_json_parses(void **state) {
  (void)state;
  json_t *root = run_json(
      (const char *[]){"memory", "--plugin", "chatty", "--json", NULL}, 0);
  assert_true(json_is_object(root) || json_is_array(root));
  json_decref(root);
}

static void test_info_text_holds_no_plugin_lines(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"info", NULL}, BP_CHATTY_PLUGIN, &run), 0);
  assert_int_equal(run.exit_code, 0);
  assert_non_null(strstr(run.out, "chatty"));
  assert_null(strstr(run.out, CHATTY_MARK));
  tool_run_release(&run);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_info_json_parses),
      cmocka_unit_test(test_check_json_parses),
      cmocka_unit_test(test_memory_json_parses),
      cmocka_unit_test(test_info_text_holds_no_plugin_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
