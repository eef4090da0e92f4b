/* Part of `bench launch`: a generated op-info manifest of 10,000 ops (every
 * op on a function of the conformance kernel library, copied beside it into
 * a private temporary folder) loaded, and its last op looked up by name. */
#ifndef BACKPLANE_CLI_BENCH_LAUNCH_MANIFEST_H_
#define BACKPLANE_CLI_BENCH_LAUNCH_MANIFEST_H_

#include "bench.h"

/* Records the load (ms, budget <= 20 ms) and the lookup of the last op
 * (ns, no budget). Skipped, saying so on stderr, when the plugin cannot
 * load the library as a shared object. */
bp_status_t bench_launch_manifest(bench_ctx_t *ctx);

#endif /* BACKPLANE_CLI_BENCH_LAUNCH_MANIFEST_H_ */
