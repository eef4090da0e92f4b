/* Device attributes (the device-attributes extension) from clGetDeviceInfo:
 *   max_threads_per_block        CL_DEVICE_MAX_WORK_GROUP_SIZE
 *   warp_size                    CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
 *                                (OpenCL 3.0; unsupported before)
 *   max_shared_memory_per_block  CL_DEVICE_LOCAL_MEM_SIZE
 *   compute_version              the device's OpenCL version, "3.0"
 *   device_name                  CL_DEVICE_NAME
 *   max_clock_rate               CL_DEVICE_MAX_CLOCK_FREQUENCY, in kHz
 *   multi_processor_count        CL_DEVICE_MAX_COMPUTE_UNITS
 *   max_thread_dimensions        CL_DEVICE_MAX_WORK_ITEM_SIZES, "[x, y, z]"
 *   api_version                  the OpenCL version, major * 1000 + minor * 10
 *   driver_version               "<CL_DEVICE_VENDOR> <CL_DRIVER_VERSION>"
 *   l2_cache_size_bytes          CL_DEVICE_GLOBAL_MEM_CACHE_SIZE
 *   total/available memory       the plugin's capacity and what is free
 *   image_pitch_alignment        CL_DEVICE_IMAGE_PITCH_ALIGNMENT (if images)
 * Anything else is unsupported (the value stays zeroed). Thread-safe. */
#ifndef BACKPLANE_OPENCL_ATTRIBUTES_H_
#define BACKPLANE_OPENCL_ATTRIBUTES_H_

#include "backplane/device_ext.h"

C_Status ocl_get_attribute(const C_Device device, int32_t attr,
                           BP_AttrValue *value);

#endif /* BACKPLANE_OPENCL_ATTRIBUTES_H_ */
