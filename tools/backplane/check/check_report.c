/* The report of one run: results kept in order, written as text as they come
 * and, on request, afterwards as text or JSON. */
#include "check_report.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bp_check_report {
  char *plugin; /* owned; "?" until described */
  char *path;   /* owned; NULL if not described */
  size_t plugin_index;
  int described;              /* the plugin's description was read */
  size_t device_count;        /* its devices */
  bp_check_result_t *results; /* name and detail owned */
  size_t count, capacity;
  size_t passed, failed, skipped;
  check_streams_t streams;
  int out_of_memory; /* a result could not be kept */
  FILE *text_out;
  bp_check_result_fn on_result;
  void *user_data;
};

static char *copy_text(const char *text) {
  size_t size = strlen(text) + 1;
  char *copy = malloc(size);
  return copy ? memcpy(copy, text, size) : NULL;
}

/* Text lines: the same for the running report and for write_text. */
static int write_heading(const bp_check_report_t *report, FILE *out) {
  if (!report->described)
    return fprintf(out, "plugin %zu\n", report->plugin_index);
  if (report->device_count == 0)
    return 0;
  return fprintf(out, "%s  (%s, %zu device%s)\n", report->plugin, report->path,
                 report->device_count, report->device_count == 1 ? "" : "s");
}

static int write_line(const bp_check_result_t *result, FILE *out) {
  return fprintf(out, "  %-12s %-28s %s\n", result->status, result->name,
                 result->detail);
}

static int write_summary(const bp_check_report_t *report, FILE *out) {
  return fprintf(out,
                 "%s: %zu passed, %zu failed, %zu skipped; streams are %s\n\n",
                 report->plugin, report->passed, report->failed,
                 report->skipped, check_streams_name(report->streams));
}

static void keep(bp_check_report_t *report, const bp_check_result_t *result) {
  if (report->count == report->capacity) {
    size_t capacity = report->capacity ? 2 * report->capacity : 64;
    bp_check_result_t *results =
        realloc(report->results, capacity * sizeof(*results));
    if (!results) {
      report->out_of_memory = 1;
      return;
    }
    report->results = results;
    report->capacity = capacity;
  }
  bp_check_result_t kept = *result;
  kept.name = copy_text(result->name);
  kept.detail = copy_text(result->detail);
  if (!kept.name || !kept.detail) {
    free((char *)kept.name);
    free((char *)kept.detail);
    report->out_of_memory = 1;
    return;
  }
  report->results[report->count++] = kept;
}

static void report(check_ctx_t *ctx, bp_check_outcome_t outcome,
                   const char *status, const char *name, const char *format,
                   va_list args) {
  char detail[1024];
  vsnprintf(detail, sizeof(detail), format, args);
  bp_check_report_t *r = ctx->report;
  if (outcome == BP_CHECK_PASS)
    r->passed++;
  else if (outcome == BP_CHECK_FAIL)
    r->failed++;
  else if (outcome == BP_CHECK_SKIP)
    r->skipped++;
  bp_check_result_t result = {.suite_case = ctx->suite_case,
                              .name = name,
                              .outcome = outcome,
                              .status = status,
                              .detail = detail};
  keep(r, &result);
  if (r->text_out) {
    write_line(&result, r->text_out);
    fflush(r->text_out);
  }
  if (r->on_result)
    r->on_result(r->user_data, &result);
}

#define REPORT(ctx, outcome, status, name, format)                             \
  do {                                                                         \
    va_list args;                                                              \
    va_start(args, format);                                                    \
    report(ctx, outcome, status, name, format, args);                          \
    va_end(args);                                                              \
  } while (0)

void check_pass(check_ctx_t *ctx, const char *name, const char *format, ...) {
  REPORT(ctx, BP_CHECK_PASS, "PASS", name, format);
}

void check_fail(check_ctx_t *ctx, const char *name, const char *format, ...) {
  REPORT(ctx, BP_CHECK_FAIL, "FAIL", name, format);
}

void check_skip(check_ctx_t *ctx, const char *name, const char *format, ...) {
  REPORT(ctx, BP_CHECK_SKIP, "SKIP", name, format);
}

void check_fail_call(check_ctx_t *ctx, const char *name, const char *call,
                     bp_status_t status) {
  check_fail(ctx, name, "%s: %s: %s", call, bp_status_name(status),
             bp_last_error());
}

const char *check_streams_name(check_streams_t streams) {
  switch (streams) {
  case CHECK_STREAMS_ASYNCHRONOUS:
    return "asynchronous";
  case CHECK_STREAMS_SYNCHRONOUS:
    return "synchronous";
  default:
    return "unknown";
  }
}

void check_verdict(check_ctx_t *ctx, const char *name, check_streams_t streams,
                   const char *format, ...) {
  ctx->streams = streams;
  const char *status = streams == CHECK_STREAMS_SYNCHRONOUS    ? "SYNCHRONOUS"
                       : streams == CHECK_STREAMS_ASYNCHRONOUS ? "ASYNCHRONOUS"
                                                               : "UNKNOWN";
  REPORT(ctx, BP_CHECK_NOTE, status, name, format);
}

bp_check_report_t *check_report_create(const bp_check_options_t *options) {
  bp_check_report_t *report = calloc(1, sizeof(*report));
  if (!report)
    return NULL;
  report->plugin = copy_text("?");
  if (!report->plugin) {
    free(report);
    return NULL;
  }
  report->text_out = options->text_out;
  report->on_result = options->on_result;
  report->user_data = options->user_data;
  return report;
}

void check_report_begin(bp_check_report_t *report, size_t plugin_index,
                        const bp_plugin_info_t *info, size_t device_count) {
  report->plugin_index = plugin_index;
  report->device_count = device_count;
  if (info) {
    char *plugin = copy_text(info->device_type);
    char *path = copy_text(info->path);
    if (plugin && path) {
      free(report->plugin);
      report->plugin = plugin;
      report->path = path;
      report->described = 1;
    } else {
      free(plugin);
      free(path);
      report->out_of_memory = 1;
    }
  }
  if (report->text_out)
    write_heading(report, report->text_out);
}

bp_status_t check_report_end(bp_check_report_t *report,
                             check_streams_t streams) {
  report->streams = streams;
  if (report->text_out) {
    write_summary(report, report->text_out);
    fflush(report->text_out);
  }
  return report->out_of_memory ? BP_ERR_OUT_OF_MEMORY : BP_OK;
}

void bp_check_report_destroy(bp_check_report_t *report) {
  if (!report)
    return;
  for (size_t i = 0; i < report->count; i++) {
    free((char *)report->results[i].name);
    free((char *)report->results[i].detail);
  }
  free(report->results);
  free(report->plugin);
  free(report->path);
  free(report);
}

bp_check_summary_t bp_check_report_summary(const bp_check_report_t *report) {
  if (!report)
    return (bp_check_summary_t){.plugin = "?", .streams = "unknown"};
  return (bp_check_summary_t){.plugin = report->plugin,
                              .path = report->path,
                              .passed = report->passed,
                              .failed = report->failed,
                              .skipped = report->skipped,
                              .streams = check_streams_name(report->streams)};
}

size_t bp_check_report_result_count(const bp_check_report_t *report) {
  return report ? report->count : 0;
}

const bp_check_result_t *bp_check_report_result(const bp_check_report_t *report,
                                                size_t index) {
  return report && index < report->count ? &report->results[index] : NULL;
}

bp_status_t bp_check_report_write_text(const bp_check_report_t *report,
                                       FILE *out) {
  if (!report || !out)
    return BP_ERR_INVALID_ARGUMENT;
  int failed = write_heading(report, out) < 0;
  for (size_t i = 0; i < report->count && !failed; i++)
    failed = write_line(&report->results[i], out) < 0;
  failed = failed || write_summary(report, out) < 0 || fflush(out) != 0;
  return failed ? BP_ERR_ABORTED : BP_OK;
}

bp_status_t bp_check_report_json(const bp_check_report_t *report,
                                 char **out_json) {
  if (!report || !out_json)
    return BP_ERR_INVALID_ARGUMENT;
  json_t *checks = json_array();
  for (size_t i = 0; checks && i < report->count; i++) {
    const bp_check_result_t *r = &report->results[i];
    if (json_array_append_new(checks, json_pack("{s:s, s:s, s:s, s:s}", "case",
                                                r->suite_case, "check", r->name,
                                                "status", r->status, "detail",
                                                r->detail))) {
      json_decref(checks);
      checks = NULL;
    }
  }
  json_t *root = checks
                     ? json_pack("{s:s, s:s?, s:s, s:I, s:I, s:I, s:o}",
                                 "plugin", report->plugin, "path", report->path,
                                 "streams", check_streams_name(report->streams),
                                 "passed", (json_int_t)report->passed, "failed",
                                 (json_int_t)report->failed, "skipped",
                                 (json_int_t)report->skipped, "checks", checks)
                     : NULL;
  char *dumped = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
  json_decref(root);
  /* A copy from malloc: the caller frees it with free(), whatever allocator
   * jansson was given. */
  char *text = dumped ? copy_text(dumped) : NULL;
  json_free_t jansson_free;
  json_get_alloc_funcs(NULL, &jansson_free);
  jansson_free(dumped);
  if (!text)
    return BP_ERR_OUT_OF_MEMORY;
  *out_json = text;
  return BP_OK;
}
