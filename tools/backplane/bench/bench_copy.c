/* copy: host->device and device->host bandwidth at 64 and 256 MiB,
 * synchronous and on a stream (+ synchronize) from ordinary (pageable) and
 * from pinned (bp_host_malloc) host memory, against memcpy between the same
 * pre-faulted pageable buffers with 1 and with 2 threads. Budgets: >= 90 %
 * of memcpy, except pageable host->device on a stream (captured through
 * staging buffers before bp_copy returns, one extra copy): >= 45 %. On the
 * opencl plugin also a 1 MiB device->device copy on a stream (+ synchronize)
 * against clEnqueueCopyBuffer + clFinish called directly (budget: runtime
 * overhead <= 5 %). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_cuda.h"
#include "bench_memcpy.h"
#include "bench_opencl.h"
#include "cli/cli_format.h"
#include "cli/cli_timing.h"

enum { FULL_REPS = 7, SERIES = 8 };

/* The series measured per size; the first two are the baselines. */
typedef enum series {
  MEMCPY_1,
  MEMCPY_2,
  H2D_SYNC,
  H2D_STREAM,
  H2D_PINNED,
  D2H_SYNC,
  D2H_STREAM,
  D2H_PINNED
} series_t;

static const char *const series_names[SERIES] = {"memcpy 1 thread",
                                                 "memcpy 2 threads",
                                                 "h2d",
                                                 "h2d",
                                                 "h2d",
                                                 "d2h",
                                                 "d2h",
                                                 "d2h"};
static const char *const series_modes[SERIES] = {"",
                                                 "",
                                                 "sync",
                                                 "stream pageable",
                                                 "stream pinned",
                                                 "sync",
                                                 "stream pageable",
                                                 "stream pinned"};

typedef struct copy_bench {
  bench_ctx_t *ctx;
  unsigned char *src, *dst; /* host, `capacity` bytes each, pre-faulted */
  unsigned char *pinned;    /* bp_host_malloc, `capacity` bytes */
  void *device_buffer;
  bp_stream_t *stream;
} copy_bench_t;

/* GB/s of one measurement of `series` at `size`; 0 on error (reported). */
static double measure_once(copy_bench_t *b, series_t series, size_t size) {
  bp_device_t *device = b->ctx->device;
  bp_status_t status = BP_OK;
  uint64_t start = cli_now_ns();
  switch (series) {
  case MEMCPY_1:
    memcpy(b->dst, b->src, size);
    break;
  case MEMCPY_2:
    if (!bench_memcpy_two_threads(b->dst, b->src, size))
      return 0;
    break;
  case H2D_SYNC:
  case H2D_STREAM:
  case H2D_PINNED:
    status = bp_copy(device, b->device_buffer, NULL,
                     series == H2D_PINNED ? b->pinned : b->src, size,
                     series == H2D_SYNC ? NULL : b->stream);
    break;
  case D2H_SYNC:
  case D2H_STREAM:
  case D2H_PINNED:
    status =
        bp_copy(NULL, series == D2H_PINNED ? b->pinned : b->dst, device,
                b->device_buffer, size, series == D2H_SYNC ? NULL : b->stream);
    break;
  }
  if (status == BP_OK && series != H2D_SYNC && series != D2H_SYNC)
    status = bp_stream_synchronize(b->stream);
  uint64_t elapsed = cli_now_ns() - start;
  if (status != BP_OK) {
    bench_error(b->ctx, "copying", status);
    return 0;
  }
  return (double)size / (double)(elapsed ? elapsed : 1);
}

static void record_size(copy_bench_t *b, size_t size, double *medians) {
  char size_text[32], bench_case[64];
  cli_format_bytes(size, size_text, sizeof(size_text));
  for (int s = H2D_SYNC; s < SERIES; s++) {
    snprintf(bench_case, sizeof(bench_case), "%s %s %s", series_names[s],
             size_text, series_modes[s]);
    /* One extra copy at most: the staging buffer. */
    double limit = s == H2D_STREAM ? 0.45 : 0.9;
    for (int base = MEMCPY_1; base <= MEMCPY_2; base++)
      bench_record(b->ctx,
                   &(bench_result_t){
                       .bench_case = bench_case,
                       .value = medians[s],
                       .unit = "GB/s",
                       .baseline = series_names[base],
                       .baseline_value = medians[base],
                       .budget = BENCH_BUDGET_MIN_RATIO,
                       .limit = limit,
                       .budget_text = s == H2D_STREAM ? ">= 45% of baseline"
                                                      : ">= 90% of baseline",
                   });
  }
}

/* Measures every series at `size`, interleaving repetitions. */
static bp_status_t bench_size(copy_bench_t *b, size_t size) {
  size_t reps = bench_reps(b->ctx, FULL_REPS);
  double samples[SERIES][FULL_REPS], medians[SERIES];
  for (int s = 0; s < SERIES; s++) /* warm-up */
    if (measure_once(b, (series_t)s, size) == 0)
      return BP_ERR_PLUGIN;
  for (size_t r = 0; r < reps; r++)
    for (int s = 0; s < SERIES; s++)
      if ((samples[s][r] = measure_once(b, (series_t)s, size)) == 0)
        return BP_ERR_PLUGIN;
  for (int s = 0; s < SERIES; s++)
    medians[s] = cli_median(samples[s], reps);
  record_size(b, size, medians);
  return BP_OK;
}

enum { DIRECT_BYTES = 1 << 20, DIRECT_REPS = 51 };

/* The opencl plugin's 1 MiB d2d copy against OpenCL's own, interleaved. */
static bp_status_t bench_d2d_against_opencl(bench_ctx_t *ctx,
                                            bp_stream_t *stream) {
  bench_opencl_t *cl = bench_opencl_open(ctx, DIRECT_BYTES);
  if (!cl)
    return BP_ERR_UNSUPPORTED;
  void *src = NULL, *dst = NULL;
  bp_status_t status = bp_device_malloc(ctx->device, DIRECT_BYTES, &src);
  if (status == BP_OK)
    status = bp_device_malloc(ctx->device, DIRECT_BYTES, &dst);
  size_t reps = bench_reps(ctx, DIRECT_REPS);
  double ours[DIRECT_REPS + 1], direct[DIRECT_REPS + 1];
  for (size_t r = 0; r <= reps && status == BP_OK; r++) { /* 0: warm-up */
    uint64_t start = cli_now_ns();
    status = bp_copy(ctx->device, dst, ctx->device, src, DIRECT_BYTES, stream);
    if (status == BP_OK)
      status = bp_stream_synchronize(stream);
    uint64_t elapsed = cli_now_ns() - start;
    ours[r] = (double)DIRECT_BYTES / (double)(elapsed ? elapsed : 1);
    double ns = bench_opencl_copy_ns(cl, DIRECT_BYTES);
    if (ns == 0 && status == BP_OK)
      status = BP_ERR_PLUGIN;
    direct[r] = (double)DIRECT_BYTES / (ns ? ns : 1);
  }
  if (status == BP_OK) {
    char baseline[192];
    snprintf(baseline, sizeof baseline, "clEnqueueCopyBuffer + clFinish (%s)",
             bench_opencl_device_name(cl));
    bench_record(ctx, &(bench_result_t){
                          .bench_case = "d2d 1 MiB stream",
                          .value = cli_median(ours + 1, reps),
                          .unit = "GB/s",
                          .baseline = baseline,
                          .baseline_value = cli_median(direct + 1, reps),
                          .budget = BENCH_BUDGET_MIN_RATIO,
                          .limit = 1 / 1.05,
                          .budget_text = "<= 5% overhead",
                      });
  } else {
    bench_error(ctx, "d2d 1 MiB against OpenCL directly", status);
  }
  bp_device_free(ctx->device, src);
  bp_device_free(ctx->device, dst);
  bench_opencl_close(cl);
  return status;
}

bp_status_t bench_copy(bench_ctx_t *ctx) {
  const size_t sizes[2] = {ctx->quick ? (size_t)1 << 20 : (size_t)64 << 20,
                           ctx->quick ? (size_t)4 << 20 : (size_t)256 << 20};
  copy_bench_t b = {.ctx = ctx};
  bp_status_t status = BP_OK;
  b.src = aligned_alloc(4096, sizes[1]);
  b.dst = aligned_alloc(4096, sizes[1]);
  if (!b.src || !b.dst) {
    status = bench_error(ctx, "allocating host buffers", BP_ERR_OUT_OF_MEMORY);
  } else if ((status = bp_stream_create(ctx->device, &b.stream)) != BP_OK) {
    bench_error(ctx, "bp_stream_create", status);
  } else if ((status = bp_host_malloc(ctx->device, sizes[1],
                                      (void **)&b.pinned)) != BP_OK) {
    bench_error(ctx, "bp_host_malloc", status);
  } else {
    memset(b.src, 1, sizes[1]); /* pre-fault all three */
    memset(b.dst, 2, sizes[1]);
    memset(b.pinned, 3, sizes[1]);
  }
  for (size_t i = 0; i < 2 && status == BP_OK; i++) {
    status = bp_device_malloc(ctx->device, sizes[i], &b.device_buffer);
    if (status != BP_OK) {
      bench_error(ctx, "bp_device_malloc", status);
      break;
    }
    status = bench_size(&b, sizes[i]);
    bp_device_free(ctx->device, b.device_buffer);
  }
  if (status == BP_OK && bench_opencl_wanted(ctx))
    status = bench_d2d_against_opencl(ctx, b.stream);
  if (status == BP_OK && bench_cuda_wanted(ctx))
    status = bench_cuda_copy(ctx);
  bp_stream_destroy(b.stream);
  bp_host_free(ctx->device, b.pinned);
  free(b.src);
  free(b.dst);
  return status;
}
