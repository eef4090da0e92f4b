/* bp_check_run: the cases of check_list.h, filtered, against one plugin. */
#include <fnmatch.h>
#include <stdlib.h>

#include "check.h"
#include "check_report.h"

typedef struct check_case {
  const char *name;
  const char *summary;
  void (*run)(check_ctx_t *ctx);
} check_case_t;

static const check_case_t cases[] = {
#define BP_CHECK(name, summary) {#name, summary, check_##name},
#include "check_list.h"
#undef BP_CHECK
};
enum { CASE_COUNT = sizeof(cases) / sizeof(cases[0]) };

size_t bp_check_case_count(void) {
  return CASE_COUNT;
}

const char *bp_check_case_name(size_t index) {
  return index < CASE_COUNT ? cases[index].name : NULL;
}

const char *bp_check_case_summary(size_t index) {
  return index < CASE_COUNT ? cases[index].summary : NULL;
}

size_t check_large_size(const check_ctx_t *ctx) {
  return ctx->quick ? (size_t)4 << 20 : (size_t)64 << 20;
}

/* Whether `name` matches one of the NULL-terminated `patterns` (all when
 * `patterns` is NULL). */
static int selected(const char *name, const char *const *patterns) {
  if (!patterns)
    return 1;
  for (size_t i = 0; patterns[i]; i++)
    if (fnmatch(patterns[i], name, 0) == 0)
      return 1;
  return 0;
}

/* Every pattern matches at least one case: a typo must not pass silently. */
static int patterns_valid(const char *const *patterns) {
  for (size_t p = 0; patterns && patterns[p]; p++) {
    const char *one[] = {patterns[p], NULL};
    size_t i = 0;
    while (i < CASE_COUNT && !selected(cases[i].name, one))
      i++;
    if (i == CASE_COUNT)
      return 0;
  }
  return 1;
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

bp_status_t bp_check_run(bp_runtime_t *runtime, size_t plugin_index,
                         const bp_check_options_t *options,
                         bp_check_report_t **out_report) {
  if (!runtime || !options || !out_report ||
      options->struct_size < sizeof(bp_check_options_t) ||
      plugin_index >= bp_runtime_plugin_count(runtime) ||
      !patterns_valid(options->cases))
    return BP_ERR_INVALID_ARGUMENT;
  check_ctx_t ctx = {.runtime = runtime,
                     .plugin_index = plugin_index,
                     .quick = options->quick,
                     .suite_case = "setup"};
  ctx.report = check_report_create(options);
  if (!ctx.report)
    return BP_ERR_OUT_OF_MEMORY;
  bp_status_t status = prepare(&ctx);
  check_report_begin(ctx.report, plugin_index,
                     status == BP_OK ? &ctx.info : NULL, ctx.device_count);
  if (status != BP_OK) {
    check_fail_call(&ctx, "setup", "describing the plugin", status);
  } else if (ctx.device_count == 0) {
    check_fail(&ctx, "setup", "%s has no devices to check",
               ctx.info.device_type);
  } else {
    for (size_t i = 0; i < CASE_COUNT; i++) {
      if (!selected(cases[i].name, options->cases))
        continue;
      ctx.suite_case = cases[i].name;
      if (options->on_case)
        options->on_case(options->user_data, ctx.info.device_type,
                         cases[i].name, 1);
      cases[i].run(&ctx);
      if (options->on_case)
        options->on_case(options->user_data, ctx.info.device_type,
                         cases[i].name, 0);
    }
  }
  free(ctx.devices);
  status = check_report_end(ctx.report, ctx.streams);
  if (status != BP_OK) {
    bp_check_report_destroy(ctx.report);
    return status;
  }
  *out_report = ctx.report;
  return BP_OK;
}
