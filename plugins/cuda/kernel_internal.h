/* What the kernel files share (internal to kernel*.c). */
#ifndef BACKPLANE_CUDA_KERNEL_INTERNAL_H_
#define BACKPLANE_CUDA_KERNEL_INTERNAL_H_

#include <pthread.h>

#include "driver.h"
#include "generated_module.h"
#include "kernel.h"
#include "module_format.h"

/* A kernel of the module and the threads per block it launches with. */
typedef struct cu_kernel {
  CUfunction function;
  unsigned threads; /* CU_BLOCK_THREADS, or the kernel's maximum if lower */
  unsigned params;  /* parameters (0 when the driver cannot tell) */
  size_t last_param_size; /* bytes */
} cu_kernel_t;

struct BP_KernelFunction_st {
  struct BP_KernelModule_st *module;
  cu_kernel_t kernel; /* unused for a generated function */
  /* A generated function: its descriptor, and its stage kernels in run
   * order; NULL otherwise. */
  const cu_generated_function_t *generated;
  cu_kernel_t *stages;
  struct BP_KernelFunction_st *next;
  char name[];
};

struct BP_KernelModule_st {
  cu_device_t *dev;
  CUmodule module;
  /* The driver's strings (valid while loaded), or for a generated module
   * its functions' names. */
  const char **names;
  size_t name_count;
  pthread_mutex_t lock; /* functions */
  struct BP_KernelFunction_st *functions;
  /* Source the cuda builder generated (BP_CUDA_GENERATED_MARKER): its
   * functions, which are all get_function finds; empty otherwise. */
  cu_generated_module_t generated;
};

/* Kernel `name` of `module`: C_FAILED naming it when the module has none. */
C_Status cu_kernel_find(const cu_driver_t *driver,
                        const struct BP_KernelModule_st *module,
                        const char *name, cu_kernel_t *out);

/* The generated function `name` of a generated module, with its stage
 * kernels (kernel_generated.c); the caller lists and frees it. */
C_Status cu_generated_function(const cu_driver_t *driver,
                               struct BP_KernelModule_st *module,
                               const char *name,
                               struct BP_KernelFunction_st **out);
/* One launch of a generated function: every stage on the stream in order,
 * each on min(blocks, what its elements need) blocks, with the scratch
 * allocated and freed in stream order. */
C_Status cu_generated_launch(const cu_driver_t *driver,
                             struct C_Stream_st *stream,
                             const struct BP_KernelFunction_st *function,
                             uint32_t blocks, const void *args,
                             size_t args_size);

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
