/* A 10,000-op manifest: load time and the lookup of its last op. The
 * manifest is written once; each repetition loads and unloads it. */
#include "bench_launch_manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_kernels.h"
#include "cli/cli_timing.h"

enum { OPS = 10000, FULL_REPS = 9, LOOKUPS = 100000 };

static const char *const functions[] = {"empty_kernel", "append_kernel",
                                        "block_kernel", "fail_kernel"};

static int copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  int ok = in && out;
  char buffer[65536];
  size_t n;
  while (ok && (n = fread(buffer, 1, sizeof buffer, in)) > 0)
    ok = fwrite(buffer, 1, n, out) == n;
  if (in)
    fclose(in);
  if (out && fclose(out) != 0)
    ok = 0;
  return ok && chmod(to, 0755) == 0;
}

/* dir/libk.so (a copy of the library) and dir/ops.json naming it. */
static int write_folder(const char *dir, const char *library, char *manifest,
                        size_t capacity) {
  char copy[4096];
  snprintf(copy, sizeof copy, "%s/libk.so", dir);
  snprintf(manifest, capacity, "%s/ops.json", dir);
  if (!copy_file(library, copy))
    return 0;
  FILE *file = fopen(manifest, "wb");
  if (!file)
    return 0;
  fputc('{', file);
  for (int i = 0; i < OPS; ++i)
    fprintf(file,
            "%s\"Op%d\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "
            "\"kernelSo\": \"libk.so\", \"functionName\": \"%s\"}}",
            i ? ",\n" : "", i, functions[i % 4]);
  fputc('}', file);
  return fclose(file) == 0 && chmod(manifest, 0644) == 0;
}

static bp_status_t measure(bench_ctx_t *ctx, const char *manifest) {
  bp_module_options_t options = {.max_manifest_bytes = 16u << 20};
  size_t reps = bench_reps(ctx, FULL_REPS);
  double load_ms[FULL_REPS], lookup_ns[FULL_REPS];
  char last[32];
  snprintf(last, sizeof last, "Op%d", OPS - 1);
  size_t lookups = ctx->quick ? 1000 : LOOKUPS;
  for (size_t r = 0; r < reps; ++r) {
    bp_module_t *module = NULL;
    uint64_t start = cli_now_ns();
    bp_status_t status =
        bp_module_load_with_options(ctx->device, manifest, &options, &module);
    load_ms[r] = (double)(cli_now_ns() - start) / 1e6;
    if (status != BP_OK)
      return bench_error(ctx, "loading a 10000-op manifest", status);
    bp_function_t *function = NULL;
    start = cli_now_ns();
    for (size_t i = 0; i < lookups && status == BP_OK; ++i)
      status = bp_module_function(module, last, &function);
    lookup_ns[r] = (double)(cli_now_ns() - start) / (double)lookups;
    bp_module_unload(module);
    if (status != BP_OK)
      return bench_error(ctx, "looking up the last op", status);
  }
  bench_record(ctx, &(bench_result_t){
                        .bench_case = "manifest load, 10000 ops",
                        .value = cli_median(load_ms, reps),
                        .unit = "ms",
                        .budget = BENCH_BUDGET_MAX_VALUE,
                        .limit = 20.0,
                        .budget_text = "<= 20 ms",
                    });
  bench_record(ctx, &(bench_result_t){
                        .bench_case = "function lookup, last of 10000 ops",
                        .value = cli_median(lookup_ns, reps),
                        .unit = "ns",
                    });
  return BP_OK;
}

bp_status_t bench_launch_manifest(bench_ctx_t *ctx) {
  char library[4096], dir[] = "/tmp/bp_bench_manifest_XXXXXX", manifest[4200];
  cli_kernels_path(library, sizeof library);
  bp_module_t *probe = NULL;
  if (bp_module_load(ctx->device, library, &probe) != BP_OK) {
    fprintf(stderr,
            "bench launch: manifest rows skipped: %s does not load as a "
            "shared object here (%s)\n",
            library, bp_last_error());
    return BP_OK;
  }
  bp_module_unload(probe);
  if (!mkdtemp(dir))
    return bench_error(ctx, "making a temporary folder", BP_ERR_INTERNAL);
  bp_status_t status =
      write_folder(dir, library, manifest, sizeof manifest)
          ? measure(ctx, manifest)
          : bench_error(ctx, "writing the manifest", BP_ERR_INTERNAL);
  char path[4200];
  snprintf(path, sizeof path, "%s/libk.so", dir);
  unlink(path);
  unlink(manifest);
  rmdir(dir);
  return status;
}
