/* What a virtual device says about itself: the BP_DeviceAttributesExtension
 * query and the table's capability/version queries (layout B: no device
 * argument).
 *
 * Attributes answered: kExist (1 for an existing device, 0 for an id out of
 * range, never an error), max threads per block (1: a command runs on one
 * worker thread), warp size (1), device name ("vcpu virtual device N"),
 * multiprocessor count (online CPUs), L2 cache size (when the C library knows
 * it), total and available global memory (the arena's capacity and its free
 * bytes), API and driver version (VCPU_VERSION). Everything else is left
 * zeroed: unsupported. Thread-safe.
 */
#ifndef BACKPLANE_VCPU_ATTRIBUTES_H_
#define BACKPLANE_VCPU_ATTRIBUTES_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"

/* Plugin version 0.1.0 as major * 10000 + minor * 100 + patch. */
#define VCPU_VERSION 100u
/* "Compute capability" 1.0 as major * 10 + minor. */
#define VCPU_COMPUTE_CAPABILITY 10u

C_Status vcpu_get_attribute(const C_Device device, int32_t attr,
                            BP_AttrValue *value);
C_Status vcpu_get_compute_capability(size_t *capability);
C_Status vcpu_get_runtime_version(size_t *version);
C_Status vcpu_get_driver_version(size_t *version);

#endif /* BACKPLANE_VCPU_ATTRIBUTES_H_ */
