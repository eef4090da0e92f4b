/* Part of `bench launch`: the ring all-reduce kernel of examples/kernels
 * (built into the conformance kernel library) timed beside the built-in
 * bp_comm_all_reduce on the plugin's first two devices. */
#ifndef BACKPLANE_CLI_BENCH_LAUNCH_RING_H_
#define BACKPLANE_CLI_BENCH_LAUNCH_RING_H_

#include "bench.h"

/* Records one row per size (quick: 1 KiB and 64 KiB; else 1 KiB, 1 MiB,
 * 64 MiB), the kernel's algorithm bandwidth against the built-in's, no
 * budget. Skipped, saying so on stderr, without a second device or without
 * the kernel in the library. */
bp_status_t bench_launch_ring(bench_ctx_t *ctx);

#endif /* BACKPLANE_CLI_BENCH_LAUNCH_RING_H_ */
