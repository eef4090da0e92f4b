/* OpenCL called directly, as the baselines of the opencl plugin's rows:
 * the ICD loader is opened at run time (the CLI does not link OpenCL), the
 * first device of the first platform that has one is used (POCL's here; its
 * name is in the row), with an in-order queue and two device buffers.
 * Not thread-safe: one bench at a time. */
#ifndef BACKPLANE_CLI_BENCH_OPENCL_H_
#define BACKPLANE_CLI_BENCH_OPENCL_H_

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"

typedef struct bench_opencl bench_opencl_t;

/* Whether the bench runs on the opencl plugin (rows against direct calls). */
bool bench_opencl_wanted(const bench_ctx_t *ctx);

/* Opens the loader and sets up a queue and two buffers of `bytes` each. NULL
 * (reported through bench_error) when there is no loader or device. */
bench_opencl_t *bench_opencl_open(bench_ctx_t *ctx, size_t bytes);
void bench_opencl_close(bench_opencl_t *cl);

/* The device's name, for the rows' baseline text. */
const char *bench_opencl_device_name(const bench_opencl_t *cl);

/* One clEnqueueCopyBuffer of `bytes` (at most the buffers' size) + clFinish,
 * in ns; 0 on error. */
double bench_opencl_copy_ns(bench_opencl_t *cl, size_t bytes);

/* One empty clEnqueueMarkerWithWaitList + clFinish round trip, in ns; 0 on
 * error. */
double bench_opencl_marker_ns(bench_opencl_t *cl);

/* One empty kernel (`kernel void empty_kernel(void) {}`, built on the first
 * call) as one work-group of its preferred work-group size multiple, as the
 * plugin launches a block: clEnqueueNDRangeKernel + clFinish, in ns; 0 on
 * error. */
double bench_opencl_empty_launch_ns(bench_opencl_t *cl);

/* M empty kernels per second enqueued with clEnqueueNDRangeKernel, `count`
 * in a row (clFinish outside the timed part); 0 on error. */
double bench_opencl_enqueue_rate(bench_opencl_t *cl, size_t count);

#endif /* BACKPLANE_CLI_BENCH_OPENCL_H_ */
