/* Check result lines, printed as they happen or collected as JSON. */
#include "check_report.h"
#include "cli/cli_output.h"

#include <stdarg.h>
#include <stdio.h>

static void report(check_ctx_t *ctx, const char *status, const char *name,
                   const char *format, va_list args) {
  char detail[1024];
  vsnprintf(detail, sizeof(detail), format, args);
  if (ctx->json) {
    json_array_append_new(ctx->lines,
                          json_pack("{s:s, s:s, s:s}", "check", name, "status",
                                    status, "detail", detail));
    return;
  }
  fprintf(cli_out(), "  %-12s %-28s %s\n", status, name, detail);
  fflush(cli_out());
}

#define REPORT(ctx, status, name, format)                                      \
  do {                                                                         \
    va_list args;                                                              \
    va_start(args, format);                                                    \
    report(ctx, status, name, format, args);                                   \
    va_end(args);                                                              \
  } while (0)

void check_pass(check_ctx_t *ctx, const char *name, const char *format, ...) {
  ctx->passed++;
  REPORT(ctx, "PASS", name, format);
}

void check_fail(check_ctx_t *ctx, const char *name, const char *format, ...) {
  ctx->failed++;
  REPORT(ctx, "FAIL", name, format);
}

void check_skip(check_ctx_t *ctx, const char *name, const char *format, ...) {
  ctx->skipped++;
  REPORT(ctx, "SKIP", name, format);
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
  REPORT(ctx, status, name, format);
}
