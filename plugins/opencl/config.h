/* The plugin's settings, read from the environment once at initialize:
 *
 *   BACKPLANE_OPENCL_DEVICES   which devices to drive: a comma-separated list
 *                              of case-insensitive fnmatch patterns, each
 *                              matched against the device type ("cpu", "gpu",
 *                              "accelerator", "custom"), the platform name
 *                              and the device name ("gpu", "*NVIDIA*",
 *                              "Portable*"). Unset or empty: every device.
 *   BACKPLANE_OPENCL_MEMORY    "auto" (default: coarse-grained SVM where the
 *                              device has it, else buffers), "svm" (refuse
 *                              devices without SVM) or "buffer" (always
 *                              buffers behind a per-device address range).
 *   BACKPLANE_OPENCL_MEMORY_LIMIT  a cap on each device's memory
 *                              ("256M", "2G", bytes): what the plugin reports
 *                              as the device's total and refuses beyond.
 *                              Default: CL_DEVICE_GLOBAL_MEM_SIZE.
 */
#ifndef BACKPLANE_OPENCL_CONFIG_H_
#define BACKPLANE_OPENCL_CONFIG_H_

#include <stdbool.h>
#include <stddef.h>

typedef enum ocl_memory_mode {
  OCL_MEMORY_AUTO = 0,
  OCL_MEMORY_SVM,
  OCL_MEMORY_BUFFER,
} ocl_memory_mode_t;

typedef struct ocl_config {
  char devices[512]; /* the filter; "" keeps every device */
  ocl_memory_mode_t memory;
  size_t memory_limit; /* 0: no cap */
} ocl_config_t;

/* Reads the environment into *config. false (with the message of
 * ocl_last_error) for a value it cannot parse. */
bool ocl_config_read(ocl_config_t *config);

/* Whether a device passes the filter `patterns` (config.devices). */
bool ocl_config_keeps(const char *patterns, const char *type_name,
                      const char *platform_name, const char *device_name);

#endif /* BACKPLANE_OPENCL_CONFIG_H_ */
