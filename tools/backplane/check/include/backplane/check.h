/* libbackplane_check: the conformance suite of `backplane check`, for a
 * vendor's own test harness.
 *
 * The suite is a list of cases (bp_check_case_name: "abi", "devices",
 * "copies", "events", "comm_all_reduce", ...), run one after another against
 * one loaded plugin of a runtime. Each case reports one or more results: PASS,
 * FAIL or SKIP with a reason, or a NOTE that is neither (the "asynchrony" case
 * notes whether the plugin's streams are ASYNCHRONOUS or SYNCHRONOUS). The
 * cases that hold a stream back behind a host callback (stream_order, events,
 * callbacks, cross_stream) do so only after "asynchrony" found the streams
 * asynchronous: leave it out of a filter and they skip those parts.
 *
 *   bp_check_options_t options = {.struct_size = sizeof(options),
 *                                 .cases = (const char *[]){"copies", NULL}};
 *   bp_check_report_t *report;
 *   if (bp_check_run(runtime, plugin_index, &options, &report) == BP_OK) {
 *     bp_check_report_write_text(report, stdout);
 *     bp_check_report_destroy(report);
 *   }
 *
 * Link with libbackplane_check (pkg-config backplane-check, or CMake target
 * Backplane::check) and libbackplane. Docs: docs/plugin-guide.md. */
#ifndef BACKPLANE_CHECK_H_
#define BACKPLANE_CHECK_H_

#include <stddef.h>
#include <stdio.h>

#include "backplane/backplane.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bp_check_outcome {
  BP_CHECK_PASS = 0,
  BP_CHECK_FAIL = 1,
  BP_CHECK_SKIP = 2,
  BP_CHECK_NOTE = 3, /* an observation, neither a pass nor a failure */
} bp_check_outcome_t;

/* One result. Its strings live as long as the report that holds it (in a
 * bp_check_result_fn: until the callback returns). */
typedef struct bp_check_result {
  const char *suite_case; /* the case that reported it, e.g. "copies" */
  const char *name;       /* the result's own name, e.g. "copy.h2d.sync" */
  bp_check_outcome_t outcome;
  const char *status; /* "PASS", "FAIL", "SKIP"; a NOTE's own word */
  const char *detail; /* the reason, or what was measured */
} bp_check_result_t;

/* Called on the thread that called bp_check_run, as each result is known. */
typedef void (*bp_check_result_fn)(void *user_data,
                                   const bp_check_result_t *result);
/* Called before (`starting` 1) and after (0) each case, e.g. to arm and
 * disarm a harness's watchdog: a case of a hung plugin never returns. */
typedef void (*bp_check_case_fn)(void *user_data, const char *plugin,
                                 const char *suite_case, int starting);

typedef struct bp_check_options {
  size_t struct_size; /* sizeof(bp_check_options_t) */
  /* NULL-terminated list of case name patterns (fnmatch(3): "comm_*"); a
   * case runs if any matches. NULL runs every case. */
  const char *const *cases;
  int quick;      /* smaller sizes and fewer iterations */
  FILE *text_out; /* if not NULL, the text report is written here as it is
                     made (same text as bp_check_report_write_text) */
  bp_check_result_fn on_result; /* may be NULL */
  bp_check_case_fn on_case;     /* may be NULL */
  void *user_data;              /* passed to both callbacks */
} bp_check_options_t;

typedef struct bp_check_report bp_check_report_t;

/* The suite's cases, in the order they run. bp_check_case_name and
 * bp_check_case_summary return NULL for an index out of range. */
BP_API size_t bp_check_case_count(void);
BP_API const char *bp_check_case_name(size_t index);
BP_API const char *bp_check_case_summary(size_t index);

/* Runs the selected cases against plugin `plugin_index` of `runtime` (see
 * bp_runtime_plugin_info) and returns their results in *out_report, which the
 * caller destroys. A plugin that cannot be described or has no device gets a
 * FAIL result named "setup", not an error. Errors: BP_ERR_INVALID_ARGUMENT
 * (NULL argument, bad struct_size, plugin index out of range, a pattern that
 * matches no case), BP_ERR_OUT_OF_MEMORY; *out_report is then untouched. Not
 * thread-safe with respect to the same plugin: run one suite at a time. */
BP_API bp_status_t bp_check_run(bp_runtime_t *runtime, size_t plugin_index,
                                const bp_check_options_t *options,
                                bp_check_report_t **out_report);

BP_API void bp_check_report_destroy(bp_check_report_t *report);

typedef struct bp_check_summary {
  const char *plugin; /* its device_type, or "?" if it could not be read */
  const char *path;   /* the plugin's file, or NULL */
  size_t passed, failed, skipped;
  const char *streams; /* "asynchronous", "synchronous" or "unknown" */
} bp_check_summary_t;

/* Counts and names; the strings live as long as the report. */
BP_API bp_check_summary_t
bp_check_report_summary(const bp_check_report_t *report);
BP_API size_t bp_check_report_result_count(const bp_check_report_t *report);
/* The index-th result in the order reported; NULL out of range. */
BP_API const bp_check_result_t *
bp_check_report_result(const bp_check_report_t *report, size_t index);

/* The text report: a heading line, one line per result, a summary line.
 * Returns BP_OK, BP_ERR_INVALID_ARGUMENT (NULL) or BP_ERR_ABORTED if
 * writing failed. */
BP_API bp_status_t bp_check_report_write_text(const bp_check_report_t *report,
                                              FILE *out);
/* The report as one JSON object {plugin, path, streams, passed, failed,
 * skipped, checks: [{case, check, status, detail}]}, in a NUL-terminated
 * string the caller frees with free(). BP_ERR_INVALID_ARGUMENT (NULL),
 * BP_ERR_OUT_OF_MEMORY. */
BP_API bp_status_t bp_check_report_json(const bp_check_report_t *report,
                                        char **out_json);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_CHECK_H_ */
