/* Reporting check results into the run's report (bp_check_report_t): each
 * result is kept, passed to the caller's callback and, if asked, written as a
 * text line ("  PASS  name  detail") as it happens. Not thread-safe: report
 * from the thread that runs the check. */
#ifndef BACKPLANE_CLI_CHECK_REPORT_H_
#define BACKPLANE_CLI_CHECK_REPORT_H_

#include "check.h"

void check_pass(check_ctx_t *ctx, const char *name, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void check_fail(check_ctx_t *ctx, const char *name, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void check_skip(check_ctx_t *ctx, const char *name, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* A FAIL for a runtime call that failed: "<call>: <status>: <message>". */
void check_fail_call(check_ctx_t *ctx, const char *name, const char *call,
                     bp_status_t status);

/* The asynchrony verdict: a NOTE of its own ("SYNCHRONOUS ..." or
 * "ASYNCHRONOUS ..."), neither a pass nor a failure; also sets ctx->streams. */
void check_verdict(check_ctx_t *ctx, const char *name, check_streams_t streams,
                   const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* "asynchronous", "synchronous" or "unknown". */
const char *check_streams_name(check_streams_t streams);

/* The life of a report, driven by bp_check_run (check_suite.c). */
/* An empty report that will write to the options' text_out and callback.
 * NULL when out of memory. */
bp_check_report_t *check_report_create(const bp_check_options_t *options);
/* Records which plugin is checked (`info` NULL: it could not be described)
 * and writes the heading. */
void check_report_begin(bp_check_report_t *report, size_t plugin_index,
                        const bp_plugin_info_t *info, size_t device_count);
/* Records the streams verdict and writes the summary line. Returns BP_OK, or
 * BP_ERR_OUT_OF_MEMORY if a result could not be kept. */
bp_status_t check_report_end(bp_check_report_t *report,
                             check_streams_t streams);

#endif /* BACKPLANE_CLI_CHECK_REPORT_H_ */
