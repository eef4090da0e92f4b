/* A harness built against an installed libbackplane_check only: runs a
 * filtered part of the conformance suite on the plugin named on the command
 * line and checks what the library reports.
 *
 *   check_consumer <device_type>
 *
 * Exit status 0 when every expectation held; messages on stderr otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/backplane.h"
#include "backplane/check.h"

static int failures;

#define EXPECT(condition)                                                      \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "check_consumer:%d: expected %s\n", __LINE__,            \
              #condition);                                                     \
      failures++;                                                              \
    }                                                                          \
  } while (0)

/* Counts the results the callback saw, and those outside the filter. */
typedef struct seen {
  size_t results, outside_filter;
} seen_t;

static void on_result(void *user_data, const bp_check_result_t *result) {
  seen_t *seen = user_data;
  seen->results++;
  if (strcmp(result->suite_case, "abi") != 0 &&
      strncmp(result->suite_case, "dev", 3) != 0)
    seen->outside_filter++;
}

static int find_plugin(bp_runtime_t *runtime, const char *device_type,
                       size_t *out_index) {
  bp_plugin_info_t info;
  for (size_t i = 0; i < bp_runtime_plugin_count(runtime); i++) {
    if (bp_runtime_plugin_info(runtime, i, &info) == BP_OK &&
        strcmp(info.device_type, device_type) == 0) {
      *out_index = i;
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: check_consumer <device_type>\n");
    return 2;
  }
  bp_runtime_t *runtime;
  size_t index;
  if (bp_runtime_create(NULL, &runtime) != BP_OK) {
    fprintf(stderr, "bp_runtime_create: %s\n", bp_last_error());
    return 1;
  }
  if (!find_plugin(runtime, argv[1], &index)) {
    fprintf(stderr, "check_consumer: no plugin %s\n", argv[1]);
    bp_runtime_destroy(runtime);
    return 1;
  }

  /* The case list names the first case and ends with NULL. */
  EXPECT(bp_check_case_count() > 10);
  EXPECT(strcmp(bp_check_case_name(0), "abi") == 0);
  EXPECT(bp_check_case_name(bp_check_case_count()) == NULL);

  /* A pattern that matches no case is refused, and nothing is returned. */
  bp_check_report_t *report = NULL;
  bp_check_options_t options = {
      .struct_size = sizeof(options),
      .cases = (const char *const[]){"no_such_case", NULL}};
  EXPECT(bp_check_run(runtime, index, &options, &report) ==
         BP_ERR_INVALID_ARGUMENT);
  EXPECT(report == NULL);

  /* "abi" and "dev*": only their results, all passing, seen one by one. */
  seen_t seen = {0};
  options =
      (bp_check_options_t){.struct_size = sizeof(options),
                           .cases = (const char *const[]){"abi", "dev*", NULL},
                           .quick = 1,
                           .on_result = on_result,
                           .user_data = &seen};
  EXPECT(bp_check_run(runtime, index, &options, &report) == BP_OK);
  if (report) {
    bp_check_summary_t summary = bp_check_report_summary(report);
    EXPECT(strcmp(summary.plugin, argv[1]) == 0);
    EXPECT(summary.failed == 0);
    EXPECT(summary.passed >= 4);
    EXPECT(seen.results == bp_check_report_result_count(report));
    EXPECT(seen.outside_filter == 0);
    const bp_check_result_t *first = bp_check_report_result(report, 0);
    EXPECT(first && first->outcome == BP_CHECK_PASS &&
           strcmp(first->status, "PASS") == 0 &&
           strncmp(first->name, "abi.", 4) == 0);
    char *json = NULL;
    EXPECT(bp_check_report_json(report, &json) == BP_OK);
    EXPECT(json && json[0] == '{' && strstr(json, "\"checks\""));
    free(json);
    EXPECT(bp_check_report_write_text(report, stdout) == BP_OK);
    bp_check_report_destroy(report);
  }
  bp_runtime_destroy(runtime);
  return failures ? 1 : 0;
}
