/* Benches: the context each receives and how they report. A bench measures
 * something against a baseline measured in the same run (medians of several
 * repetitions, after a warm-up) and reports records through bench_record. */
#ifndef BACKPLANE_CLI_BENCH_H_
#define BACKPLANE_CLI_BENCH_H_

#include <jansson.h>
#include <stddef.h>

#include "backplane/backplane.h"
#include "backplane/vendor_access.h"
#include "bench_comm_settings.h"

typedef struct bench_ctx {
  bp_runtime_t *runtime;
  size_t plugin_index;
  const char *plugin_name;
  const struct C_DeviceInterface *dispatch; /* the plugin's dispatch table */
  bp_device_t *device;                      /* the plugin's first device */
  bp_device_t *peer;                        /* its second device, or NULL */
  int quick;         /* --quick: tiny sizes and repetitions (tests only) */
  const char *bench; /* the bench running now (set by the driver) */
  bench_comm_settings_t comm; /* comm: --op, --ranks, --transport */

  /* Reporting state (bench_report.c). */
  int json;
  json_t *records; /* JSON mode: every record so far */
  size_t budgets_missed;
} bench_ctx_t;

/* How a record's budget is judged. */
typedef enum bench_budget_kind {
  BENCH_BUDGET_NONE = 0,
  BENCH_BUDGET_MAX_EXTRA, /* value - baseline_value <= limit */
  BENCH_BUDGET_MIN_RATIO, /* value / baseline_value >= limit */
  BENCH_BUDGET_MAX_VALUE, /* value <= limit */
  BENCH_BUDGET_MIN_VALUE, /* value >= limit */
} bench_budget_kind_t;

typedef struct bench_result {
  const char *bench_case; /* e.g. "h2d 64 MiB sync" */
  double value;
  const char *unit;      /* e.g. "GB/s", "ns/call" */
  const char *baseline;  /* e.g. "memcpy 1 thread"; NULL when there is none */
  double baseline_value; /* same unit as value */
  bench_budget_kind_t budget; /* NONE: nothing to judge */
  double limit;               /* in the unit of the budget kind */
  const char *budget_text;    /* e.g. "<= 2 ns extra" */
} bench_result_t;

/* Starts the output: the table's header, or an empty JSON array. */
void bench_report_begin(bench_ctx_t *ctx);
/* Ends it: in JSON mode prints the array of records. Returns 0, or -1 if the
 * output could not be printed. */
int bench_report_end(bench_ctx_t *ctx);

/* Prints one row of the table (or adds one JSON record {bench, case, value,
 * unit, baseline, baseline_value, ratio, budget, met}). */
void bench_record(bench_ctx_t *ctx, const bench_result_t *result);

/* Prints "bench <name>: <what>: <status>: <message>" on stderr and returns
 * `status`, for a bench that cannot go on. */
bp_status_t bench_error(const bench_ctx_t *ctx, const char *what,
                        bp_status_t status);

/* `count` repetitions: quick mode's or the full run's. */
static inline size_t bench_reps(const bench_ctx_t *ctx, size_t full) {
  return ctx->quick ? 2 : full;
}

#define BP_BENCH(name, summary) bp_status_t bench_##name(bench_ctx_t *ctx);
#include "bench_list.h"
#undef BP_BENCH

#endif /* BACKPLANE_CLI_BENCH_H_ */
