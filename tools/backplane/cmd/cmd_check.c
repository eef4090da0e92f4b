/* `backplane check`: runs the conformance checks of check_list.h against
 * each loaded plugin (or the one named by --plugin), one line per result.
 * Exits 1 if any check failed; a SYNCHRONOUS verdict is not a failure. */
#include <stdio.h>
#include <stdlib.h>

#include "check/check.h"
#include "check/check_report.h"
#include "check/check_watchdog.h"
#include "cli/cli_json.h"
#include "cli/cli_options.h"
#include "cli/cli_output.h"
#include "cli/cli_runtime.h"
#include "commands.h"

/* How long one check may take before the watchdog declares the plugin hung:
 * generous, because sanitizer builds are slow. */
enum { CHECK_TIME_LIMIT_S = 300 };

typedef struct check_entry {
  const char *name;
  void (*run)(check_ctx_t *ctx);
} check_entry_t;

static const check_entry_t checks[] = {
#define BP_CHECK(name, summary) {#name, check_##name},
#include "check/check_list.h"
#undef BP_CHECK
};

size_t check_large_size(const check_ctx_t *ctx) {
  return ctx->quick ? (size_t)4 << 20 : (size_t)64 << 20;
}

/* Fills in the plugin's description and devices. */
static bp_status_t prepare(check_ctx_t *ctx) {
  bp_status_t status =
      bp_runtime_plugin_info(ctx->runtime, ctx->plugin_index, &ctx->info);
  if (status != BP_OK)
    return status;
  ctx->dispatch = bp_runtime_plugin_dispatch(ctx->runtime, ctx->plugin_index);
  ctx->devices = calloc(ctx->info.device_count + 1, sizeof(bp_device_t *));
  if (!ctx->devices)
    return BP_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < ctx->info.device_count; i++) {
    status =
        bp_device_get(ctx->runtime, ctx->info.device_type, i, &ctx->devices[i]);
    if (status != BP_OK)
      return status;
    ctx->device_count++;
  }
  return BP_OK;
}

/* Runs every check against one plugin; returns its JSON summary in JSON
 * mode (NULL otherwise). */
static json_t *check_plugin(check_ctx_t *ctx) {
  if (ctx->json)
    ctx->lines = json_array();
  bp_status_t status = prepare(ctx);
  if (status != BP_OK) {
    if (!ctx->json)
      fprintf(cli_out(), "plugin %zu\n", ctx->plugin_index);
    check_fail_call(ctx, "setup", "describing the plugin", status);
  } else if (ctx->device_count == 0) {
    check_fail(ctx, "setup", "%s has no devices to check",
               ctx->info.device_type);
  } else {
    if (!ctx->json)
      fprintf(cli_out(), "%s  (%s, %zu device%s)\n", ctx->info.device_type,
              ctx->info.path, ctx->info.device_count,
              ctx->info.device_count == 1 ? "" : "s");
    for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
      check_watchdog_arm(ctx->info.device_type, checks[i].name,
                         CHECK_TIME_LIMIT_S);
      checks[i].run(ctx);
      check_watchdog_disarm();
    }
  }
  const char *name = status == BP_OK ? ctx->info.device_type : "?";
  if (!ctx->json)
    fprintf(cli_out(),
            "%s: %zu passed, %zu failed, %zu skipped; streams are %s\n\n", name,
            ctx->passed, ctx->failed, ctx->skipped,
            check_streams_name(ctx->streams));
  free(ctx->devices);
  if (!ctx->json)
    return NULL;
  return json_pack("{s:s, s:s?, s:s, s:I, s:I, s:I, s:o*}", "plugin", name,
                   "path", status == BP_OK ? ctx->info.path : NULL, "streams",
                   check_streams_name(ctx->streams), "passed",
                   (json_int_t)ctx->passed, "failed", (json_int_t)ctx->failed,
                   "skipped", (json_int_t)ctx->skipped, "checks", ctx->lines);
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
  json_t *plugins = options->json ? json_array() : NULL;
  for (size_t index = first; index < last; index++) {
    check_ctx_t ctx = {.runtime = runtime,
                       .plugin_index = index,
                       .quick = options->quick,
                       .json = options->json};
    json_t *summary = check_plugin(&ctx);
    failed += ctx.failed;
    if (plugins)
      json_array_append_new(plugins, summary);
  }
  check_watchdog_stop();
  if (plugins && cli_json_print(json_pack("{s:o, s:I}", "plugins", plugins,
                                          "failed", (json_int_t)failed)))
    return 1;
  return failed ? 1 : 0;
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
