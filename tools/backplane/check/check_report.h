/* Reporting check results: one line per result, "PASS name detail", or the
 * same as an object in JSON mode. Not thread-safe: report from the thread
 * that runs the check. */
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

/* The asynchrony verdict: a line of its own ("SYNCHRONOUS ..." or
 * "ASYNCHRONOUS ..."), neither a pass nor a failure; also sets ctx->streams. */
void check_verdict(check_ctx_t *ctx, const char *name, check_streams_t streams,
                   const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* "asynchronous", "synchronous" or "unknown". */
const char *check_streams_name(check_streams_t streams);

#endif /* BACKPLANE_CLI_CHECK_REPORT_H_ */
