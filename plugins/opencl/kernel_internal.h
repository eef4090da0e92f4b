/* What the kernel files share (internal to kernel_*.c). */
#ifndef BACKPLANE_OPENCL_KERNEL_INTERNAL_H_
#define BACKPLANE_OPENCL_KERNEL_INTERNAL_H_

#include <pthread.h>

#include "kernel.h"

/* The timeout of a launch or notify wait that names none: HCCL's
 * 27 * 68 s, as backplane/kernel.h. */
#define OCL_DEFAULT_TIMEOUT_NS (27ull * 68u * 1000000000u)

/* One function of a generated module (kernel_generated.c): the kernels one
 * launch runs in order, and the layout of its parameter block. */
typedef struct ocl_generated_stage {
  char *kernel;
  uint64_t items; /* work-items it needs: one per output element */
} ocl_generated_stage_t;

typedef struct ocl_generated_function {
  char *name;
  size_t param_count;     /* device pointers at the head of the param block */
  uint64_t *param_bytes;  /* the tensor each one points at, in bytes */
  uint64_t scratch_bytes; /* intermediate stages, allocated per launch */
  size_t stage_count;
  ocl_generated_stage_t *stages;
} ocl_generated_function_t;

struct BP_KernelFunction_st {
  struct BP_KernelModule_st *module;
  /* A generated function: its descriptor and stage kernels (each an
   * ordinary function of the module's program); kernel is NULL. */
  const ocl_generated_function_t *generated;
  struct BP_KernelFunction_st **stages;
  cl_kernel kernel;
  pthread_mutex_t lock; /* clSetKernelArg .. clEnqueueNDRangeKernel */
  cl_uint arg_count;
  bool svm_pointers_set; /* CL_KERNEL_EXEC_INFO_SVM_PTRS is not empty */
  size_t local_size;     /* work-items per work-group */
  struct BP_KernelFunction_st *next;
  char name[];
};

struct BP_KernelModule_st {
  ocl_device_t *dev;
  cl_program program;
  char *name_text; /* CL_PROGRAM_KERNEL_NAMES, split in place at ';' */
  const char **names;
  size_t name_count;
  pthread_mutex_t lock; /* functions */
  struct BP_KernelFunction_st *functions;
  /* Source the opencl builder generated (BP_OPENCL_GENERATED_MARKER): its
   * functions, which `names` lists instead of the program's kernels. */
  ocl_generated_function_t *generated;
  size_t generated_count;
};

/* A function for kernel `name` of the module's program (not listed in the
 * module); ocl_function_destroy frees it and its stages. */
C_Status ocl_function_create(struct BP_KernelModule_st *module,
                             const char *name,
                             struct BP_KernelFunction_st **out);
void ocl_function_destroy(struct BP_KernelFunction_st *function);

/* Generated modules (kernel_generated.c). */
bool ocl_generated_source(const void *data, size_t size);
/* Reads the descriptor lines of `source` into module->generated and
 * module->names; C_ERROR naming the line when one is malformed. */
C_Status ocl_generated_parse(struct BP_KernelModule_st *module,
                             const char *source, size_t size);
void ocl_generated_free(struct BP_KernelModule_st *module);
/* The generated function `name` with its stage kernels. */
C_Status ocl_generated_function(struct BP_KernelModule_st *module,
                                const char *name,
                                struct BP_KernelFunction_st **out);
/* One launch of a generated function: every stage on the stream in order,
 * each tracked like a launch. */
C_Status ocl_generated_launch(ocl_device_t *dev, struct C_Stream_st *stream,
                              struct BP_KernelFunction_st *function,
                              const void *args, size_t args_size,
                              uint64_t timeout_ns, const char *label);

/* Keeps `done` (owned from here) on the stream with its deadline, for
 * synchronize_stream and the sticky errors. */
C_Status ocl_launch_track(struct C_Stream_st *stream, cl_event done,
                          uint64_t timeout_ns, const char *kernel,
                          const char *label);

C_Status ocl_module_load_file(const C_Device device, const char *path,
                              int32_t kind, BP_KernelModule *out_module);
C_Status ocl_module_load_data(const C_Device device, const void *data,
                              size_t size, int32_t kind,
                              BP_KernelModule *out_module);
C_Status ocl_module_unload(const C_Device device, BP_KernelModule module);
C_Status ocl_module_get_function(const C_Device device, BP_KernelModule module,
                                 const char *name,
                                 BP_KernelFunction *out_function);
C_Status ocl_module_function_names(const C_Device device,
                                   BP_KernelModule module, const char **names,
                                   size_t capacity, size_t *out_count);
C_Status ocl_launch(const C_Device device, C_Stream stream,
                    BP_KernelFunction function, uint32_t blocks,
                    const void *args, size_t args_size,
                    const BP_LaunchConfig *config, const char *label);
C_Status ocl_kernel_stream_error(const C_Device device, C_Stream stream,
                                 int32_t *out_status, char *message,
                                 size_t capacity);
C_Status ocl_kernel_stream_reset(const C_Device device, C_Stream stream);

/* Leaves `kernels` (a stream's) the sticky `status` with the message, unless
 * it holds one already. Thread-safe. */
void ocl_stream_kernels_fail(struct ocl_stream_kernels *kernels, int32_t status,
                             const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Notifies (kernel_notify.c): host-side record and wait on streams. */
C_Status ocl_notify_create(const C_Device device, BP_Notify *out_notify);
C_Status ocl_notify_destroy(const C_Device device, BP_Notify notify);
C_Status ocl_notify_id(const C_Device device, BP_Notify notify,
                       uint32_t *out_id);
C_Status ocl_notify_record(const C_Device device, C_Stream stream,
                           BP_Notify notify);
C_Status ocl_notify_wait(const C_Device device, C_Stream stream,
                         BP_Notify notify, uint64_t timeout_ns);

#endif /* BACKPLANE_OPENCL_KERNEL_INTERNAL_H_ */
