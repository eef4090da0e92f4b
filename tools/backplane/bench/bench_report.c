/* Bench records: a table row each, or a JSON record each. */
#include <math.h>
#include <stdio.h>

#include "bench.h"
#include "cli/cli_json.h"
#include "cli/cli_output.h"

static int budget_met(const bench_result_t *r) {
  switch (r->budget) {
  case BENCH_BUDGET_MAX_EXTRA:
    return r->value - r->baseline_value <= r->limit;
  case BENCH_BUDGET_MIN_RATIO:
    return r->baseline_value > 0 && r->value / r->baseline_value >= r->limit;
  case BENCH_BUDGET_MAX_VALUE:
    return r->value <= r->limit;
  case BENCH_BUDGET_MIN_VALUE:
    return r->value >= r->limit;
  default:
    return 1;
  }
}

void bench_report_begin(bench_ctx_t *ctx) {
  if (ctx->json)
    ctx->records = json_array();
  else
    fprintf(cli_out(), "%-9s %-34s %14s  %-20s %14s %11s  %-20s %s\n", "bench",
            "case", "value", "baseline", "baseline value", "vs baseline",
            "budget", "met");
}

int bench_report_end(bench_ctx_t *ctx) {
  if (!ctx->json)
    return 0;
  json_t *records = ctx->records;
  ctx->records = NULL;
  return cli_json_print(records);
}

/* "1.234 GB/s"; "-" for no value. */
static const char *format_value(double value, const char *unit, char *buffer,
                                size_t size) {
  if (isnan(value))
    snprintf(buffer, size, "-");
  else if (fabs(value) >= 100)
    snprintf(buffer, size, "%.0f %s", value, unit);
  else
    snprintf(buffer, size, "%.3g %s", value, unit);
  return buffer;
}

void bench_record(bench_ctx_t *ctx, const bench_result_t *r) {
  int has_baseline = r->baseline != NULL;
  double ratio = has_baseline && r->baseline_value > 0
                     ? r->value / r->baseline_value
                     : NAN;
  int met = budget_met(r);
  int judged = r->budget != BENCH_BUDGET_NONE;
  if (judged && !met)
    ctx->budgets_missed++;
  if (ctx->json) {
    json_t *record =
        json_pack("{s:s, s:s, s:f, s:s, s:s?, s:o, s:o, s:s?, s:o}", "bench",
                  ctx->bench, "case", r->bench_case, "value", r->value, "unit",
                  r->unit, "baseline", r->baseline, "baseline_value",
                  has_baseline ? json_real(r->baseline_value) : json_null(),
                  "ratio", isnan(ratio) ? json_null() : json_real(ratio),
                  "budget", judged ? r->budget_text : NULL, "met",
                  judged ? json_boolean(met) : json_null());
    json_array_append_new(ctx->records, record);
    return;
  }
  char value[32], baseline[32], ratio_text[24];
  format_value(r->value, r->unit, value, sizeof(value));
  format_value(has_baseline ? r->baseline_value : NAN, r->unit, baseline,
               sizeof(baseline));
  if (r->budget == BENCH_BUDGET_MAX_EXTRA)
    snprintf(ratio_text, sizeof(ratio_text), "%+.2f %s",
             r->value - r->baseline_value, r->unit);
  else if (isnan(ratio))
    snprintf(ratio_text, sizeof(ratio_text), "-");
  else
    snprintf(ratio_text, sizeof(ratio_text), "%.2f", ratio);
  fprintf(cli_out(), "%-9s %-34s %14s  %-20s %14s %11s  %-20s %s\n", ctx->bench,
          r->bench_case, value, has_baseline ? r->baseline : "-", baseline,
          ratio_text, judged ? r->budget_text : "-",
          judged ? (met ? "yes" : "NO") : "-");
  fflush(cli_out());
}

bp_status_t bench_error(const bench_ctx_t *ctx, const char *what,
                        bp_status_t status) {
  fprintf(stderr, "backplane bench %s: %s: %s: %s\n", ctx->bench, what,
          bp_status_name(status), bp_last_error());
  return status;
}
