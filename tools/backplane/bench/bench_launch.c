/* launch: an empty kernel's launch to completion (launch + synchronize)
 * against the stream round trip of a host callback measured in the same run
 * (budget: <= 1.5x its time); kernel launches enqueued per second (budget:
 * >= 5 M/s); a compute-bound kernel at blocks = 2 against blocks = 1 (budget:
 * >= 1.8x on 2 cores); a 10,000-op manifest's load (budget: <= 20 ms) and
 * its last op's lookup. Kernels come from the conformance kernel library.
 * On the opencl plugin also the empty launch + synchronize against
 * clEnqueueNDRangeKernel + clFinish of an empty kernel called directly,
 * interleaved in the same run (budget: <= 1 us extra). */
#include <stdio.h>

#include "bench.h"
#include "bench_launch_manifest.h"
#include "bench_launch_ring.h"
#include "bench_opencl.h"
#include "cli/cli_kernels.h"
#include "cli/cli_timing.h"
#include "kernels/conformance_kernels.h"

enum { FULL_REPS = 7 };

typedef struct launch_bench {
  bench_ctx_t *ctx;
  bp_stream_t *stream;
  bp_function_t *empty, *spin;
  double *spin_out; /* device memory, one double per block */
} launch_bench_t;

static void no_op(void *user_data) {
  (void)user_data;
}

/* Median ns of one (callback or empty launch) + synchronize; 0 on error. */
static double round_trip_ns(launch_bench_t *b, int kernel, size_t trips) {
  size_t reps = bench_reps(b->ctx, FULL_REPS);
  double samples[FULL_REPS + 1];
  for (size_t r = 0; r <= reps; r++) { /* repetition 0 warms up */
    uint64_t start = cli_now_ns();
    for (size_t i = 0; i < trips; i++) {
      bp_status_t status =
          kernel ? bp_launch(b->empty, 1, NULL, 0, NULL, b->stream)
                 : bp_stream_add_callback(b->stream, no_op, NULL);
      if (status == BP_OK)
        status = bp_stream_synchronize(b->stream);
      if (status != BP_OK) {
        bench_error(b->ctx, kernel ? "empty launch" : "callback", status);
        return 0;
      }
    }
    samples[r] = (double)(cli_now_ns() - start) / (double)trips;
  }
  return cli_median(samples + 1, reps);
}

/* Median M launches/s enqueued (drained outside the timed part) of `reps`
 * runs after a warm-up; 0 on error. */
static double enqueue_rate(launch_bench_t *b, size_t count, size_t reps) {
  double samples[FULL_REPS + 1];
  for (size_t r = 0; r <= reps; r++) {
    bp_status_t status = BP_OK;
    uint64_t start = cli_now_ns();
    for (size_t i = 0; i < count && status == BP_OK; i++)
      status = bp_launch(b->empty, 1, NULL, 0, NULL, b->stream);
    uint64_t elapsed = cli_now_ns() - start;
    if (status == BP_OK)
      status = bp_stream_synchronize(b->stream);
    if (status != BP_OK) {
      bench_error(b->ctx, "enqueueing launches", status);
      return 0;
    }
    samples[r] = (double)count * 1e3 / (double)(elapsed ? elapsed : 1);
  }
  return cli_median(samples + 1, reps);
}

/* Median G iterations/s of the spin kernel split over `blocks`; 0 on
 * error. */
static double spin_rate(launch_bench_t *b, uint32_t blocks,
                        uint64_t iterations) {
  size_t reps = bench_reps(b->ctx, 3);
  double samples[FULL_REPS + 1];
  spin_param p = {iterations, b->spin_out};
  for (size_t r = 0; r <= reps; r++) {
    uint64_t start = cli_now_ns();
    bp_status_t status =
        bp_launch(b->spin, blocks, &p, sizeof p, NULL, b->stream);
    if (status == BP_OK)
      status = bp_stream_synchronize(b->stream);
    if (status != BP_OK) {
      bench_error(b->ctx, "spin kernel", status);
      return 0;
    }
    samples[r] = (double)iterations / (double)(cli_now_ns() - start);
  }
  return cli_median(samples + 1, reps);
}

enum { DIRECT_TRIPS = 2000 };

/* The empty launch against OpenCL's own, alternating trip by trip so load
 * on the machine hits both alike. */
static bp_status_t empty_launch_against_opencl(launch_bench_t *b) {
  bench_ctx_t *ctx = b->ctx;
  bench_opencl_t *cl = bench_opencl_open(ctx, 4096);
  if (!cl)
    return BP_ERR_UNSUPPORTED;
  size_t reps = bench_reps(ctx, FULL_REPS);
  size_t trips = ctx->quick ? 100 : DIRECT_TRIPS;
  double ours[FULL_REPS + 1], direct[FULL_REPS + 1];
  bp_status_t status = BP_OK;
  for (size_t r = 0; r <= reps && status == BP_OK; r++) { /* 0: warm-up */
    double our_sum = 0, direct_sum = 0;
    for (size_t i = 0; i < trips && status == BP_OK; i++) {
      uint64_t start = cli_now_ns();
      status = bp_launch(b->empty, 1, NULL, 0, NULL, b->stream);
      if (status == BP_OK)
        status = bp_stream_synchronize(b->stream);
      our_sum += (double)(cli_now_ns() - start);
      double ns = status == BP_OK ? bench_opencl_empty_launch_ns(cl) : 0;
      if (status != BP_OK)
        bench_error(ctx, "empty launch", status);
      else if (ns == 0)
        status = bench_error(ctx, "OpenCL empty launch", BP_ERR_PLUGIN);
      direct_sum += ns;
    }
    ours[r] = our_sum / (double)trips;
    direct[r] = direct_sum / (double)trips;
  }
  /* Enqueue rates, ours and OpenCL's alternating; informative: the
   * budget on OpenCL is the per-launch overhead above. */
  size_t count = ctx->quick ? 200 : 20000;
  double our_rates[FULL_REPS + 1], direct_rates[FULL_REPS + 1];
  for (size_t r = 0; r <= reps && status == BP_OK; r++) {
    our_rates[r] = enqueue_rate(b, count, 1);
    direct_rates[r] = our_rates[r] ? bench_opencl_enqueue_rate(cl, count) : 0;
    if (direct_rates[r] == 0)
      status = bench_error(ctx, "enqueueing empty launches", BP_ERR_PLUGIN);
  }
  if (status == BP_OK) {
    char baseline[192];
    snprintf(baseline, sizeof baseline, "clEnqueueNDRangeKernel (%s)",
             bench_opencl_device_name(cl));
    bench_record(ctx, &(bench_result_t){
                          .bench_case = "enqueue: empty launches",
                          .value = cli_median(our_rates + 1, reps),
                          .unit = "M/s",
                          .baseline = baseline,
                          .baseline_value = cli_median(direct_rates + 1, reps),
                      });
    snprintf(baseline, sizeof baseline,
             "clEnqueueNDRangeKernel + clFinish (%s)",
             bench_opencl_device_name(cl));
    bench_record(ctx, &(bench_result_t){
                          .bench_case = "empty kernel: launch + sync",
                          .value = cli_median(ours + 1, reps) / 1e3,
                          .unit = "us",
                          .baseline = baseline,
                          .baseline_value = cli_median(direct + 1, reps) / 1e3,
                          .budget = BENCH_BUDGET_MAX_EXTRA,
                          .limit = 1.0,
                          .budget_text = "<= 1 us extra",
                      });
  }
  bench_opencl_close(cl);
  return status;
}

static bp_status_t run(launch_bench_t *b) {
  bench_ctx_t *ctx = b->ctx;
  size_t trips = ctx->quick ? 200 : 20000;
  double stream_ns = round_trip_ns(b, 0, trips);
  double launch_ns = stream_ns ? round_trip_ns(b, 1, trips) : 0;
  if (launch_ns == 0)
    return BP_ERR_PLUGIN;
  bench_record(ctx, &(bench_result_t){
                        .bench_case = "empty kernel: launch + sync (rate)",
                        .value = 1e6 / launch_ns,
                        .unit = "k/s",
                        .baseline = "host callback + sync",
                        .baseline_value = 1e6 / stream_ns,
                        .budget = BENCH_BUDGET_MIN_RATIO,
                        .limit = 1 / 1.5,
                        .budget_text = "time <= 1.5x round trip",
                    });
  /* On OpenCL the rate is reported beside OpenCL's own (below). */
  bool opencl = bench_opencl_wanted(ctx);
  if (!opencl) {
    double rate =
        enqueue_rate(b, ctx->quick ? 2000 : 200000, bench_reps(ctx, FULL_REPS));
    if (rate == 0)
      return BP_ERR_PLUGIN;
    bench_record(ctx, &(bench_result_t){.bench_case = "enqueue: empty launches",
                                        .value = rate,
                                        .unit = "M/s",
                                        .budget = BENCH_BUDGET_MIN_VALUE,
                                        .limit = 5.0,
                                        .budget_text = ">= 5 M/s"});
  }
  uint64_t iterations = ctx->quick ? 2000000 : 400000000;
  double one = spin_rate(b, 1, iterations);
  double two = one ? spin_rate(b, 2, iterations) : 0;
  if (two == 0)
    return BP_ERR_PLUGIN;
  bench_record(
      ctx, &(bench_result_t){.bench_case = "compute-bound kernel, blocks = 2",
                             .value = two,
                             .unit = "G it/s",
                             .baseline = "blocks = 1",
                             .baseline_value = one,
                             .budget = BENCH_BUDGET_MIN_RATIO,
                             .limit = 1.8,
                             .budget_text = ">= 1.8x blocks = 1"});
  return opencl ? empty_launch_against_opencl(b) : BP_OK;
}

bp_status_t bench_launch(bench_ctx_t *ctx) {
  launch_bench_t b = {.ctx = ctx};
  bp_module_t *module = NULL;
  bp_status_t status = cli_kernels_load(ctx->device, &module);
  if (status == BP_OK)
    status = bp_module_function(module, "empty_kernel", &b.empty);
  if (status == BP_OK)
    status = bp_module_function(module, "spin_kernel", &b.spin);
  if (status == BP_OK)
    status = bp_stream_create(ctx->device, &b.stream);
  if (status == BP_OK)
    status =
        bp_device_malloc(ctx->device, 2 * sizeof(double), (void **)&b.spin_out);
  if (status != BP_OK)
    bench_error(ctx, "loading the conformance kernels", status);
  else
    status = run(&b);
  bp_device_free(ctx->device, b.spin_out);
  bp_stream_destroy(b.stream);
  bp_module_unload(module);
  if (status == BP_OK) /* the ring all-reduce kernel beside the built-in */
    status = bench_launch_ring(ctx);
  if (status == BP_OK)
    status = bench_launch_manifest(ctx);
  return status;
}
