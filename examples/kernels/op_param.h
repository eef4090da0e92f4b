/* The parameter block of the example kernels: seed 004's OpParam with our
 * types. The host fills one per launch; bp_launch copies it. */
#ifndef BACKPLANE_EXAMPLES_KERNELS_OP_PARAM_H_
#define BACKPLANE_EXAMPLES_KERNELS_OP_PARAM_H_

#include <stdint.h>

#include "backplane/dtype.h"
#include "backplane/kernel_types.h"

#define TAG_LENGTH 160
#define CUSTOM_TIMEOUT_MS 10000u

typedef enum op_type {
  OP_SEND = 1,       /* this rank's input goes to the peer */
  OP_RECEIVE = 2,    /* the peer's input arrives in this rank's output */
  OP_ALL_REDUCE = 3, /* float32 sum over the ring */
} op_type;

typedef struct op_param {
  char tag[TAG_LENGTH];
  char comm_name[BP_KERNEL_COMM_NAME_MAX];
  void *input;
  void *output;
  uint64_t count;
  bp_dtype_t data_type;
  int32_t op_type;
  uint32_t peer;                    /* send / receive */
  bp_kernel_resources_t *resources; /* in device memory */
} op_param;

/* Bytes per element, for device code (which does not link libbackplane);
 * 0 for types the example kernels do not move. */
static inline uint64_t op_element_size(bp_dtype_t dtype) {
  switch (dtype) {
  case BP_DTYPE_INT8:
  case BP_DTYPE_UINT8:
    return 1;
  case BP_DTYPE_INT16:
  case BP_DTYPE_UINT16:
  case BP_DTYPE_FLOAT16:
  case BP_DTYPE_BFLOAT16:
    return 2;
  case BP_DTYPE_INT32:
  case BP_DTYPE_UINT32:
  case BP_DTYPE_FLOAT32:
    return 4;
  case BP_DTYPE_INT64:
  case BP_DTYPE_UINT64:
  case BP_DTYPE_FLOAT64:
    return 8;
  default:
    return 0;
  }
}

#endif /* BACKPLANE_EXAMPLES_KERNELS_OP_PARAM_H_ */
