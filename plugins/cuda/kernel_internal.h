/* What the kernel files share (internal to kernel*.c). */
#ifndef BACKPLANE_CUDA_KERNEL_INTERNAL_H_
#define BACKPLANE_CUDA_KERNEL_INTERNAL_H_

#include <pthread.h>

#include "driver.h"
#include "kernel.h"
#include "module_format.h"

struct BP_KernelFunction_st {
  struct BP_KernelModule_st *module;
  CUfunction function;
  unsigned threads;       /* per block */
  unsigned params;        /* parameters (0 when the driver cannot tell) */
  size_t last_param_size; /* bytes */
  struct BP_KernelFunction_st *next;
  char name[];
};

struct BP_KernelModule_st {
  cu_device_t *dev;
  CUmodule module;
  const char **names; /* the driver's strings, valid while loaded */
  size_t name_count;
  pthread_mutex_t lock; /* functions */
  struct BP_KernelFunction_st *functions;
};

C_Status cu_module_load_file(const C_Device device, const char *path,
                             int32_t kind, BP_KernelModule *out_module);
C_Status cu_module_load_data(const C_Device device, const void *data,
                             size_t size, int32_t kind,
                             BP_KernelModule *out_module);
C_Status cu_module_unload(const C_Device device, BP_KernelModule module);
C_Status cu_module_get_function(const C_Device device, BP_KernelModule module,
                                const char *name,
                                BP_KernelFunction *out_function);
C_Status cu_module_function_names(const C_Device device, BP_KernelModule module,
                                  const char **names, size_t capacity,
                                  size_t *out_count);
C_Status cu_launch(const C_Device device, C_Stream stream,
                   BP_KernelFunction function, uint32_t blocks,
                   const void *args, size_t args_size,
                   const BP_LaunchConfig *config, const char *label);
C_Status cu_kernel_stream_error(const C_Device device, C_Stream stream,
                                int32_t *out_status, char *message,
                                size_t capacity);
C_Status cu_kernel_stream_reset(const C_Device device, C_Stream stream);

#endif /* BACKPLANE_CUDA_KERNEL_INTERNAL_H_ */
