/* Parameter structs of the check kernels (conformance_kernels.c), shared with
 * the host code that launches them. */
#ifndef BACKPLANE_CLI_KERNELS_CONFORMANCE_KERNELS_H_
#define BACKPLANE_CLI_KERNELS_CONFORMANCE_KERNELS_H_

#include <stdint.h>

typedef struct append_param {
  int *log;
  int *position; /* atomic int */
  int value;
} append_param;

typedef struct block_param {
  int *seen; /* one slot per block */
} block_param;

typedef struct fail_param {
  unsigned code;
} fail_param;

typedef struct sleep_param {
  unsigned ms;
} sleep_param;

typedef struct notify_param {
  uint32_t wait_id, record_id, timeout_ms;
} notify_param;

typedef struct spin_param {
  uint64_t iterations; /* split between the blocks */
  double *out;         /* one per block */
} spin_param;

#endif /* BACKPLANE_CLI_KERNELS_CONFORMANCE_KERNELS_H_ */
