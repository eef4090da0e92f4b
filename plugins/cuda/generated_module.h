/* Generated modules: CUDA C that Backplane's cuda builder lowered from
 * tensor-expression IR (BP_CUDA_GENERATED_MARKER on its first line), read
 * without a device, so the unit tests run it everywhere.
 *
 * The descriptor lines (docs/cuda.md, "Generated modules"):
 *
 *   //@bp arch <sm_XY>                             (once: built for)
 *   //@bp function <name> params <n> <bytes>... scratch <bytes> stages <k>
 *   //@bp stage <kernel> items <elements>          (k lines, in run order)
 *
 * A launch of <name> takes a bp_generated_params_t whose first n words are
 * device pointers to tensors of the given sizes, and runs the k stage
 * kernels in order, each `(bp_generated_params_t, unsigned char *scratch)`,
 * with a scratch buffer of the given bytes. */
#ifndef BACKPLANE_CUDA_GENERATED_MODULE_H_
#define BACKPLANE_CUDA_GENERATED_MODULE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"

/* Most device pointers in a parameter block: bp_generated_params_t's. */
enum { CU_GENERATED_MAX_PARAMS = 16, CU_GENERATED_MAX_STAGES = 1 << 16 };

typedef struct cu_generated_stage {
  char *kernel;
  uint64_t items; /* threads it needs: one per output element */
} cu_generated_stage_t;

typedef struct cu_generated_function {
  char *name;
  size_t param_count; /* device pointers at the head of the param block */
  uint64_t param_bytes[CU_GENERATED_MAX_PARAMS]; /* the tensor behind each */
  uint64_t scratch_bytes; /* intermediate stages, allocated per launch */
  size_t stage_count;
  cu_generated_stage_t *stages;
} cu_generated_function_t;

typedef struct cu_generated_module {
  char arch[16]; /* what it was built for ("sm_90") */
  size_t function_count;
  cu_generated_function_t *functions;
} cu_generated_module_t;

/* Whether the bytes start with BP_CUDA_GENERATED_MARKER. */
bool cu_generated_source(const void *data, size_t size);

/* Reads the descriptor lines of `source` (`size` bytes). On success fills
 * *out (cu_generated_free releases it); C_ERROR naming the line when one is
 * malformed, out of place or missing (no arch, no function, too few stage
 * lines), C_FAILED when out of memory; *out is then empty. */
C_Status cu_generated_parse(const char *source, size_t size,
                            cu_generated_module_t *out);
void cu_generated_free(cu_generated_module_t *module);

/* The architecture NVRTC compiles a module built for `built_for` into for
 * a device of `device_arch` (both "sm_XY", optionally with a feature
 * letter): `built_for` itself (a cubin) when its number is the device's
 * (sm_90a on a 9.0 device); "compute_XY" of `built_for` (PTX the driver
 * compiles for the device) when it is older and has no feature letter. A
 * newer or older feature-specific architecture is BP_ERR_UNSUPPORTED
 * (cu_unsupported) naming both; a malformed one C_ERROR. */
C_Status cu_generated_arch(const char *built_for, const char *device_arch,
                           char *out, size_t capacity);

#endif /* BACKPLANE_CUDA_GENERATED_MODULE_H_ */
