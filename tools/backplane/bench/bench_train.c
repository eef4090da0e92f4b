/* bench train: for each model (the MLP and the CNN), samples/s of `backplane
 * train`'s step loop on 1, 2 and 4 vcpu devices in one process (batch 32
 * per rank) beside PyTorch DistributedDataParallel with as many processes
 * (gloo, 1 thread each, the same model, batch, data and optimizer: the
 * package's _bench_train_ddp.py, bench_scripts.h) timed in the same run
 * when the bench's interpreter imports torch; then the scaling efficiency
 * and the overlap off at 2 devices. Budget (DESIGN.md, issue 26): >= 2x DDP for
 * each model. --quick, a smoke test of the bench: the CNN alone, one epoch
 * timed once, DDP at 2 processes only. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_scripts.h"
#include "cli/cli_paths.h"
#include "cli/cli_timing.h"
#include "train/train.h"
#include "train/train_run.h"

enum { BATCH_PER_RANK = 32 };

/* Samples/s of a run on `devices` devices (median of `reps` runs). */
static bp_status_t measure(bench_ctx_t *ctx, const char *model, size_t devices,
                           int overlap, double *out_rate) {
  char ops[4096];
  cli_path_reference_ops(ops, sizeof ops);
  bp_runtime_t *runtime;
  bp_status_t status = bp_runtime_create(NULL, &runtime);
  if (status)
    return bench_error(ctx, "bp_runtime_create", status);
  double rates[5];
  size_t reps = ctx->quick ? 1 : 3; /* --quick: one epoch, timed once */
  for (size_t r = 0; r < reps && !status; r++) {
    train_config_t config;
    train_config_defaults(&config);
    config.ops_path = ops;
    config.model = model;
    config.device_type = "vcpu";
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

/* DDP's samples/s from the script with `ranks` processes; 0 when torch is
 * not there. */
static double measure_ddp(const bench_ctx_t *ctx, const char *model,
                          size_t ranks) {
  char script[PATH_MAX], command[8192];
  if (!bench_python_script("_bench_train_ddp.py", script, sizeof script)) {
    fprintf(stderr, "bench train: no backplane package with "
                    "_bench_train_ddp.py beside this command: no DDP "
                    "baseline\n");
    return 0;
  }
  const char *python = bench_python_interpreter();
  snprintf(command, sizeof command,
           "'%s' -c 'import torch' 2>/dev/null && "
           "'%s' '%s' %s %zu %d %d %s 2>/dev/null",
           python, python, script, TRAIN_DIGITS_PATH, ranks, BATCH_PER_RANK,
           ctx->quick ? 1 : 10, model);
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
  if (rate <= 0)
    fprintf(stderr,
            "bench train: %s cannot run %s with torch: no DDP "
            "baseline\n",
            python, script);
  return rate;
}

/* One model's rows. */
static bp_status_t bench_model(bench_ctx_t *ctx, const char *model) {
  double rate[5] = {0}, ddp[5] = {0}, no_overlap = 0;
  static const size_t counts[3] = {1, 2, 4};
  bp_status_t status = BP_OK;
  for (size_t i = 0; i < 3 && !status; i++)
    status = measure(ctx, model, counts[i], 1, &rate[counts[i]]);
  if (!status)
    status = measure(ctx, model, 2, 0, &no_overlap);
  if (status)
    return status;
  for (size_t i = 0; i < 3; i++)
    if (!ctx->quick || counts[i] == 2)
      ddp[counts[i]] = measure_ddp(ctx, model, counts[i]);
  char cases[3][64], baselines[3][64];
  for (size_t i = 0; i < 3; i++) {
    size_t n = counts[i];
    snprintf(cases[i], sizeof cases[i], "%s, %zu device%s, batch 32/rank",
             model, n, n > 1 ? "s" : "");
    bench_result_t r = {
        .bench_case = cases[i], .value = rate[n], .unit = "samples/s"};
    if (ddp[n] > 0) {
      snprintf(baselines[i], sizeof baselines[i],
               "PyTorch DDP gloo, %zu process%s", n, n > 1 ? "es" : "");
      r.baseline = baselines[i];
      r.baseline_value = ddp[n];
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
    snprintf(text, sizeof text, "%s, scaling efficiency, %zu devices", model,
             n);
    bench_record(ctx, &(bench_result_t){
                          .bench_case = text,
                          .value = 100 * rate[n] / ((double)n * rate[1]),
                          .unit = "%",
                      });
  }
  char text[64];
  snprintf(text, sizeof text, "%s, 2 devices, overlap off", model);
  bench_record(ctx, &(bench_result_t){.bench_case = text,
                                      .value = no_overlap,
                                      .unit = "samples/s",
                                      .baseline = "overlap on",
                                      .baseline_value = rate[2]});
  return BP_OK;
}

bp_status_t bench_train(bench_ctx_t *ctx) {
  if (ctx->quick)
    return bench_model(ctx, "cnn");
  bp_status_t status = bench_model(ctx, "mlp");
  return status ? status : bench_model(ctx, "cnn");
}
