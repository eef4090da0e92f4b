/* python: the cost of calling Backplane from Python, measured by the
 * package's backplane._bench_python, run by BACKPLANE_PYTHON (the
 * interpreter of `python -m backplane`; else /usr/bin/python3) on the
 * package that came with this binary (build/python in a build tree, the
 * package holding bin/ in a wheel): a no-op call into the extension (budget
 * <= 150 ns) beside PyTorch's cheapest C call, an idle Stream.query(), a
 * DLPack round trip NumPy -> Backplane -> NumPy without a copy (budget
 * <= 2 us) beside the same trip through PyTorch CPU tensors, and an empty
 * kernel's launch enqueued from Python (Function.launch) beside bp_launch
 * from C, measured here in the same run (when vcpu:0 loads the conformance
 * kernels). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_scripts.h"
#include "cli/cli_kernels.h"
#include "cli/cli_timing.h"

enum { FULL_REPS = 7 };

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
    /* Last: run only with the kernels (its baseline is measured here). */
    {"kernel_launch", "empty kernel launch enqueued", BENCH_BUDGET_NONE, 0,
     NULL},
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

/* Median ns of one empty-kernel bp_launch enqueued on vcpu:0 (drained
 * outside the timed part), the Python case's baseline; 0 when vcpu:0 or the
 * kernels are missing. */
static double c_launch_ns(bench_ctx_t *ctx, const char *kernels) {
  bp_device_t *device = NULL;
  bp_module_t *module = NULL;
  bp_function_t *empty = NULL;
  bp_stream_t *stream = NULL;
  if (bp_device_get(ctx->runtime, "vcpu", 0, &device) != BP_OK ||
      bp_module_load(device, kernels, &module) != BP_OK)
    return 0;
  double samples[FULL_REPS + 1] = {0};
  size_t reps = bench_reps(ctx, FULL_REPS);
  size_t launches = ctx->quick ? 2000 : 100000;
  bp_status_t status = bp_module_function(module, "empty_kernel", &empty);
  if (status == BP_OK)
    status = bp_stream_create(device, &stream);
  for (size_t r = 0; r <= reps && status == BP_OK; r++) { /* 0 warms up */
    uint64_t start = cli_now_ns();
    for (size_t i = 0; i < launches && status == BP_OK; i++)
      status = bp_launch(empty, 1, NULL, 0, NULL, stream);
    samples[r] = (double)(cli_now_ns() - start) / (double)launches;
    if (status == BP_OK)
      status = bp_stream_synchronize(stream);
  }
  bp_stream_destroy(stream);
  bp_module_unload(module);
  if (status != BP_OK) {
    bench_error(ctx, "bp_launch from C", status);
    return 0;
  }
  return cli_median(samples + 1, reps);
}

bp_status_t bench_python(bench_ctx_t *ctx) {
  char package[PATH_MAX];
  const char *python = bench_python_interpreter();
  if (access(python, X_OK) != 0 ||
      !bench_python_package(package, sizeof package)) {
    fprintf(stderr,
            "bench python: needs a Python (%s; run `python -m backplane "
            "bench python` to use that one) and the backplane package beside "
            "this command: skipped\n",
            python);
    return BP_OK;
  }
  char kernels[PATH_MAX];
  cli_kernels_path(kernels, sizeof kernels);
  double c_ns = c_launch_ns(ctx, kernels);
  size_t expected = c_ns > 0 ? CASE_COUNT : CASE_COUNT - 1;
  char command[3 * PATH_MAX];
  snprintf(command, sizeof command,
           "PYTHONPATH='%s' '%s' -m backplane._bench_python %zu '%s'", package,
           python, bench_reps(ctx, FULL_REPS), c_ns > 0 ? kernels : "");
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
    if (strcmp(name, "kernel_launch") == 0) { /* the baseline is C's */
      snprintf(baseline, sizeof baseline, "bp_launch from C");
      baseline_value = c_ns;
    }
    for (size_t i = 0; i < CASE_COUNT; ++i) {
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
  if (status != 0 || found != expected) {
    fprintf(stderr,
            "bench python: %s exited with %d after %zu of %zu "
            "cases\n",
            command, status, found, expected);
    return BP_ERR_INTERNAL;
  }
  return BP_OK;
}
