/* The ring all-reduce kernel against the built-in all-reduce: both ranks
 * (two devices of this process) are driven from this thread, each through
 * its own stream, as the example's host does it per rank: record notify 0,
 * launch RingAllReduceKernel with the op_param block, wait notify 1. The
 * built-in's rows call bp_comm_all_reduce on the same buffers. Every size
 * is checked once (each output element must be the sum of the ranks'
 * inputs) before it is timed. */
#include "bench_launch_ring.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_format.h"
#include "cli/cli_kernels.h"
#include "cli/cli_timing.h"
#include "op_param.h"

enum { RANKS = 2 };

static const size_t full_sizes[] = {1u << 10, 1u << 20, 64u << 20};
static const size_t quick_sizes[] = {1u << 10, 64u << 10};

typedef struct ring_rank {
  bp_device_t *device;
  bp_comm_t *comm;
  bp_module_t *module;
  bp_function_t *kernel;
  bp_stream_t *stream;
  bp_notify_t *notifies[2];
  float *input, *output, *comm_buffer; /* device memory */
  bp_kernel_resources_t *resources;    /* device memory */
  size_t capacity;                     /* bytes of input and output */
  bp_kernel_resources_t context;       /* filled on the rank's thread */
  bp_status_t status;
} ring_rank_t;

static void *prepare_resources(void *arg) {
  ring_rank_t *rank = arg;
  uint32_t ids[2];
  rank->status = bp_notify_id(rank->notifies[0], &ids[0]);
  if (rank->status == BP_OK)
    rank->status = bp_notify_id(rank->notifies[1], &ids[1]);
  if (rank->status == BP_OK)
    rank->status = bp_comm_kernel_resources(
        rank->comm, "bench-ring", rank->comm_buffer,
        (RANKS - 1) * rank->capacity, ids, 2, &rank->context);
  return NULL;
}

/* Everything but the resource context, for one rank. */
static bp_status_t open_rank(ring_rank_t *rank, size_t capacity) {
  rank->capacity = capacity;
  bp_status_t status = cli_kernels_load(rank->device, &rank->module);
  if (status == BP_OK)
    status =
        bp_module_function(rank->module, "RingAllReduceKernel", &rank->kernel);
  if (status == BP_OK)
    status = bp_stream_create(rank->device, &rank->stream);
  for (int i = 0; i < 2 && status == BP_OK; ++i)
    status = bp_notify_create(rank->device, &rank->notifies[i]);
  if (status == BP_OK)
    status = bp_device_malloc(rank->device, capacity, (void **)&rank->input);
  if (status == BP_OK)
    status = bp_device_malloc(rank->device, capacity, (void **)&rank->output);
  if (status == BP_OK)
    status = bp_device_malloc(rank->device, (RANKS - 1) * capacity,
                              (void **)&rank->comm_buffer);
  if (status == BP_OK)
    status = bp_device_malloc(rank->device, sizeof(bp_kernel_resources_t),
                              (void **)&rank->resources);
  return status;
}

static void close_rank(ring_rank_t *rank) {
  if (rank->stream)
    bp_stream_synchronize(rank->stream);
  bp_device_free(rank->device, rank->resources);
  bp_device_free(rank->device, rank->comm_buffer);
  bp_device_free(rank->device, rank->output);
  bp_device_free(rank->device, rank->input);
  bp_notify_destroy(rank->notifies[1]);
  bp_notify_destroy(rank->notifies[0]);
  bp_stream_destroy(rank->stream);
  bp_module_unload(rank->module);
  bp_comm_destroy(rank->comm);
}

/* One all-reduce of `count` floats on every rank, enqueued. */
static bp_status_t enqueue(ring_rank_t *ranks, int kernel, size_t count) {
  bp_status_t status = BP_OK;
  for (size_t r = 0; r < RANKS && status == BP_OK; ++r) {
    ring_rank_t *rank = &ranks[r];
    if (!kernel) {
      status =
          bp_comm_all_reduce(rank->input, rank->output, count, BP_DTYPE_FLOAT32,
                             BP_REDUCE_SUM, rank->comm, rank->stream);
      continue;
    }
    op_param param;
    memset(&param, 0, sizeof param);
    snprintf(param.comm_name, sizeof param.comm_name, "bench-ring");
    param.input = rank->input;
    param.output = rank->output;
    param.count = count;
    param.data_type = BP_DTYPE_FLOAT32;
    param.op_type = OP_ALL_REDUCE;
    param.resources = rank->resources;
    status = bp_notify_record(rank->notifies[0], rank->stream);
    if (status == BP_OK)
      status =
          bp_launch(rank->kernel, 1, &param, sizeof param, NULL, rank->stream);
    if (status == BP_OK)
      status =
          bp_notify_wait(rank->notifies[1], rank->stream, CUSTOM_TIMEOUT_MS);
  }
  return status;
}

static bp_status_t sync_ranks(ring_rank_t *ranks) {
  bp_status_t status = BP_OK;
  for (size_t r = 0; r < RANKS; ++r) {
    bp_status_t s = bp_stream_synchronize(ranks[r].stream);
    if (s == BP_OK)
      s = bp_comm_async_error(ranks[r].comm);
    if (status == BP_OK)
      status = s;
  }
  return status;
}

/* Fills rank r's input with r + 1, runs one all-reduce and checks that
 * every output element is the sum over the ranks. */
static bp_status_t check_once(bench_ctx_t *ctx, ring_rank_t *ranks, int kernel,
                              size_t count) {
  const char *what = kernel ? "ring kernel" : "built-in all-reduce";
  float *host = malloc(count * sizeof *host);
  if (!host)
    return bench_error(ctx, what, BP_ERR_OUT_OF_MEMORY);
  bp_status_t status = BP_OK;
  for (size_t r = 0; r < RANKS && status == BP_OK; ++r) {
    for (size_t i = 0; i < count; ++i)
      host[i] = (float)(r + 1);
    status = bp_copy(ranks[r].device, ranks[r].input, NULL, host,
                     count * sizeof *host, ranks[r].stream);
    if (status == BP_OK)
      status = bp_memset(ranks[r].device, ranks[r].output, 0,
                         count * sizeof *host, ranks[r].stream);
  }
  if (status == BP_OK)
    status = enqueue(ranks, kernel, count);
  if (status == BP_OK)
    status = sync_ranks(ranks);
  float sum = (float)(RANKS * (RANKS + 1) / 2);
  for (size_t r = 0; r < RANKS && status == BP_OK; ++r) {
    status = bp_copy(NULL, host, ranks[r].device, ranks[r].output,
                     count * sizeof *host, NULL);
    for (size_t i = 0; i < count && status == BP_OK; ++i)
      if (host[i] != sum) {
        fprintf(stderr,
                "bench launch: %s: rank %zu element %zu is %g, not %g\n", what,
                r, i, (double)host[i], (double)sum);
        status = BP_ERR_PLUGIN;
      }
  }
  free(host);
  return status == BP_OK ? BP_OK : bench_error(ctx, what, status);
}

/* GB/s of algorithm bandwidth (bytes / time per all-reduce), median of the
 * repetitions; 0 on error. */
static double bandwidth(bench_ctx_t *ctx, ring_rank_t *ranks, int kernel,
                        size_t bytes) {
  size_t count = bytes / sizeof(float);
  size_t iters = ctx->quick ? 2 : (256u << 20) / bytes;
  if (iters < 4)
    iters = 4;
  if (iters > 2000)
    iters = 2000;
  size_t reps = bench_reps(ctx, 5);
  double samples[6];
  for (size_t rep = 0; rep <= reps; ++rep) { /* repetition 0 warms up */
    uint64_t start = cli_now_ns();
    bp_status_t status = BP_OK;
    for (size_t i = 0; i < iters && status == BP_OK; ++i)
      status = enqueue(ranks, kernel, count);
    if (status == BP_OK)
      status = sync_ranks(ranks);
    if (status != BP_OK) {
      bench_error(ctx, kernel ? "ring kernel" : "built-in all-reduce", status);
      return 0;
    }
    double seconds = (double)(cli_now_ns() - start) / 1e9;
    samples[rep] = (double)bytes * (double)iters / seconds / 1e9;
  }
  return cli_median(samples + 1, reps);
}

static bp_status_t run(bench_ctx_t *ctx, ring_rank_t *ranks) {
  const size_t *sizes = ctx->quick ? quick_sizes : full_sizes;
  size_t n = ctx->quick ? sizeof quick_sizes / sizeof *quick_sizes
                        : sizeof full_sizes / sizeof *full_sizes;
  for (size_t s = 0; s < n; ++s) {
    size_t count = sizes[s] / sizeof(float);
    bp_status_t status = check_once(ctx, ranks, 1, count);
    if (status == BP_OK)
      status = check_once(ctx, ranks, 0, count);
    if (status != BP_OK)
      return status;
    double builtin = bandwidth(ctx, ranks, 0, sizes[s]);
    double kernel = builtin ? bandwidth(ctx, ranks, 1, sizes[s]) : 0;
    if (kernel == 0)
      return BP_ERR_PLUGIN;
    char size[32], name[64];
    snprintf(name, sizeof name, "ring all-reduce kernel, %s",
             cli_format_bytes(sizes[s], size, sizeof size));
    bench_record(ctx, &(bench_result_t){.bench_case = name,
                                        .value = kernel,
                                        .unit = "GB/s",
                                        .baseline = "bp_comm_all_reduce",
                                        .baseline_value = builtin});
  }
  return BP_OK;
}

bp_status_t bench_launch_ring(bench_ctx_t *ctx) {
  if (!ctx->peer) {
    fprintf(stderr, "bench launch: ring all-reduce kernel skipped: the plugin "
                    "has one device\n");
    return BP_OK;
  }
  size_t capacity = ctx->quick ? quick_sizes[1] : full_sizes[2];
  ring_rank_t ranks[RANKS];
  memset(ranks, 0, sizeof ranks);
  ranks[0].device = ctx->device;
  ranks[1].device = ctx->peer;
  bp_device_t *devices[RANKS] = {ctx->device, ctx->peer};
  bp_comm_t *comms[RANKS] = {NULL, NULL};
  bp_status_t status = bp_comm_init_all(devices, RANKS, comms);
  if (status != BP_OK)
    return bench_error(ctx, "ring all-reduce kernel: bp_comm_init_all", status);
  for (size_t r = 0; r < RANKS; ++r)
    ranks[r].comm = comms[r];
  for (size_t r = 0; r < RANKS && status == BP_OK; ++r)
    status = open_rank(&ranks[r], capacity);
  if (status == BP_ERR_NOT_FOUND) {
    fprintf(stderr, "bench launch: ring all-reduce kernel skipped: %s\n",
            bp_last_error());
    status = BP_OK;
  } else if (status != BP_OK) {
    bench_error(ctx, "ring all-reduce kernel: setup", status);
  } else {
    /* Every rank prepares its context at once, like a collective. */
    pthread_t threads[RANKS];
    for (size_t r = 0; r < RANKS; ++r)
      pthread_create(&threads[r], NULL, prepare_resources, &ranks[r]);
    for (size_t r = 0; r < RANKS; ++r) {
      pthread_join(threads[r], NULL);
      if (status == BP_OK)
        status = ranks[r].status;
    }
    for (size_t r = 0; r < RANKS && status == BP_OK; ++r)
      status = bp_copy(ranks[r].device, ranks[r].resources, NULL,
                       &ranks[r].context, sizeof ranks[r].context, NULL);
    if (status != BP_OK)
      bench_error(ctx, "ring all-reduce kernel: resources", status);
    else
      status = run(ctx, ranks);
  }
  for (size_t r = 0; r < RANKS; ++r)
    close_rank(&ranks[r]);
  return status;
}
