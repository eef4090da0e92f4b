/* python: the cost of calling Backplane from Python, measured by
 * scripts/bench_python.py run by /usr/bin/python3 on the package in the
 * build tree (build/python): a no-op call into the extension (budget
 * <= 150 ns) beside PyTorch's cheapest C call, an idle Stream.query(), and
 * a DLPack round trip NumPy -> Backplane -> NumPy without a copy (budget
 * <= 2 us) beside the same trip through PyTorch CPU tensors, in the same
 * run. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli/cli_paths.h"

typedef struct python_case {
  const char *name; /* the script's case */
  const char *label;
  bench_budget_kind_t budget;
  double limit;
  const char *budget_text;
} python_case_t;

static const python_case_t cases[] = {
    {"no-op_call", "no-op call", BENCH_BUDGET_MAX_VALUE, 150.0, "<= 150 ns"},
    {"Stream.query_idle", "Stream.query() idle", BENCH_BUDGET_NONE, 0, NULL},
    {"dlpack_round_trip_numpy", "DLPack round trip NumPy, 1 KiB",
     BENCH_BUDGET_MAX_VALUE, 2000.0, "<= 2 us"},
};

bp_status_t bench_python(bench_ctx_t *ctx) {
  char package[1024];
  cli_path_beside_binary("python", package, sizeof package);
  char probe[1100];
  snprintf(probe, sizeof probe, "%s/backplane/__init__.py", package);
  if (access("/usr/bin/python3", X_OK) != 0 || access(probe, R_OK) != 0) {
    fprintf(stderr, "bench python: needs /usr/bin/python3 and the package "
                    "in the build tree (build/python): skipped\n");
    return BP_OK;
  }
  char command[4096];
  snprintf(command, sizeof command,
           "PYTHONPATH=%s /usr/bin/python3 %s/scripts/bench_python.py %zu",
           package, BP_SOURCE_DIR, bench_reps(ctx, 7));
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
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
      if (strcmp(name, cases[i].name) != 0)
        continue;
      int has_baseline = strcmp(baseline, "none") != 0 && baseline_value > 0;
      bench_record(ctx, &(bench_result_t){
                            .bench_case = cases[i].label,
                            .value = value,
                            .unit = unit,
                            .baseline = has_baseline ? baseline : NULL,
                            .baseline_value = has_baseline ? baseline_value : 0,
                            .budget = cases[i].budget,
                            .limit = cases[i].limit,
                            .budget_text = cases[i].budget_text,
                        });
      ++found;
    }
  }
  int status = pclose(out);
  if (status != 0 || found != sizeof cases / sizeof cases[0]) {
    fprintf(stderr,
            "bench python: %s exited with %d after %zu of %zu "
            "cases\n",
            command, status, found, sizeof cases / sizeof cases[0]);
    return BP_ERR_INTERNAL;
  }
  return BP_OK;
}
