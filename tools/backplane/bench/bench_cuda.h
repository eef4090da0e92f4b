/* The CUDA baselines of the cuda plugin's rows, CUDA called directly in the
 * same run: cudaMemcpyAsync + cudaStreamSynchronize (copy), an empty
 * cuLaunchKernel + cudaStreamSynchronize (launch), cuBLAS sgemm (ops). The
 * CLI does not link CUDA: libcudart, libcuda and libcublas are opened at run
 * time, and a missing one is reported, not fatal to the build. CUDA device 0
 * is the plugin's device 0. Not thread-safe: one bench at a time. */
#ifndef BACKPLANE_CLI_BENCH_CUDA_H_
#define BACKPLANE_CLI_BENCH_CUDA_H_

#include <stdbool.h>

#include "bench.h"

/* Whether the bench runs on the cuda plugin. */
bool bench_cuda_wanted(const bench_ctx_t *ctx);

/* bench copy on cuda, after its generic rows: h2d and d2h of 64 MiB from
 * pinned memory on a stream, the plugin against cudaMemcpyAsync
 * (budget: >= 95 %). */
bp_status_t bench_cuda_copy(bench_ctx_t *ctx);

/* bench launch on cuda (instead of the vcpu kernels): an empty kernel
 * launch + synchronize through the plugin against cuLaunchKernel +
 * cudaStreamSynchronize (budget: <= 1 us extra). */
bp_status_t bench_cuda_launch(bench_ctx_t *ctx);

/* bench ops on cuda: sgemm (4096) through the op path, diopiMm of the op
 * library the plugin names, against cublasSgemm on CUDA's own stream, each
 * + synchronize (budget: >= 90 %). */
bp_status_t bench_cuda_ops(bench_ctx_t *ctx);

#endif /* BACKPLANE_CLI_BENCH_CUDA_H_ */
