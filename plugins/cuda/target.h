/* The `cuda` target kind (target-kind extension): the attributes code
 * generators read (arch "sm_90", threads, warp, shared memory, SMs), with
 * defaults for an H100, filled from the live device by from_device. No code
 * generator yet (build is NULL: bp_build says so). */
#ifndef BACKPLANE_CUDA_TARGET_H_
#define BACKPLANE_CUDA_TARGET_H_

#include "backplane/target_ext.h"

extern const BP_TargetKindExtension cu_target_kind;

#endif /* BACKPLANE_CUDA_TARGET_H_ */
