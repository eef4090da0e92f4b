/* codegen: generated kernels against the same loops hand-written in C and
 * compiled -O3 by the same compiler (both one block, one thread): an
 * elementwise y = x * 1.5 + 0.25 (bandwidth, budget >= 90 %) and a row sum
 * (budget >= 80 %); and a cached build-and-load of a generated module
 * (bp_build hitting the cache + loading the function) against a cold build
 * (budget: cached <= 5 ms). Builds go to a private cache directory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli/cli_timing.h"

enum { FULL_REPS = 9, CACHED_REPS = 30 };

static const char hand_written[] =
    "#include <stdint.h>\n"
    "typedef struct { void *t[16]; } p_t;\n"
    "__attribute__((visibility(\"default\")))\n"
    "unsigned int hand_scale(void *param) {\n"
    "  p_t *p = param;\n"
    "  const float *restrict x = p->t[0];\n"
    "  float *restrict y = p->t[1];\n"
    "  for (long i = 0; i < (long)ROWS * COLS; i++) y[i] = x[i] * 1.5f + "
    "0.25f;\n"
    "  return 0;\n"
    "}\n"
    "__attribute__((visibility(\"default\")))\n"
    "unsigned int hand_row_sum(void *param) {\n"
    "  p_t *p = param;\n"
    "  const float *restrict x = p->t[0];\n"
    "  float *restrict y = p->t[1];\n"
    "  for (long i = 0; i < ROWS; i++) {\n"
    "    float s = 0;\n"
    "    for (long k = 0; k < COLS; k++) s += x[i * COLS + k];\n"
    "    y[i] = s;\n"
    "  }\n"
    "  return 0;\n"
    "}\n";

typedef struct codegen_bench {
  bench_ctx_t *ctx;
  char cache_dir[64];
  long rows, cols;
  float *x, *y;
} codegen_bench_t;

static bp_status_t build(codegen_bench_t *b, bp_ir_module_t *module,
                         int no_cache, bp_built_module_t **out) {
  bp_target_t *target;
  bp_status_t status = bp_target_parse("vcpu -num_cores=1", &target);
  bp_build_options_t options = {sizeof(options), b->cache_dir, no_cache};
  if (status == BP_OK)
    status = bp_build(module, target, &options, out);
  bp_target_destroy(target);
  return status;
}

static bp_status_t generated_module(codegen_bench_t *b,
                                    bp_ir_module_t **out_module) {
  char ir[2048];
  snprintf(ir, sizeof(ir),
           "{\"functions\": ["
           "{\"name\": \"gen_scale\", \"inputs\": [{\"name\": \"x\", "
           "\"shape\": [%ld, %ld], \"dtype\": \"float32\"}], \"stages\": "
           "[{\"name\": \"y\", \"shape\": [%ld, %ld], \"dtype\": \"float32\", "
           "\"axes\": [\"i\", \"j\"], \"expr\": {\"op\": \"add\", \"args\": "
           "[{\"op\": \"mul\", \"args\": [\"x\", 1.5]}, 0.25]}}], "
           "\"outputs\": [\"y\"]},"
           "{\"name\": \"gen_row_sum\", \"inputs\": [{\"name\": \"x\", "
           "\"shape\": [%ld, %ld], \"dtype\": \"float32\"}], \"stages\": "
           "[{\"name\": \"y\", \"shape\": [%ld], \"dtype\": \"float32\", "
           "\"axes\": [\"i\"], \"reduce_axes\": {\"k\": %ld}, \"expr\": "
           "{\"reduce\": \"sum\", \"axes\": [\"k\"], \"arg\": {\"load\": "
           "\"x\", \"index\": [\"i\", \"k\"]}}}], \"outputs\": [\"y\"]}]}",
           b->rows, b->cols, b->rows, b->cols, b->rows, b->cols, b->rows,
           b->cols);
  return bp_ir_module_parse(ir, out_module);
}

static bp_status_t hand_module(codegen_bench_t *b,
                               bp_ir_module_t **out_module) {
  char source[2048];
  snprintf(source, sizeof(source), "#define ROWS %ldL\n#define COLS %ldL\n%s",
           b->rows, b->cols, hand_written);
  const char *names[] = {"hand_scale", "hand_row_sum", NULL};
  return bp_ir_module_from_c(source, names, out_module);
}

/* Median seconds of `reps` calls of fn over (x, y). */
static double median_seconds(codegen_bench_t *b, bp_generated_fn fn,
                             size_t reps) {
  double times[FULL_REPS];
  bp_generated_params_t params = {{b->x, b->y}};
  fn(&params); /* warm-up */
  for (size_t r = 0; r < reps; r++) {
    uint64_t start = cli_now_ns();
    fn(&params);
    times[r] = (double)(cli_now_ns() - start) * 1e-9;
  }
  for (size_t i = 1; i < reps; i++) /* insertion sort: a handful */
    for (size_t j = i; j > 0 && times[j] < times[j - 1]; j--) {
      double t = times[j];
      times[j] = times[j - 1];
      times[j - 1] = t;
    }
  return times[reps / 2];
}

static void compare(codegen_bench_t *b, bp_built_module_t *generated,
                    bp_built_module_t *hand) {
  bp_generated_fn gen_scale, gen_row_sum, hand_scale, hand_row_sum;
  if (bp_built_module_function(generated, "gen_scale", &gen_scale) ||
      bp_built_module_function(generated, "gen_row_sum", &gen_row_sum) ||
      bp_built_module_function(hand, "hand_scale", &hand_scale) ||
      bp_built_module_function(hand, "hand_row_sum", &hand_row_sum)) {
    bench_error(b->ctx, "loading", BP_ERR_PLUGIN);
    return;
  }
  size_t reps = bench_reps(b->ctx, FULL_REPS);
  double bytes = (double)b->rows * (double)b->cols * 8.0;
  double gen = bytes / median_seconds(b, gen_scale, reps) * 1e-9;
  double base = bytes / median_seconds(b, hand_scale, reps) * 1e-9;
  bench_record(b->ctx,
               &(bench_result_t){.bench_case = "elementwise x*1.5+0.25, 64 MiB",
                                 .value = gen,
                                 .unit = "GB/s",
                                 .baseline = "hand-written C -O3",
                                 .baseline_value = base,
                                 .budget = BENCH_BUDGET_MIN_RATIO,
                                 .limit = 0.9,
                                 .budget_text = ">= 90 %"});
  bytes = (double)b->rows * (double)b->cols * 4.0;
  gen = bytes / median_seconds(b, gen_row_sum, reps) * 1e-9;
  base = bytes / median_seconds(b, hand_row_sum, reps) * 1e-9;
  bench_record(b->ctx, &(bench_result_t){.bench_case = "row sum, 64 MiB",
                                         .value = gen,
                                         .unit = "GB/s",
                                         .baseline = "hand-written C -O3",
                                         .baseline_value = base,
                                         .budget = BENCH_BUDGET_MIN_RATIO,
                                         .limit = 0.8,
                                         .budget_text = ">= 80 %"});
}

/* Cold build (no cache) and cached build + load of `module`, in ms. */
static void build_times(codegen_bench_t *b, bp_ir_module_t *module) {
  bp_built_module_t *built;
  uint64_t start = cli_now_ns();
  if (build(b, module, 1, &built) != BP_OK) {
    bench_error(b->ctx, "cold build", BP_ERR_PLUGIN);
    return;
  }
  double cold = (double)(cli_now_ns() - start) * 1e-6;
  bp_built_module_destroy(built);
  size_t reps = b->ctx->quick ? 3 : CACHED_REPS;
  double times[CACHED_REPS];
  for (size_t r = 0; r < reps; r++) {
    bp_generated_fn fn;
    start = cli_now_ns();
    if (build(b, module, 0, &built) != BP_OK ||
        bp_built_module_function(built, "gen_scale", &fn) != BP_OK) {
      bench_error(b->ctx, "cached build", BP_ERR_PLUGIN);
      return;
    }
    times[r] = (double)(cli_now_ns() - start) * 1e-6;
    bp_built_module_destroy(built);
  }
  for (size_t i = 1; i < reps; i++)
    for (size_t j = i; j > 0 && times[j] < times[j - 1]; j--) {
      double t = times[j];
      times[j] = times[j - 1];
      times[j - 1] = t;
    }
  bench_record(b->ctx,
               &(bench_result_t){.bench_case = "cached build + load (median)",
                                 .value = times[reps / 2],
                                 .unit = "ms",
                                 .baseline = "cold build",
                                 .baseline_value = cold,
                                 .budget = BENCH_BUDGET_MAX_VALUE,
                                 .limit = 5.0,
                                 .budget_text = "<= 5 ms"});
}

bp_status_t bench_codegen(bench_ctx_t *ctx) {
  codegen_bench_t b = {.ctx = ctx, .rows = 4096, .cols = 4096};
  if (ctx->quick)
    b.rows = 64;
  snprintf(b.cache_dir, sizeof(b.cache_dir), "/tmp/bp-bench-codegen.XXXXXX");
  if (!mkdtemp(b.cache_dir))
    return bench_error(ctx, "creating a cache directory", BP_ERR_INTERNAL);
  size_t elements = (size_t)(b.rows * b.cols);
  b.x = malloc(elements * sizeof(float));
  b.y = malloc(elements * sizeof(float));
  bp_ir_module_t *generated = NULL, *hand = NULL;
  bp_built_module_t *generated_built = NULL, *hand_built = NULL;
  bp_status_t status = b.x && b.y ? BP_OK : BP_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; b.x && b.y && i < elements; i++) {
    b.x[i] = (float)(i % 1000) * 0.001f;
    b.y[i] = 0;
  }
  if (status == BP_OK)
    status = generated_module(&b, &generated);
  if (status == BP_OK)
    status = hand_module(&b, &hand);
  if (status == BP_OK)
    status = build(&b, generated, 0, &generated_built);
  if (status == BP_OK)
    status = build(&b, hand, 0, &hand_built);
  if (status == BP_OK) {
    compare(&b, generated_built, hand_built);
    build_times(&b, generated);
  } else {
    bench_error(ctx, bp_last_error(), status);
  }
  bp_built_module_destroy(generated_built);
  bp_built_module_destroy(hand_built);
  bp_ir_module_destroy(generated);
  bp_ir_module_destroy(hand);
  free(b.x);
  free(b.y);
  char command[128];
  snprintf(command, sizeof(command), "rm -rf '%s'", b.cache_dir);
  if (system(command) != 0)
    fprintf(stderr, "bench codegen: could not remove %s\n", b.cache_dir);
  return status;
}
