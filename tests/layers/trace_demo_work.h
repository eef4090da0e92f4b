/* A multi-device, multi-stream workload for the trace layer's tests and
 * pictures: on device 0 streams A and B, on device 1 stream C. Each round:
 * host->device copy on A, an event recorded on A, B and C waiting on it,
 * a device->device copy on B, a peer copy device 0 -> device 1 on C, a host
 * callback on C, device->host copy on C; memory from the caching allocator.
 * The bytes that come back are checked. */
#ifndef BACKPLANE_TESTS_LAYERS_TRACE_DEMO_WORK_H_
#define BACKPLANE_TESTS_LAYERS_TRACE_DEMO_WORK_H_

#include "backplane/backplane.h"

enum { TRACE_DEMO_ROUNDS = 3, TRACE_DEMO_BYTES = 1 << 20 };

/* BP_OK when every call succeeded and every round trip returned the bytes
 * sent; else the first failing status (BP_ERR_INTERNAL for wrong bytes). */
bp_status_t trace_demo_run(bp_runtime_t *runtime);

#endif /* BACKPLANE_TESTS_LAYERS_TRACE_DEMO_WORK_H_ */
