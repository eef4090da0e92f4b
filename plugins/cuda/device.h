/* CUDA devices behind C_Device ids: every device cudaGetDeviceCount sees,
 * numbered as CUDA numbers them (CUDA_VISIBLE_DEVICES applies).
 *
 * initialize fails (C_FAILED, the reason in cu_last_error) when there is no
 * usable device: "no CUDA device: <cudaGetDeviceCount's error string> (cuda
 * plugin: <CU_HARDWARE_STATUS>)". The
 * table is immutable between initialize and finalize, so lookups take no
 * lock. Backplane calls a plugin from any thread, so every entry point makes
 * its device current on the calling thread first (cu_device_enter);
 * set_device is the calling thread's current device. Thread-safe. */
#ifndef BACKPLANE_CUDA_DEVICE_H_
#define BACKPLANE_CUDA_DEVICE_H_

#include <stdbool.h>

#include "backplane/device_ext.h"
#include "cu.h"

/* What is known of the plugin on real GPUs, for `backplane info` (the
 * sub-device type, and the reason a machine without a GPU rejects it).
 * scripts/gpu-check.sh passing on a GPU is what changes it. */
#define CU_HARDWARE_STATUS "verified on one H100 by scripts/gpu-check.sh"

typedef struct cu_device {
  int id;
  struct C_Device_st handle; /* {id}: what stream callbacks receive */
  struct cudaDeviceProp properties;
  char arch[16]; /* "sm_90": NVRTC's --gpu-architecture for this device */
} cu_device_t;

/* The device `device` names, or NULL (with a message) if it is NULL, out of
 * range or the plugin is not initialised. */
cu_device_t *cu_device_get(const C_Device device);

/* cu_device_get, then cudaSetDevice on the calling thread; NULL (with a
 * message) if either fails. */
cu_device_t *cu_device_enter(const C_Device device);

/* Number of devices (0 when not initialised). */
int cu_device_count(void);

/* The device of the calling thread's set_device (device 0 by default), or
 * NULL when not initialised. */
cu_device_t *cu_device_current(void);

C_Status cu_initialize(void);
C_Status cu_finalize(void);
C_Status cu_set_device(const C_Device device);
C_Status cu_get_device(const C_Device device);
C_Status cu_get_device_count(size_t *count);
C_Status cu_get_device_list(size_t *devices);
C_Status cu_synchronize_device(const C_Device device);
C_Status cu_get_runtime_version(size_t *version);
C_Status cu_get_driver_version(size_t *version);
C_Status cu_get_compute_capability(size_t *compute_capability);

#endif /* BACKPLANE_CUDA_DEVICE_H_ */
