/* Devices, their kernels and cuBLAS handles; launches and scratch. */
#include "co_exec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/device.h"
#include "co_cublas.h"
#include "co_error.h"
#include "cu.h"
#include "driver.h"
#include "nvrtc_compile.h"

enum { CO_MAX_DEVICES = 64, CO_MAX_ARCHS = 8, CO_MAX_GRID = 8192 };

struct co_device {
  atomic_bool ready;
  int ordinal;
  CUcontext context;
  CUfunction functions[CO_K_COUNT];
  pthread_mutex_t cublas_lock; /* the handle and its stream */
  void *cublas;
};

/* Compiled images by architecture: NVRTC runs once per architecture. */
typedef struct co_image {
  char arch[16];
  char *bytes;
} co_image_t;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* setup below */
static struct co_device g_devices[CO_MAX_DEVICES];
static co_image_t g_images[CO_MAX_ARCHS];

static diopiError_t driver_failed(const char *op, const cu_driver_t *driver,
                                  CUresult r, const char *what) {
  const char *text = NULL;
  if (driver->get_error_string(r, &text) != CUDA_SUCCESS || !text)
    text = "unknown CUDA driver error";
  return co_fail(op, "%s: %s (CUresult %d)", what, text, (int)r);
}

/* The architecture's image, compiled on first use (g_lock held). */
static diopiError_t image_for(const char *op, const char *arch,
                              const char **out) {
  for (int i = 0; i < CO_MAX_ARCHS; i++) {
    if (g_images[i].bytes && !strcmp(g_images[i].arch, arch)) {
      *out = g_images[i].bytes;
      return diopiSuccess;
    }
    if (g_images[i].bytes)
      continue;
    size_t size = 0;
    if (cu_nvrtc_compile(co_kernel_source, co_kernel_source_size,
                         "co_kernels.cu", arch, &g_images[i].bytes,
                         &size) != C_SUCCESS)
      return co_fail(op, "the library's kernels: %s", cu_last_error());
    snprintf(g_images[i].arch, sizeof g_images[i].arch, "%s", arch);
    *out = g_images[i].bytes;
    return diopiSuccess;
  }
  return co_fail(op, "more than %d GPU architectures in one process",
                 CO_MAX_ARCHS);
}

/* Primary context, kernels (g_lock held). */
static diopiError_t set_up(const char *op, const cu_driver_t *driver,
                           struct co_device *dev, int ordinal) {
  CUdevice device;
  int major = 0, minor = 0;
  CUresult r = driver->device_get(&device, ordinal);
  if (r == CUDA_SUCCESS)
    r = driver->primary_ctx_retain(&dev->context, device);
  if (r == CUDA_SUCCESS)
    r = driver->ctx_set_current(dev->context);
  if (r == CUDA_SUCCESS)
    r = driver->device_get_attribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  if (r == CUDA_SUCCESS)
    r = driver->device_get_attribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  if (r != CUDA_SUCCESS)
    return driver_failed(op, driver, r, "CUDA device setup");
  char arch[16];
  snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
  const char *image = NULL;
  diopiError_t e = image_for(op, arch, &image);
  if (e)
    return e;
  CUmodule module; /* stays loaded for the process */
  if ((r = driver->module_load_data(&module, image)) != CUDA_SUCCESS)
    return driver_failed(op, driver, r, "cuModuleLoadData (the kernels)");
  for (int k = 0; k < CO_K_COUNT; k++)
    if ((r = driver->module_get_function(&dev->functions[k], module,
                                         co_kernel_names[k])) != CUDA_SUCCESS)
      return driver_failed(op, driver, r, co_kernel_names[k]);
  dev->ordinal = ordinal;
  pthread_mutex_init(&dev->cublas_lock, NULL);
  atomic_store(&dev->ready, true);
  return diopiSuccess;
}

static diopiError_t device_ready(const char *op, const cu_driver_t *driver,
                                 int ordinal, struct co_device **out) {
  if (ordinal < 0 || ordinal >= CO_MAX_DEVICES)
    return co_fail(op, "cuda device %d: at most %d devices", ordinal,
                   CO_MAX_DEVICES);
  struct co_device *dev = &g_devices[ordinal];
  diopiError_t e = diopiSuccess;
  if (!atomic_load(&dev->ready)) {
    pthread_mutex_lock(&g_lock);
    if (!atomic_load(&dev->ready))
      e = set_up(op, driver, dev, ordinal);
    pthread_mutex_unlock(&g_lock);
  }
  *out = dev;
  return e;
}

static diopiError_t check_devices(const char *op, bp_device_t *device,
                                  const co_view_t *const *views, int count) {
  for (int i = 0; i < count; i++) {
    if (!views[i] || views[i]->device == device)
      continue;
    return co_fail(op, "%s: %s memory, but the context's device is %s",
                   views[i]->name,
                   views[i]->device ? bp_device_name(views[i]->device) : "host",
                   bp_device_name(device));
  }
  return diopiSuccess;
}

diopiError_t co_begin(diopiContextHandle_t ctx, const char *op,
                      const co_view_t *const *views, int count,
                      co_exec_t *out) {
  bp_device_t *device = ctx ? bp_ops_context_device(ctx) : NULL;
  bp_stream_t *stream = ctx ? bp_ops_context_stream(ctx) : NULL;
  if (!device || !stream)
    return co_fail(op, "ctx: no device or stream (a NULL or foreign context)");
  if (strcmp(bp_device_type(device), "cuda") != 0)
    return co_fail(op,
                   "ctx: device %s is not a cuda device (this library serves "
                   "the cuda plugin's devices)",
                   bp_device_name(device));
  diopiError_t e = check_devices(op, device, views, count);
  if (e)
    return e;
  void *native = NULL;
  if (bp_ops_native_stream(stream, &native) != BP_OK)
    return co_fail(op, "ctx: %s", bp_last_error());
  const cu_driver_t *driver = cu_driver();
  if (!driver)
    return co_fail(op, "%s", cu_last_error());
  struct co_device *dev = NULL;
  if ((e = device_ready(op, driver, (int)bp_device_index(device), &dev)))
    return e;
  CUresult r = driver->ctx_set_current(dev->context);
  if (r != CUDA_SUCCESS)
    return driver_failed(op, driver, r, "cuCtxSetCurrent");
  *out = (co_exec_t){.op = op, .ctx = ctx, .dev = dev, .stream = native};
  return diopiSuccess;
}

diopiError_t co_launch_blocks(const co_exec_t *x, co_kernel_t kernel,
                              unsigned blocks, const void *args) {
  if (blocks == 0)
    return diopiSuccess;
  const cu_driver_t *driver = cu_driver();
  void *params[] = {(void *)args};
  CUresult r =
      driver->launch_kernel(x->dev->functions[kernel], blocks, 1, 1, CO_BLOCK,
                            1, 1, 0, (CUstream)x->stream, params, NULL);
  return r == CUDA_SUCCESS
             ? diopiSuccess
             : driver_failed(x->op, driver, r, co_kernel_names[kernel]);
}

diopiError_t co_launch(const co_exec_t *x, co_kernel_t kernel,
                       long long elements, const void *args) {
  long long blocks = (elements + CO_BLOCK - 1) / CO_BLOCK;
  return co_launch_blocks(
      x, kernel, (unsigned)(blocks < CO_MAX_GRID ? blocks : CO_MAX_GRID), args);
}

diopiError_t co_scratch(const co_exec_t *x, size_t bytes, void **out) {
  diopiTensorHandle_t buffer;
  *out = NULL;
  if (bytes == 0)
    return diopiSuccess;
  if (diopiRequireBuffer(x->ctx, &buffer, (int64_t)bytes, diopi_device) !=
          diopiSuccess ||
      diopiGetTensorData(buffer, out) != diopiSuccess)
    return co_fail(x->op, "no device memory for %zu bytes of scratch: %s",
                   bytes, bp_last_error());
  return diopiSuccess;
}

diopiError_t co_cublas_begin(const co_exec_t *x, void **out_handle) {
  const char *reason = NULL;
  const co_cublas_t *cublas = co_cublas(&reason);
  if (!cublas)
    return co_fail(x->op, "%s", reason);
  pthread_mutex_lock(&x->dev->cublas_lock);
  co_cublas_status_t s = 0;
  if (!x->dev->cublas)
    s = cublas->create(&x->dev->cublas);
  if (!s)
    s = cublas->set_stream(x->dev->cublas, x->stream);
  if (s) {
    pthread_mutex_unlock(&x->dev->cublas_lock);
    return co_fail(
        x->op, "cuBLAS setup on cuda device %d: %s (%d)", x->dev->ordinal,
        cublas->status_string ? cublas->status_string(s) : "error", s);
  }
  *out_handle = x->dev->cublas;
  return diopiSuccess;
}

void co_cublas_end(const co_exec_t *x) {
  pthread_mutex_unlock(&x->dev->cublas_lock);
}
