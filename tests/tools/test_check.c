/* `backplane check`, run as a program against vcpu (asynchronous, right),
 * the corpus stub (synchronous, right) and a plugin whose h2d copies corrupt
 * data. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tool_runner.h"

/* The status word of the line for `check`, e.g. "PASS"; "" if absent. */
static const char *status_of(const char *out, const char *check, char *word,
                             size_t size) {
  word[0] = '\0';
  for (const char *line = out; line && *line;) {
    char status[16], name[64];
    if (sscanf(line, " %15s %63s", status, name) == 2 && !strcmp(name, check))
      snprintf(word, size, "%s", status);
    const char *end = strchr(line, '\n');
    line = end ? end + 1 : NULL;
  }
  return word;
}

static void test_vcpu_passes_and_is_asynchronous(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"check", "--plugin", "vcpu", "--quick", NULL},
               NULL, &run),
      0);
  fputs(run.out, stderr);
  assert_int_equal(run.exit_code, 0);
  assert_int_equal(tool_count_lines(run.out, "FAIL"), 0);
  assert_true(tool_count_lines(run.out, "PASS") >= 25);
  char word[16];
  assert_string_equal(status_of(run.out, "streams.asynchrony", word, 16),
                      "ASYNCHRONOUS");
  assert_string_equal(status_of(run.out, "copy.p2p.dst_stream", word, 16),
                      "PASS");
  const char *cross[] = {"cross_stream.wait_event", "cross_stream.sync_from_to",
                         "cross_stream.cross_device"};
  for (size_t c = 0; c < 3; c++)
    assert_string_equal(status_of(run.out, cross[c], word, 16), "PASS");
  /* Each looked while stream A was held, none was left unable to tell. */
  size_t held = 0;
  for (const char *at = run.out;
       (at = strstr(at, "waited for stream A (held back, then released)"));
       at++)
    held++;
  assert_int_equal(held, 3);
  assert_int_equal(tool_count_lines(run.out, "SKIP"), 0);
  const char *collectives[] = {"collectives.init",
                               "collectives.all_reduce",
                               "collectives.all_reduce.in_place",
                               "collectives.broadcast",
                               "collectives.all_gather",
                               "collectives.reduce_scatter",
                               "collectives.send_recv"};
  for (size_t c = 0; c < sizeof collectives / sizeof *collectives; c++)
    assert_string_equal(status_of(run.out, collectives[c], word, 16), "PASS");
  tool_run_release(&run);
}

static void test_synchronous_stub_is_reported_not_failed(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"check", "--plugin", "stub", "--quick",
                                "--plugin-path", BP_STUB_PLUGIN, NULL},
               NULL, &run),
      0);
  fputs(run.out, stderr);
  char word[16];
  assert_string_equal(status_of(run.out, "streams.asynchrony", word, 16),
                      "SYNCHRONOUS");
  assert_int_equal(tool_count_lines(run.out, "FAIL"), 0);
  assert_int_equal(run.exit_code, 0);
  assert_non_null(strstr(run.out, "streams are synchronous"));
  tool_run_release(&run);
}

static void test_corrupting_plugin_fails(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(tool_run((const char *[]){"check", "--plugin",
                                             "corrupt_copy", "--quick", NULL},
                            BP_CORRUPT_PLUGIN, &run),
                   0);
  fputs(run.out, stderr);
  assert_int_equal(run.exit_code, 1);
  char word[16];
  assert_string_equal(status_of(run.out, "copy.h2d.sync", word, 16), "FAIL");
  assert_string_equal(status_of(run.out, "copy.h2d.stream", word, 16), "FAIL");
  assert_string_equal(status_of(run.out, "streams.order", word, 16), "FAIL");
  assert_string_equal(status_of(run.out, "abi.layout", word, 16), "PASS");
  assert_string_equal(status_of(run.out, "copy.p2p", word, 16), "SKIP");
  tool_run_release(&run);
}

/* vcpu whose stream_wait_event does not wait: the three cross-stream
 * checks see stream B's work run while stream A is held and FAIL (at once:
 * nothing waits for a gate's deadline); the rest of vcpu passes. */
static void test_ignored_wait_fails_cross_stream(void **state) {
  (void)state;
  /* The plugin's early work races with stream A's by design: under
   * ThreadSanitizer the command must not report that race as its own. */
  const char *tsan = getenv("TSAN_OPTIONS");
  char *saved = tsan ? strdup(tsan) : NULL, options[512];
  snprintf(options, sizeof options, "%s%sreport_bugs=0", tsan ? tsan : "",
           tsan && *tsan ? ":" : "");
  setenv("TSAN_OPTIONS", options, 1);
  tool_run_t run;
  int ran = tool_run(
      (const char *[]){"check", "--plugin", "ignores_wait", "--quick", NULL},
      BP_IGNORES_WAIT_PLUGIN, &run);
  if (saved)
    setenv("TSAN_OPTIONS", saved, 1);
  else
    unsetenv("TSAN_OPTIONS");
  free(saved);
  assert_int_equal(ran, 0);
  fputs(run.out, stderr);
  assert_int_equal(run.exit_code, 1);
  char word[16];
  const char *cross[] = {"cross_stream.wait_event", "cross_stream.sync_from_to",
                         "cross_stream.cross_device"};
  for (size_t c = 0; c < 3; c++)
    assert_string_equal(status_of(run.out, cross[c], word, 16), "FAIL");
  assert_non_null(strstr(run.out, "stream B ran work while the stream it "
                                  "waits for was still held back"));
  assert_string_equal(status_of(run.out, "streams.asynchrony", word, 16),
                      "ASYNCHRONOUS");
  assert_string_equal(status_of(run.out, "streams.order", word, 16), "PASS");
  tool_run_release(&run);
}

/* all_reduce returns success and moves nothing: FAIL, exit 1; the other
 * collectives are absent: SKIP. */
static void test_all_reduce_moving_no_data_fails(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"check", "--plugin", "no_data_all_reduce",
                                "--quick", NULL},
               BP_NO_DATA_PLUGIN, &run),
      0);
  fputs(run.out, stderr);
  assert_int_equal(run.exit_code, 1);
  char word[16];
  assert_string_equal(status_of(run.out, "collectives.all_reduce", word, 16),
                      "FAIL");
  assert_string_equal(
      status_of(run.out, "collectives.all_reduce.in_place", word, 16), "FAIL");
  assert_non_null(strstr(run.out, "the data did not move"));
  assert_string_equal(status_of(run.out, "collectives.init", word, 16), "PASS");
  assert_string_equal(status_of(run.out, "collectives.broadcast", word, 16),
                      "SKIP");
  assert_string_equal(status_of(run.out, "copy.h2d.sync", word, 16), "PASS");
  tool_run_release(&run);
}

static void test_json_report(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"check", "--plugin", "corrupt_copy", "--quick",
                                "--json", NULL},
               BP_CORRUPT_PLUGIN, &run),
      0);
  assert_int_equal(run.exit_code, 1);
  json_t *root = json_loads(run.out, 0, NULL);
  assert_non_null(root);
  json_t *plugins = json_object_get(root, "plugins");
  assert_int_equal(json_array_size(plugins), 1);
  json_t *plugin = json_array_get(plugins, 0);
  assert_string_equal(json_string_value(json_object_get(plugin, "plugin")),
                      "corrupt_copy");
  assert_string_equal(json_string_value(json_object_get(plugin, "streams")),
                      "synchronous");
  json_int_t failed = json_integer_value(json_object_get(plugin, "failed"));
  assert_true(failed > 0);
  assert_int_equal(json_integer_value(json_object_get(root, "failed")), failed);
  size_t i, fail_lines = 0;
  json_t *line;
  json_array_foreach(json_object_get(plugin, "checks"), i, line) {
    const char *status = json_string_value(json_object_get(line, "status"));
    assert_non_null(status);
    assert_true(json_is_string(json_object_get(line, "check")));
    assert_true(json_is_string(json_object_get(line, "detail")));
    if (!strcmp(status, "FAIL"))
      fail_lines++;
  }
  assert_int_equal(fail_lines, (size_t)failed);
  json_decref(root);
  tool_run_release(&run);
}

static void test_unknown_plugin_exits_1(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"check", "--plugin", "no-such-plugin", NULL},
               NULL, &run),
      0);
  assert_int_equal(run.exit_code, 1);
  assert_int_equal(tool_count_lines(run.out, "PASS"), 0);
  tool_run_release(&run);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vcpu_passes_and_is_asynchronous),
      cmocka_unit_test(test_synchronous_stub_is_reported_not_failed),
      cmocka_unit_test(test_corrupting_plugin_fails),
      cmocka_unit_test(test_ignored_wait_fails_cross_stream),
      cmocka_unit_test(test_all_reduce_moving_no_data_fails),
      cmocka_unit_test(test_json_report),
      cmocka_unit_test(test_unknown_plugin_exits_1),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
