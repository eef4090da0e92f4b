/* Inside the conformance suite: the context every check receives, and the
 * check functions listed in check_list.h. Checks run one after another on the
 * thread that called bp_check_run (a check may start threads of its own and
 * joins them). */
#ifndef BACKPLANE_CLI_CHECK_H_
#define BACKPLANE_CLI_CHECK_H_

#include <stddef.h>

#include "backplane/backplane.h"
#include "backplane/check.h"
#include "backplane/vendor_access.h"

/* What the asynchrony check found out about the plugin's streams. */
typedef enum check_streams {
  CHECK_STREAMS_UNKNOWN = 0,  /* not probed, or could not be probed */
  CHECK_STREAMS_ASYNCHRONOUS, /* work behind a blocked callback stays queued */
  CHECK_STREAMS_SYNCHRONOUS,  /* streams run work on the caller, or lie */
} check_streams_t;

typedef struct check_ctx {
  bp_runtime_t *runtime;
  size_t plugin_index;
  bp_plugin_info_t info;
  const struct C_DeviceInterface *dispatch;
  bp_device_t **devices;     /* the plugin's devices, in index order */
  size_t device_count;       /* at least 1 when a check runs */
  int quick;                 /* smaller sizes and fewer iterations */
  check_streams_t streams;   /* set by check_asynchrony */
  const char *suite_case;    /* the case running now */
  bp_check_report_t *report; /* where results go (check_report.c) */
} check_ctx_t;

#define BP_CHECK(name, summary) void check_##name(check_ctx_t *ctx);
#include "check_list.h"
#undef BP_CHECK

/* The largest copy the suite makes: 64 MiB, or 4 MiB with --quick. */
size_t check_large_size(const check_ctx_t *ctx);

#endif /* BACKPLANE_CLI_CHECK_H_ */
