/* bench train: samples/s of `backplane train`'s step loop on 1, 2 and 4 vcpu
 * devices in one process (batch 32 per rank), the scaling efficiency, the
 * overlap off at 2 devices, and PyTorch DistributedDataParallel (gloo, 2
 * processes, 1 thread each, the same model, batch, data and optimizer:
 * scripts/bench_train_ddp.py) timed in the same run when /usr/bin/python3
 * imports torch. Budget (DESIGN.md, issue 17): 2 devices >= 2x DDP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli/cli_paths.h"
#include "cli/cli_timing.h"
#include "train/train.h"
#include "train/train_run.h"

enum { BATCH_PER_RANK = 32 };

/* Samples/s of a run on `devices` devices (median of `reps` runs). */
static bp_status_t measure(bench_ctx_t *ctx, size_t devices, int overlap,
                           double *out_rate) {
  char ops[4096];
  cli_path_reference_ops(ops, sizeof ops);
  bp_runtime_t *runtime;
  bp_status_t status = bp_runtime_create(NULL, &runtime);
  if (status)
    return bench_error(ctx, "bp_runtime_create", status);
  double rates[5];
  size_t reps = bench_reps(ctx, 3);
  for (size_t r = 0; r < reps && !status; r++) {
    train_config_t config;
    train_config_defaults(&config);
    config.ops_path = ops;
    config.local_ranks = devices;
    config.batch = BATCH_PER_RANK * devices;
    config.epochs = ctx->quick ? 1 : 10;
    config.overlap = overlap;
    train_session_t *session = NULL;
    train_summary_t summary = {0};
    train_run_options_t options = {0};
    status = train_session_create(runtime, &config, &session);
    if (!status)
      status = train_run(session, &options, &summary);
    if (status)
      fprintf(stderr, "bench train: %s\n", train_last_error());
    else
      rates[r] = summary.samples_per_second;
    train_summary_release(&summary);
    train_session_destroy(session);
  }
  bp_runtime_destroy(runtime);
  if (!status)
    *out_rate = cli_median(rates, reps);
  return status;
}

/* DDP's samples/s from the script; 0 when torch is not there. */
static double measure_ddp(const bench_ctx_t *ctx) {
  char command[8192];
  snprintf(command, sizeof command,
           "/usr/bin/python3 -c 'import torch' 2>/dev/null && "
           "/usr/bin/python3 %s %s 2 %d %d 2>/dev/null",
           BP_SOURCE_DIR "/scripts/bench_train_ddp.py", TRAIN_DIGITS_PATH,
           BATCH_PER_RANK, ctx->quick ? 1 : 10);
  FILE *pipe = popen(command, "r");
  if (!pipe)
    return 0;
  char line[512] = "";
  double rate = 0;
  if (fgets(line, sizeof line, pipe)) {
    const char *at = strstr(line, "\"samples_per_second\":");
    if (at)
      rate = strtod(at + strlen("\"samples_per_second\":"), NULL);
  }
  pclose(pipe);
  return rate;
}

bp_status_t bench_train(bench_ctx_t *ctx) {
  double rate[5] = {0}, no_overlap = 0;
  static const size_t counts[3] = {1, 2, 4};
  bp_status_t status = BP_OK;
  for (size_t i = 0; i < 3 && !status; i++)
    status = measure(ctx, counts[i], 1, &rate[counts[i]]);
  if (!status)
    status = measure(ctx, 2, 0, &no_overlap);
  if (status)
    return status;
  double ddp = measure_ddp(ctx);
  char cases[3][64];
  for (size_t i = 0; i < 3; i++) {
    size_t n = counts[i];
    snprintf(cases[i], sizeof cases[i], "%zu device%s, batch 32/rank", n,
             n > 1 ? "s" : "");
    bench_result_t r = {
        .bench_case = cases[i], .value = rate[n], .unit = "samples/s"};
    if (n == 2 && ddp > 0) {
      r.baseline = "PyTorch DDP gloo, 2 processes";
      r.baseline_value = ddp;
      r.budget = BENCH_BUDGET_MIN_RATIO;
      r.limit = 2.0;
      r.budget_text = ">= 2x DDP";
    } else if (n > 1) {
      r.baseline = "1 device";
      r.baseline_value = rate[1];
    }
    bench_record(ctx, &r);
  }
  for (size_t i = 1; i < 3; i++) {
    size_t n = counts[i];
    char text[64];
    snprintf(text, sizeof text, "scaling efficiency, %zu devices", n);
    bench_record(ctx, &(bench_result_t){
                          .bench_case = text,
                          .value = 100 * rate[n] / ((double)n * rate[1]),
                          .unit = "%",
                      });
  }
  bench_record(ctx, &(bench_result_t){.bench_case = "2 devices, overlap off",
                                      .value = no_overlap,
                                      .unit = "samples/s",
                                      .baseline = "overlap on",
                                      .baseline_value = rate[2]});
  return BP_OK;
}
