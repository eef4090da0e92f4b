/* torch: PyTorch on Backplane (frameworks/torch), measured by the
 * package's _bench_torch.py (bench_scripts.h) with the bridge built in the
 * build tree (build/frameworks/torch/python) on PYTHONPATH: the training
 * step of bench train's CNN on privateuseone:0 (vcpu) beside the same step
 * on PyTorch's CPU (budget >= 1.0x), a 1-element add plus synchronize
 * beside PyTorch CPU's add (budget <= 5 us extra), and
 * DistributedDataParallel with 2 processes on the backplane backend beside
 * gloo (budget >= 1.5x; not under --quick, which keeps to one Python
 * process). Skipped, saying what is missing, without the bridge (a wheel
 * does not include it), the script or the interpreter. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_scripts.h"
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
  char bridge[PATH_MAX], probe[PATH_MAX + 32], script[PATH_MAX];
  const char *python = bench_python_interpreter();
  cli_path_beside_binary("frameworks/torch/python", bridge, sizeof bridge);
  snprintf(probe, sizeof probe, "%s/torch_backplane/_C.so", bridge);
  if (access(probe, R_OK) != 0) {
    fprintf(stderr,
            "bench torch: needs the PyTorch bridge (torch_backplane/_C.so "
            "in %s), which a build tree configured with BP_WITH_TORCH=ON "
            "builds and a wheel does not include: skipped\n",
            bridge);
    return BP_OK;
  }
  if (!bench_python_script("_bench_torch.py", script, sizeof script) ||
      access(python, X_OK) != 0) {
    fprintf(stderr,
            "bench torch: needs the backplane package's _bench_torch.py "
            "beside this command and a Python (%s, BACKPLANE_PYTHON): "
            "skipped\n",
            python);
    return BP_OK;
  }
  char command[3 * PATH_MAX + 64];
  snprintf(command, sizeof command,
           "PYTHONPATH='%s' '%s' '%s' %zu %s 2>/dev/null", bridge, python,
           script, bench_reps(ctx, FULL_REPS), ctx->quick ? "--quick" : "");
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
