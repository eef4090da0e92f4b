/* `backplane memory SNAPSHOT`: a saved allocator history summarized (text
 * and --json) and drawn (--svg FILE); a history recorded by
 * BACKPLANE_MEMORY_HISTORY from a running command reads back. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool_runner.h"

/* Three blocks on two streams: 1000 and 3000 bytes live at once (the peak,
 * event 2), 500 left at the end, one free whose alloc the ring dropped. */
static const char history[] =
    "{\"format\": \"backplane-memory-history\", \"version\": 1,"
    " \"max_events\": 7, \"dropped\": 0, \"events\": ["
    "{\"action\": \"segment_alloc\", \"device\": \"vcpu:0\", \"address\": "
    "\"0x1000\", \"size\": 2097152, \"stream\": null, \"time_ns\": 0},"
    "{\"action\": \"alloc\", \"device\": \"vcpu:0\", \"address\": \"0x1000\","
    " \"size\": 1000, \"stream\": null, \"time_ns\": 1000000},"
    "{\"action\": \"alloc\", \"device\": \"vcpu:0\", \"address\": \"0x2000\","
    " \"size\": 3000, \"stream\": \"0xabc\", \"time_ns\": 2000000},"
    "{\"action\": \"free\", \"device\": \"vcpu:0\", \"address\": \"0x1000\","
    " \"size\": 1000, \"stream\": null, \"time_ns\": 3000000},"
    "{\"action\": \"alloc\", \"device\": \"vcpu:0\", \"address\": \"0x3000\","
    " \"size\": 500, \"stream\": null, \"time_ns\": 4000000},"
    "{\"action\": \"free\", \"device\": \"vcpu:0\", \"address\": \"0x2000\","
    " \"size\": 3000, \"stream\": \"0xabc\", \"time_ns\": 5000000},"
    "{\"action\": \"free\", \"device\": \"vcpu:0\", \"address\": \"0x9000\","
    " \"size\": 64, \"stream\": null, \"time_ns\": 6000000}]}";

typedef struct paths {
  char dir[32], history[64], svg[64];
} paths_t;

static int make_paths(void **state) {
  paths_t *p = calloc(1, sizeof *p);
  snprintf(p->dir, sizeof p->dir, "/tmp/bp-memory-history-XXXXXX");
  assert_non_null(mkdtemp(p->dir));
  snprintf(p->history, sizeof p->history, "%s/history.json", p->dir);
  snprintf(p->svg, sizeof p->svg, "%s/history.svg", p->dir);
  *state = p;
  return 0;
}

static int remove_paths(void **state) {
  paths_t *p = *state;
  unlink(p->history);
  unlink(p->svg);
  rmdir(p->dir);
  free(p);
  return 0;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  assert_true(fputs(text, f) >= 0);
  assert_int_equal(fclose(f), 0);
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  return text;
}

static void summarizes_a_saved_history(void **state) {
  paths_t *p = *state;
  write_file(p->history, history);
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"memory", p->history, NULL}, NULL, &run), 0);
  assert_int_equal(run.exit_code, 0);
  assert_non_null(strstr(run.out, "memory history: 7 event(s)"));
  assert_non_null(strstr(run.out, "vcpu:0: 3 alloc(s), 3 free(s) (1 without "
                                  "their alloc), 1 chunk(s) taken"));
  assert_non_null(strstr(run.out, "live at 2.000 ms (event 2)"));
  assert_non_null(strstr(run.out, "live in 1 block(s) at the end"));
  assert_non_null(strstr(run.out, "stream 0xabc"));
  tool_run_release(&run);

  assert_int_equal(
      tool_run((const char *[]){"memory", p->history, "--json", NULL}, NULL,
               &run),
      0);
  assert_int_equal(run.exit_code, 0);
  json_t *summary = json_loads(run.out, 0, NULL);
  assert_non_null(summary);
  json_t *device = json_array_get(json_object_get(summary, "devices"), 0);
  assert_int_equal(json_integer_value(json_object_get(device, "peak_bytes")),
                   4000);
  assert_int_equal(json_integer_value(json_object_get(device, "peak_event")),
                   2);
  assert_int_equal(json_integer_value(json_object_get(device, "live_bytes")),
                   500);
  assert_int_equal(
      json_integer_value(json_object_get(device, "peak_reserved_bytes")),
      2097152);
  json_decref(summary);
  tool_run_release(&run);
}

static void draws_a_saved_history(void **state) {
  paths_t *p = *state;
  write_file(p->history, history);
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"memory", p->history, "--svg", p->svg, NULL},
               NULL, &run),
      0);
  assert_int_equal(run.exit_code, 0);
  tool_run_release(&run);
  const char *svg = read_file(p->svg);
  assert_true(strncmp(svg, "<svg", 4) == 0);
  assert_non_null(strstr(svg, "vcpu:0: 3 alloc(s)"));
  assert_non_null(strstr(svg, ">peak 3.9 KiB</text>"));
  assert_non_null(strstr(svg, "stream 0xabc"));
}

static void records_a_running_command_and_draws_it(void **state) {
  paths_t *p = *state;
  setenv("BACKPLANE_MEMORY_HISTORY", p->history, 1);
  tool_run_t run;
  int started =
      tool_run((const char *[]){"memory", "--plugin", "vcpu", "replay", NULL},
               NULL, &run);
  unsetenv("BACKPLANE_MEMORY_HISTORY");
  assert_int_equal(started, 0);
  assert_int_equal(run.exit_code, 0);
  tool_run_release(&run);
  json_t *root = json_load_file(p->history, 0, NULL);
  assert_non_null(root);
  assert_true(json_array_size(json_object_get(root, "events")) > 10);
  json_decref(root);
  assert_int_equal(
      tool_run((const char *[]){"memory", p->history, "--svg", p->svg, NULL},
               NULL, &run),
      0);
  assert_int_equal(run.exit_code, 0);
  assert_non_null(strstr(run.out, "vcpu:0: "));
  tool_run_release(&run);
  assert_true(strncmp(read_file(p->svg), "<svg", 4) == 0);
}

static void refuses_a_file_that_is_no_snapshot(void **state) {
  paths_t *p = *state;
  write_file(p->history, "{\"something\": 1}");
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"memory", p->history, NULL}, NULL, &run), 0);
  assert_int_equal(run.exit_code, 1);
  assert_non_null(strstr(run.err, "not a memory history snapshot"));
  tool_run_release(&run);
  assert_int_equal(
      tool_run((const char *[]){"memory", p->history, "replay", NULL}, NULL,
               &run),
      0);
  assert_int_equal(run.exit_code, 2);
  tool_run_release(&run);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(summarizes_a_saved_history, make_paths,
                                      remove_paths),
      cmocka_unit_test_setup_teardown(draws_a_saved_history, make_paths,
                                      remove_paths),
      cmocka_unit_test_setup_teardown(records_a_running_command_and_draws_it,
                                      make_paths, remove_paths),
      cmocka_unit_test_setup_teardown(refuses_a_file_that_is_no_snapshot,
                                      make_paths, remove_paths),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
