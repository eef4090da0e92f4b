/* torch: PyTorch on Backplane (frameworks/torch), measured by
 * frameworks/torch/bench/bench_torch.py run by /usr/bin/python3 with the
 * bridge built in the build tree (build/frameworks/torch/python): the CNN
 * training step of the bridge's training test on privateuseone:0 (vcpu)
 * beside the same step on PyTorch's CPU (budget >= 1.0x), a 1-element add
 * plus synchronize beside PyTorch CPU's add (budget <= 5 us extra), and
 * DistributedDataParallel with 2 processes on the backplane backend beside
 * gloo (budget >= 1.5x; not under --quick, which keeps to one Python
 * process). Skipped when the bridge was not built. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli/cli_paths.h"

enum { FULL_REPS = 5 };

typedef struct torch_case {
  const char *name; /* the script's case */
  const char *label;
  bench_budget_kind_t budget;
  double limit;
  const char *budget_text;
} torch_case_t;

static const torch_case_t cases[] = {
    {"cnn_step", "CNN training step, vcpu", BENCH_BUDGET_MIN_RATIO, 1.0,
     ">= 1.0x"},
    {"small_op", "1-element add + synchronize", BENCH_BUDGET_MAX_EXTRA, 5000.0,
     "<= 5 us extra"},
    /* Last: skipped by --quick. */
    {"ddp_step", "DDP step, 2 processes", BENCH_BUDGET_MIN_RATIO, 1.5,
     ">= 1.5x"},
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

bp_status_t bench_torch(bench_ctx_t *ctx) {
  char package[1024], probe[1100];
  cli_path_beside_binary("frameworks/torch/python", package, sizeof package);
  snprintf(probe, sizeof probe, "%s/torch_backplane/_C.so", package);
  if (access("/usr/bin/python3", X_OK) != 0 || access(probe, R_OK) != 0) {
    fprintf(stderr, "bench torch: needs /usr/bin/python3 and the PyTorch "
                    "bridge built (BP_WITH_TORCH): skipped\n");
    return BP_OK;
  }
  char command[PATH_MAX + 2048];
  snprintf(command, sizeof command,
           "PYTHONPATH=%s /usr/bin/python3 "
           "%s/frameworks/torch/bench/bench_torch.py %zu %s 2>/dev/null",
           package, BP_SOURCE_DIR, bench_reps(ctx, FULL_REPS),
           ctx->quick ? "--quick" : "");
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
    for (size_t i = 0; i < CASE_COUNT; ++i) {
      if (strcmp(name, cases[i].name) != 0)
        continue;
      bench_record(ctx, &(bench_result_t){
                            .bench_case = cases[i].label,
                            .value = value,
                            .unit = unit,
                            .baseline = baseline,
                            .baseline_value = baseline_value,
                            .budget = cases[i].budget,
                            .limit = cases[i].limit,
                            .budget_text = cases[i].budget_text,
                        });
      ++found;
    }
  }
  int status = pclose(out);
  size_t expected = ctx->quick ? CASE_COUNT - 1 : CASE_COUNT;
  if (status != 0 || found != expected) {
    fprintf(stderr, "bench torch: %s exited with %d after %zu of %zu cases\n",
            command, status, found, expected);
    return BP_ERR_INTERNAL;
  }
  return BP_OK;
}
