/* The `opencl` target kind (target-kind extension): what a code generator
 * needs to know about an OpenCL device, read from the live device by the
 * target parser hook. Schema (defaults for a target written without a
 * device):
 *   max_num_threads              CL_DEVICE_MAX_WORK_GROUP_SIZE      (256)
 *   num_cores                    CL_DEVICE_MAX_COMPUTE_UNITS        (1)
 *   warp_size                    the preferred work-group multiple  (1)
 *   max_shared_memory_per_block  CL_DEVICE_LOCAL_MEM_SIZE           (16384)
 *   vector_width                 CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT (1)
 * The first four come through the device attributes (attributes.h); the
 * hook adds vector_width. The kind brings no builder hook: libbackplane's
 * opencl builder (backplane/build.h) lowers the tensor-expression IR to
 * OpenCL C, which the kernels extension loads as a *.cl module. */
#ifndef BACKPLANE_OPENCL_TARGET_H_
#define BACKPLANE_OPENCL_TARGET_H_

#include "backplane/target_ext.h"

extern const BP_TargetKindExtension ocl_target_kind;

#endif /* BACKPLANE_OPENCL_TARGET_H_ */
