/* Device discovery, the device table and the current device. */
#include "device.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel_status.h"
#include "staged_copy.h"

static cu_device_t *g_devices;
static int g_count;
static _Thread_local int t_current;

cu_device_t *cu_device_get(const C_Device device) {
  if (!device || device->id < 0 || device->id >= g_count) {
    cu_fail(C_ERROR, "cuda: device %d is not one of the %d CUDA device(s)",
            device ? device->id : -1, g_count);
    return NULL;
  }
  return &g_devices[device->id];
}

cu_device_t *cu_device_enter(const C_Device device) {
  cu_device_t *dev = cu_device_get(device);
  if (!dev)
    return NULL;
  cudaError_t error = cudaSetDevice(dev->id);
  if (error != cudaSuccess) {
    cu_fail_cuda(error, "cudaSetDevice");
    return NULL;
  }
  return dev;
}

int cu_device_count(void) {
  return g_count;
}

cu_device_t *cu_device_current(void) {
  return g_count ? &g_devices[t_current] : NULL;
}

/* Lets every pair of devices that can reach each other copy directly;
 * pairs that cannot are still copied, staged by CUDA. */
static void enable_peer_access(int count) {
  for (int a = 0; a < count; ++a) {
    for (int b = 0; b < count; ++b) {
      int can = 0;
      if (a == b || cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || !can)
        continue;
      if (cudaSetDevice(a) == cudaSuccess &&
          cudaDeviceEnablePeerAccess(b, 0) != cudaSuccess)
        (void)cudaGetLastError(); /* already enabled: not an error */
    }
  }
}

static C_Status initialize_devices(void) {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess)
    return cu_fail(C_FAILED, "no CUDA device: %s (cuda plugin: %s)",
                   cudaGetErrorString(error), CU_HARDWARE_STATUS);
  if (count <= 0)
    return cu_fail(C_FAILED,
                   "no CUDA device: cudaGetDeviceCount found none (cuda "
                   "plugin: %s)",
                   CU_HARDWARE_STATUS);
  cu_device_t *devices = calloc((size_t)count, sizeof *devices);
  if (!devices)
    return cu_fail(C_FAILED, "out of host memory");
  for (int i = 0; i < count; ++i) {
    cu_device_t *dev = &devices[i];
    dev->id = i;
    dev->handle.id = i;
    error = cudaGetDeviceProperties(&dev->properties, i);
    if (error == cudaSuccess)
      error = cudaSetDevice(i);
    if (error == cudaSuccess)
      error = cudaFree(NULL); /* creates the primary context */
    if (error != cudaSuccess) {
      free(devices);
      cu_fail_cuda(error, "setting up CUDA device");
      return C_FAILED;
    }
    snprintf(dev->arch, sizeof dev->arch, "sm_%d%d", dev->properties.major,
             dev->properties.minor);
  }
  enable_peer_access(count);
  cu_staged_copy_reserve(); /* pinned memory before any stream work */
  cu_kernel_status_reserve();
  g_devices = devices;
  g_count = count;
  return C_SUCCESS;
}

/* Runtimes of one process share the plugin: each initialize is matched by
 * a finalize, and only the last one forgets the devices. */
static pthread_mutex_t g_lifetime_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t g_initialize_refs;

C_Status cu_initialize(void) {
  pthread_mutex_lock(&g_lifetime_lock);
  C_Status status = g_devices ? C_SUCCESS : initialize_devices();
  if (status == C_SUCCESS)
    g_initialize_refs++;
  pthread_mutex_unlock(&g_lifetime_lock);
  return status;
}

C_Status cu_finalize(void) {
  pthread_mutex_lock(&g_lifetime_lock);
  if (g_initialize_refs > 0 && --g_initialize_refs == 0) {
    for (int i = 0; i < g_count; ++i)
      if (cudaSetDevice(i) == cudaSuccess)
        cudaDeviceSynchronize();
    cu_staged_copy_release(); /* the copies' staging blocks */
    cu_kernel_status_release();
    free(g_devices);
    g_devices = NULL;
    g_count = 0;
  }
  pthread_mutex_unlock(&g_lifetime_lock);
  return C_SUCCESS;
}

C_Status cu_set_device(const C_Device device) {
  cu_device_t *dev = cu_device_enter(device);
  if (!dev)
    return C_ERROR;
  t_current = dev->id;
  return C_SUCCESS;
}

C_Status cu_get_device(const C_Device device) {
  if (!device || g_count == 0)
    return cu_fail(C_ERROR, "cuda get_device: %s",
                   device ? "not initialised" : "device is NULL");
  device->id = t_current;
  return C_SUCCESS;
}

C_Status cu_get_device_count(size_t *count) {
  if (!count)
    return cu_fail(C_ERROR, "cuda get_device_count: count is NULL");
  *count = (size_t)g_count;
  return C_SUCCESS;
}

C_Status cu_get_device_list(size_t *devices) {
  if (!devices)
    return cu_fail(C_ERROR, "cuda get_device_list: devices is NULL");
  for (int i = 0; i < g_count; ++i)
    devices[i] = (size_t)i;
  return C_SUCCESS;
}

C_Status cu_synchronize_device(const C_Device device) {
  if (!cu_device_enter(device))
    return C_ERROR;
  cudaError_t error = cudaDeviceSynchronize();
  return error == cudaSuccess ? C_SUCCESS
                              : cu_fail_cuda(error, "cudaDeviceSynchronize");
}

C_Status cu_get_runtime_version(size_t *version) {
  int value = 0;
  if (!version)
    return cu_fail(C_ERROR, "cuda get_runtime_version: version is NULL");
  cudaError_t error = cudaRuntimeGetVersion(&value);
  if (error != cudaSuccess)
    return cu_fail_cuda(error, "cudaRuntimeGetVersion");
  *version = (size_t)value;
  return C_SUCCESS;
}

C_Status cu_get_driver_version(size_t *version) {
  int value = 0;
  if (!version)
    return cu_fail(C_ERROR, "cuda get_driver_version: version is NULL");
  cudaError_t error = cudaDriverGetVersion(&value);
  if (error != cudaSuccess)
    return cu_fail_cuda(error, "cudaDriverGetVersion");
  *version = (size_t)value;
  return C_SUCCESS;
}

/* Paddle's convention: major * 10 + minor of the current device. */
C_Status cu_get_compute_capability(size_t *compute_capability) {
  cu_device_t *dev = cu_device_current();
  if (!compute_capability || !dev)
    return cu_fail(C_ERROR, "cuda get_compute_capability: %s",
                   compute_capability ? "not initialised"
                                      : "compute_capability is NULL");
  *compute_capability =
      (size_t)(dev->properties.major * 10 + dev->properties.minor);
  return C_SUCCESS;
}
