/* paddle: PaddlePaddle on the Paddle bridge (frameworks/paddle) over vcpu
 * beside Paddle's own CPU place, in one run of examples/paddle/
 * bench_paddle.py under the project venv's Python (BP_VENV_PYTHON): the
 * LeNet training step's samples/s (budget >= 1.0x Paddle CPU) and a
 * 1-element add enqueued and synchronized (budget <= 2 us above Paddle
 * CPU's). Skipped, saying so, without the venv or the built bridge. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli/cli_paths.h"

enum { FULL_REPS = 5 };

bp_status_t bench_paddle(bench_ctx_t *ctx) {
  char bridge[1024], probe[1200];
  cli_path_beside_binary("lib/backplane/paddle", bridge, sizeof bridge);
  snprintf(probe, sizeof probe, "%s/libbackplane_paddle.so", bridge);
  if (access(BP_VENV_PYTHON, X_OK) != 0 || access(probe, R_OK) != 0) {
    fprintf(stderr,
            "bench paddle: needs %s (scripts/setup-venv.sh) and the "
            "bridge built (%s): skipped\n",
            BP_VENV_PYTHON, probe);
    return BP_OK;
  }
  char command[PATH_MAX + 2048];
  snprintf(command, sizeof command,
           "cd %s/examples/paddle && CUSTOM_DEVICE_ROOT=%s "
           "BACKPLANE_VISIBLE_DEVICES=vcpu:0 GLOG_minloglevel=2 %s "
           "bench_paddle.py %zu 2>/dev/null",
           BP_SOURCE_DIR, bridge, BP_VENV_PYTHON, bench_reps(ctx, FULL_REPS));
  FILE *out = popen(command, "r");
  if (out == NULL)
    return bench_error(ctx, "popen", BP_ERR_INTERNAL);
  char line[512], name[64], unit[32], baseline[64];
  double value, baseline_value;
  size_t found = 0;
  while (fgets(line, sizeof line, out)) {
    if (sscanf(line, "%63s %lf %31s %63s %lf", name, &value, unit, baseline,
               &baseline_value) != 5)
      continue;
    int step = strcmp(name, "cnn_train_step") == 0;
    if (!step && strcmp(name, "small_add") != 0)
      continue;
    bench_record(
        ctx,
        &(bench_result_t){
            .bench_case = step ? "LeNet training step, bridge over vcpu"
                               : "1-element add + sync, bridge over vcpu",
            .value = value,
            .unit = unit,
            .baseline = "Paddle CPU place",
            .baseline_value = baseline_value,
            .budget = step ? BENCH_BUDGET_MIN_RATIO : BENCH_BUDGET_MAX_EXTRA,
            .limit = step ? 1.0 : 2.0,
            .budget_text = step ? ">= 1.0x" : "<= 2 us extra",
        });
    ++found;
  }
  int status = pclose(out);
  if (status != 0 || found != 2) {
    fprintf(stderr, "bench paddle: %s exited with %d after %zu of 2 cases\n",
            command, status, found);
    return BP_ERR_INTERNAL;
  }
  return BP_OK;
}
