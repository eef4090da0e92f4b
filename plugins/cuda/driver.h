/* The few CUDA driver API functions the kernels extension and the op
 * library (ops/) need (modules, launches, primary contexts), resolved from
 * libcuda.so.1 with dlopen at first use, so the plugin links and loads on
 * machines without the driver. Modules load into the device's primary context,
 * which the runtime API makes current (cudaSetDevice) before each driver call.
 */
#ifndef BACKPLANE_CUDA_DRIVER_H_
#define BACKPLANE_CUDA_DRIVER_H_

#include <cuda.h>

#include "backplane/device_ext.h"

typedef struct cu_driver {
  CUresult (*module_load_data)(CUmodule *module, const void *image);
  CUresult (*module_unload)(CUmodule module);
  CUresult (*module_get_function)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*launch_kernel)(CUfunction function, unsigned grid_x,
                            unsigned grid_y, unsigned grid_z, unsigned block_x,
                            unsigned block_y, unsigned block_z,
                            unsigned shared_bytes, CUstream stream,
                            void **params, void **extra);
  CUresult (*func_get_attribute)(int *value, CUfunction_attribute attribute,
                                 CUfunction function);
  CUresult (*get_error_string)(CUresult error, const char **text);
  CUresult (*device_get)(CUdevice *device, int ordinal);
  CUresult (*device_get_attribute)(int *value, CUdevice_attribute attribute,
                                   CUdevice device);
  CUresult (*primary_ctx_retain)(CUcontext *context, CUdevice device);
  CUresult (*ctx_set_current)(CUcontext context);
  /* CUDA 12.4 and later; NULL on older drivers (no function names). */
  CUresult (*module_get_function_count)(unsigned *count, CUmodule module);
  CUresult (*module_enumerate_functions)(CUfunction *functions, unsigned count,
                                         CUmodule module);
  CUresult (*func_get_name)(const char **name, CUfunction function);
  /* CUDA 12.4 and later; NULL on older drivers (no status words). */
  CUresult (*func_get_param_info)(CUfunction function, size_t index,
                                  size_t *offset, size_t *size);
} cu_driver_t;

/* The driver table, or NULL (with the reason in cu_last_error) when
 * libcuda.so.1 cannot be opened or lacks a required function. Thread-safe;
 * resolved once. */
const cu_driver_t *cu_driver(void);

/* cu_fail for a failed driver call: "<what>: <cuGetErrorString>". */
C_Status cu_fail_driver(const cu_driver_t *driver, CUresult error,
                        const char *what);

#endif /* BACKPLANE_CUDA_DRIVER_H_ */
