/* Device attributes (the device-attributes extension) from
 * cudaGetDeviceProperties, read once at initialize, and cudaMemGetInfo. */
#ifndef BACKPLANE_CUDA_ATTRIBUTES_H_
#define BACKPLANE_CUDA_ATTRIBUTES_H_

#include "backplane/device_ext.h"

C_Status cu_get_attribute(const C_Device device, int32_t attr,
                          BP_AttrValue *value);

#endif /* BACKPLANE_CUDA_ATTRIBUTES_H_ */
