/* A workload over the runtime's own paths, shared by the fault sweep and
 * the validation and trace tests: two devices, a stream on each, allocation,
 * memset, copies host->device, device->device across devices (ordered by an
 * event wait), device->host, synchronous copies in every direction (peer
 * included), a same-device copy on a stream, pinned host and unified
 * memory, a host callback, stream and event queries, event timing,
 * synchronization, and emptying the allocator's cache. It stops at the first
 * failing call, releases what it created, and checks the bytes of every copy
 * that succeeded. */
#ifndef BACKPLANE_TESTS_LAYERS_WORKLOAD_H_
#define BACKPLANE_TESTS_LAYERS_WORKLOAD_H_

#include <stdatomic.h>

#include "backplane/backplane.h"

typedef struct outcome {
  int completed;          /* every step reported success */
  int callbacks_accepted; /* the callback was enqueued (0 or 1) */
} outcome_t;

/* `ran` counts callbacks that ran (by the time the runtime is destroyed it
 * must equal callbacks_accepted). */
outcome_t workload(bp_runtime_t *runtime, atomic_int *ran);

#endif /* BACKPLANE_TESTS_LAYERS_WORKLOAD_H_ */
