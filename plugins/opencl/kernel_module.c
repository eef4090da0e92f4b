/* Modules: OpenCL programs built from source, SPIR-V or a binary; their
 * kernels by name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_internal.h"

/* Largest module file read. */
#define OCL_MODULE_MAX_BYTES (64u << 20)

void ocl_function_destroy(struct BP_KernelFunction_st *function) {
  if (!function)
    return;
  for (size_t i = 0; function->stages && function->generated &&
                     i < function->generated->stage_count;
       ++i)
    ocl_function_destroy(function->stages[i]);
  free(function->stages);
  if (function->kernel)
    clReleaseKernel(function->kernel);
  pthread_mutex_destroy(&function->lock);
  free(function);
}

static void free_module(struct BP_KernelModule_st *module) {
  while (module->functions) {
    struct BP_KernelFunction_st *next = module->functions->next;
    ocl_function_destroy(module->functions);
    module->functions = next;
  }
  ocl_generated_free(module);
  if (module->program)
    clReleaseProgram(module->program);
  pthread_mutex_destroy(&module->lock);
  free(module->names);
  free(module->name_text);
  free(module);
}

static bool device_takes_il(const ocl_device_t *dev) {
  char il[256] = "";
  return clGetDeviceInfo(dev->device, CL_DEVICE_IL_VERSION, sizeof il, il,
                         NULL) == CL_SUCCESS &&
         il[0] != '\0';
}

/* A program of `kind` from the bytes, not yet built. */
static C_Status create_program(ocl_device_t *dev, const void *data, size_t size,
                               int32_t kind, cl_program *out_program) {
  cl_int error = CL_SUCCESS;
  cl_program program = NULL;
  switch (kind) {
  case BP_MODULE_KIND_OPENCL_C: {
    const char *text = data;
    program = clCreateProgramWithSource(dev->context, 1, &text, &size, &error);
    break;
  }
  case BP_MODULE_KIND_SPIRV:
    if (!device_takes_il(dev))
      return ocl_fail(C_ERROR,
                      "%s takes no SPIR-V (CL_DEVICE_IL_VERSION is empty); "
                      "load OpenCL C source instead",
                      dev->name);
    program = clCreateProgramWithIL(dev->context, data, size, &error);
    break;
  case BP_MODULE_KIND_OPENCL_BINARY: {
    const unsigned char *binary = data;
    cl_int binary_status = CL_SUCCESS;
    program = clCreateProgramWithBinary(dev->context, 1, &dev->device, &size,
                                        &binary, &binary_status, &error);
    if (program && binary_status != CL_SUCCESS)
      error = binary_status;
    break;
  }
  default:
    return ocl_fail(C_ERROR,
                    "module kind %d is not one %s loads (OpenCL C source %d, "
                    "SPIR-V %d, program binary %d)",
                    (int)kind, dev->name, BP_MODULE_KIND_OPENCL_C,
                    BP_MODULE_KIND_SPIRV, BP_MODULE_KIND_OPENCL_BINARY);
  }
  if (error != CL_SUCCESS) {
    if (program)
      clReleaseProgram(program);
    return ocl_fail(ocl_status_of(error) == C_FAILED ? C_FAILED : C_ERROR,
                    "cannot create a program of kind %d on %s: %s", (int)kind,
                    dev->name, ocl_error_name(error));
  }
  *out_program = program;
  return C_SUCCESS;
}

/* Builds the program; a failure's message carries the build log. */
static C_Status build(ocl_device_t *dev, cl_program program) {
  cl_int error = clBuildProgram(program, 1, &dev->device, "", NULL, NULL);
  if (error == CL_SUCCESS)
    return C_SUCCESS;
  char log[768] = "";
  size_t length = 0;
  clGetProgramBuildInfo(program, dev->device, CL_PROGRAM_BUILD_LOG,
                        sizeof log - 1, log, &length);
  if (length == 0 || length >= sizeof log) {
    /* Too long for the buffer: fetch it whole and keep the start. */
    char *full = length ? malloc(length) : NULL;
    if (full &&
        clGetProgramBuildInfo(program, dev->device, CL_PROGRAM_BUILD_LOG,
                              length, full, NULL) == CL_SUCCESS)
      snprintf(log, sizeof log, "%s", full);
    free(full);
  }
  return ocl_fail(C_ERROR, "building the program for %s failed (%s); log: %s",
                  dev->name, ocl_error_name(error), log[0] ? log : "(empty)");
}

/* Lists the program's kernels into the module. */
static C_Status list_kernels(struct BP_KernelModule_st *module) {
  size_t length = 0;
  cl_int error = clGetProgramInfo(module->program, CL_PROGRAM_KERNEL_NAMES, 0,
                                  NULL, &length);
  module->name_text = error == CL_SUCCESS ? malloc(length + 1) : NULL;
  if (error == CL_SUCCESS && module->name_text)
    error = clGetProgramInfo(module->program, CL_PROGRAM_KERNEL_NAMES, length,
                             module->name_text, NULL);
  if (error != CL_SUCCESS)
    return ocl_fail(C_INTERNAL_ERROR, "CL_PROGRAM_KERNEL_NAMES on %s: %s",
                    module->dev->name, ocl_error_name(error));
  if (!module->name_text)
    return ocl_fail(C_FAILED, "out of host memory");
  module->name_text[length] = '\0';
  module->names = calloc(length / 2 + 1, sizeof *module->names);
  if (!module->names)
    return ocl_fail(C_FAILED, "out of host memory");
  char *save = NULL;
  for (char *name = strtok_r(module->name_text, ";", &save); name;
       name = strtok_r(NULL, ";", &save))
    module->names[module->name_count++] = name;
  return C_SUCCESS;
}

C_Status ocl_module_load_data(const C_Device device, const void *data,
                              size_t size, int32_t kind,
                              BP_KernelModule *out_module) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev || !data || !size || !out_module)
    return ocl_fail(C_ERROR, "module_load_data: bad device, data or "
                             "out_module");
  struct BP_KernelModule_st *module = calloc(1, sizeof *module);
  if (!module)
    return ocl_fail(C_FAILED, "out of host memory");
  module->dev = dev;
  pthread_mutex_init(&module->lock, NULL);
  C_Status status = create_program(dev, data, size, kind, &module->program);
  if (status == C_SUCCESS)
    status = build(dev, module->program);
  if (status == C_SUCCESS)
    status = kind == BP_MODULE_KIND_OPENCL_C && ocl_generated_source(data, size)
                 ? ocl_generated_parse(module, data, size)
                 : list_kernels(module);
  if (status != C_SUCCESS) {
    free_module(module);
    return status;
  }
  *out_module = module;
  return C_SUCCESS;
}

C_Status ocl_module_load_file(const C_Device device, const char *path,
                              int32_t kind, BP_KernelModule *out_module) {
  if (!ocl_device_get(device) || !path || !out_module)
    return ocl_fail(C_ERROR, "module_load_file: bad device, path or "
                             "out_module");
  FILE *file = fopen(path, "rb");
  if (!file)
    return ocl_fail(C_ERROR, "%s: cannot open: %s", path, strerror(errno));
  char *bytes = malloc(OCL_MODULE_MAX_BYTES);
  size_t size = bytes ? fread(bytes, 1, OCL_MODULE_MAX_BYTES, file) : 0;
  bool whole = bytes && feof(file) && !ferror(file);
  fclose(file);
  C_Status status;
  if (!bytes)
    status = ocl_fail(C_FAILED, "%s: out of host memory", path);
  else if (!whole)
    status = ocl_fail(C_ERROR, "%s: unreadable or larger than %u bytes", path,
                      OCL_MODULE_MAX_BYTES);
  else if (size == 0)
    status = ocl_fail(C_ERROR, "%s: empty", path);
  else {
    status = ocl_module_load_data(device, bytes, size, kind, out_module);
    if (status != C_SUCCESS) {
      char reason[1024];
      snprintf(reason, sizeof reason, "%s", ocl_last_error());
      ocl_fail(status, "%s: %s", path, reason);
    }
  }
  free(bytes);
  return status;
}

C_Status ocl_module_unload(const C_Device device, BP_KernelModule module) {
  if (!ocl_device_get(device) || !module)
    return ocl_fail(C_ERROR, "module_unload: bad device or module");
  /* Enqueued launches hold their own references to kernel and program. */
  free_module(module);
  return C_SUCCESS;
}

/* A function for `kernel`: its work-group size and argument count. */
C_Status ocl_function_create(struct BP_KernelModule_st *module,
                             const char *name,
                             struct BP_KernelFunction_st **out) {
  cl_int error = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(module->program, name, &error);
  if (!kernel)
    return ocl_fail(C_FAILED, "no kernel \"%s\" in the program (%s)", name,
                    ocl_error_name(error));
  size_t multiple = 1, largest = 1;
  cl_uint args = 0;
  error = clGetKernelWorkGroupInfo(kernel, module->dev->device,
                                   CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                   sizeof multiple, &multiple, NULL);
  if (error == CL_SUCCESS)
    error = clGetKernelWorkGroupInfo(kernel, module->dev->device,
                                     CL_KERNEL_WORK_GROUP_SIZE, sizeof largest,
                                     &largest, NULL);
  if (error == CL_SUCCESS)
    error =
        clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL);
  size_t n = strlen(name);
  struct BP_KernelFunction_st *function =
      error == CL_SUCCESS ? calloc(1, sizeof *function + n + 1) : NULL;
  if (!function) {
    clReleaseKernel(kernel);
    return error != CL_SUCCESS ? ocl_fail(C_INTERNAL_ERROR, "kernel \"%s\": %s",
                                          name, ocl_error_name(error))
                               : ocl_fail(C_FAILED, "out of host memory");
  }
  function->module = module;
  function->kernel = kernel;
  pthread_mutex_init(&function->lock, NULL);
  function->arg_count = args;
  function->local_size = multiple == 0 ? 1 : multiple;
  if (largest && function->local_size > largest)
    function->local_size = largest;
  memcpy(function->name, name, n + 1);
  *out = function;
  return C_SUCCESS;
}

C_Status ocl_module_get_function(const C_Device device, BP_KernelModule module,
                                 const char *name,
                                 BP_KernelFunction *out_function) {
  if (!ocl_device_get(device) || !module || !name || !out_function)
    return ocl_fail(C_ERROR, "module_get_function: bad argument");
  pthread_mutex_lock(&module->lock);
  struct BP_KernelFunction_st *function = module->functions;
  while (function && strcmp(function->name, name) != 0)
    function = function->next;
  C_Status status = C_SUCCESS;
  if (!function) {
    status = module->generated ? ocl_generated_function(module, name, &function)
                               : ocl_function_create(module, name, &function);
    if (status == C_SUCCESS) {
      function->next = module->functions;
      module->functions = function;
    }
  }
  pthread_mutex_unlock(&module->lock);
  if (status == C_SUCCESS)
    *out_function = function;
  return status;
}

C_Status ocl_module_function_names(const C_Device device,
                                   BP_KernelModule module, const char **names,
                                   size_t capacity, size_t *out_count) {
  if (!ocl_device_get(device) || !module || !out_count || (capacity && !names))
    return ocl_fail(C_ERROR, "module_function_names: bad argument");
  for (size_t i = 0; i < capacity && i < module->name_count; ++i)
    names[i] = module->names[i];
  *out_count = module->name_count;
  return C_SUCCESS;
}
