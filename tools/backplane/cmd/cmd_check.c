/* `backplane check`: runs the conformance suite (libbackplane_check) against
 * each loaded plugin (or the one named by --plugin), one line per result.
 * Exits 1 if any check failed; a SYNCHRONOUS verdict is not a failure. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "backplane/check.h"
#include "check_watchdog.h"
#include "cli/cli_json.h"
#include "cli/cli_options.h"
#include "cli/cli_output.h"
#include "cli/cli_runtime.h"
#include "commands.h"

/* How long one case may take before the watchdog declares the plugin hung:
 * generous, because sanitizer builds are slow. */
enum { CHECK_TIME_LIMIT_S = 300 };

static void on_case(void *user_data, const char *plugin, const char *name,
                    int starting) {
  (void)user_data;
  if (starting)
    check_watchdog_arm(plugin, name, CHECK_TIME_LIMIT_S);
  else
    check_watchdog_disarm();
}

/* Checks one plugin; adds its report to `plugins` in JSON mode. Returns the
 * number of failed checks, or -1 if the suite could not run. */
static long check_plugin(bp_runtime_t *runtime, size_t index,
                         const cli_options_t *options, json_t *plugins) {
  bp_check_options_t check_options = {
      .struct_size = sizeof(check_options),
      .quick = options->quick,
      .text_out = options->json ? NULL : cli_out(),
      .on_case = on_case,
  };
  bp_check_report_t *report;
  bp_status_t status = bp_check_run(runtime, index, &check_options, &report);
  if (status != BP_OK) {
    fprintf(stderr, "backplane check: plugin %zu: %s\n", index,
            bp_status_name(status));
    return -1;
  }
  long failed = (long)bp_check_report_summary(report).failed;
  char *text = NULL;
  if (plugins) {
    json_t *summary = NULL;
    if (bp_check_report_json(report, &text) == BP_OK)
      summary = json_loads(text, 0, NULL);
    if (!summary || json_array_append_new(plugins, summary))
      failed = -1;
  }
  free(text);
  bp_check_report_destroy(report);
  return failed;
}

static int run_checks(bp_runtime_t *runtime, const cli_options_t *options) {
  size_t first = 0, last = bp_runtime_plugin_count(runtime);
  if (options->plugin) {
    if (cli_runtime_find_plugin(runtime, options->plugin, &first) != BP_OK)
      return 1;
    last = first + 1;
  }
  if (first == last) {
    fprintf(stderr, "backplane check: no plugin is loaded; see 'backplane "
                    "info' for rejected plugins\n");
    return 1;
  }
  if (check_watchdog_start(!options->json) != 0) {
    fprintf(stderr, "backplane check: cannot start the watchdog thread\n");
    return 1;
  }
  size_t failed = 0;
  int broken = 0;
  json_t *plugins = options->json ? json_array() : NULL;
  for (size_t index = first; index < last; index++) {
    long plugin_failed = check_plugin(runtime, index, options, plugins);
    if (plugin_failed < 0)
      broken = 1;
    else
      failed += (size_t)plugin_failed;
  }
  check_watchdog_stop();
  if (plugins && cli_json_print(json_pack("{s:o, s:I}", "plugins", plugins,
                                          "failed", (json_int_t)failed)))
    return 1;
  return failed || broken ? 1 : 0;
}

int cmd_check(int argc, char **argv) {
  cli_options_t options;
  int result = cli_options_parse("check", argc, argv,
                                 CLI_OPT_PLUGIN | CLI_OPT_QUICK, &options);
  if (result)
    return result;
  bp_runtime_t *runtime;
  if (cli_runtime_open(&options, &runtime) != BP_OK) {
    cli_options_release(&options);
    return 1;
  }
  result = run_checks(runtime, &options);
  bp_runtime_destroy(runtime);
  cli_options_release(&options);
  return result;
}
