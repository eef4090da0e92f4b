/* The `cuda` target kind (target-kind extension): the attributes code
 * generators read (arch "sm_90", threads, warp, shared memory, SMs), with
 * defaults for an H100, filled from the live device by from_device. build is
 * NULL: bp_build lowers tensor expressions for the kind to CUDA C itself
 * (src/target/te/te_lower_cuda.c), which this plugin's kernels extension
 * compiles when it loads the module (generated_module.h). */
#ifndef BACKPLANE_CUDA_TARGET_H_
#define BACKPLANE_CUDA_TARGET_H_

#include "backplane/target_ext.h"

extern const BP_TargetKindExtension cu_target_kind;

#endif /* BACKPLANE_CUDA_TARGET_H_ */
