/* Modules: formats, NVRTC for CUDA C, cuModuleLoadData, functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_internal.h"
#include "nvrtc_compile.h"

/* Reads a whole file; C_ERROR naming it when it cannot be read. */
static C_Status read_file(const char *path, char **out, size_t *out_size) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return cu_fail(C_ERROR, "cuda module_load_file: cannot open %s", path);
  char *data = NULL;
  long size = -1;
  if (fseek(file, 0, SEEK_END) == 0 && (size = ftell(file)) >= 0 &&
      fseek(file, 0, SEEK_SET) == 0 && (data = malloc((size_t)size + 1)) &&
      fread(data, 1, (size_t)size, file) != (size_t)size) {
    free(data);
    data = NULL;
  }
  fclose(file);
  if (!data)
    return cu_fail(C_ERROR, "cuda module_load_file: cannot read %s", path);
  *out = data;
  *out_size = (size_t)size;
  return C_SUCCESS;
}

/* The image cuModuleLoadData takes for bytes of `format`: what NVRTC
 * makes of CUDA C for `arch`, a NUL-terminated copy of PTX, the bytes
 * themselves otherwise (*owned is then NULL). */
static C_Status module_image(const char *arch, int32_t format, const void *data,
                             size_t size, const void **image, char **owned) {
  *owned = NULL;
  *image = data;
  if (format == CU_MODULE_KIND_CUDA_C) {
    size_t image_size = 0;
    C_Status status =
        cu_nvrtc_compile(data, size, "module.cu", arch, owned, &image_size);
    *image = *owned;
    return status;
  }
  if (format == CU_MODULE_KIND_PTX) {
    *owned = malloc(size + 1);
    if (!*owned)
      return cu_fail(C_FAILED, "out of host memory");
    memcpy(*owned, data, size);
    (*owned)[size] = '\0';
    *image = *owned;
  }
  return C_SUCCESS;
}

/* The module's function names: a generated module's functions, else the
 * kernels, where the driver can list them. */
static C_Status list_names(const cu_driver_t *driver,
                           struct BP_KernelModule_st *module) {
  if (module->generated.function_count) {
    module->names =
        calloc(module->generated.function_count, sizeof *module->names);
    if (!module->names)
      return cu_fail(C_FAILED, "out of host memory");
    for (size_t f = 0; f < module->generated.function_count; ++f)
      module->names[f] = module->generated.functions[f].name;
    module->name_count = module->generated.function_count;
    return C_SUCCESS;
  }
  unsigned count = 0;
  if (!driver->module_get_function_count ||
      !driver->module_enumerate_functions || !driver->func_get_name ||
      driver->module_get_function_count(&count, module->module) !=
          CUDA_SUCCESS ||
      count == 0)
    return C_SUCCESS; /* reported as 0 functions; lookups by name work */
  CUfunction *functions = calloc(count, sizeof *functions);
  module->names = calloc(count, sizeof *module->names);
  if (!functions || !module->names) {
    free(functions);
    return cu_fail(C_FAILED, "out of host memory");
  }
  if (driver->module_enumerate_functions(functions, count, module->module) ==
      CUDA_SUCCESS) {
    for (unsigned i = 0; i < count; ++i)
      if (driver->func_get_name(&module->names[module->name_count],
                                functions[i]) == CUDA_SUCCESS)
        module->name_count++;
  }
  free(functions);
  return C_SUCCESS;
}

/* A generated module's descriptor and the architecture it compiles for on
 * `dev`; otherwise the device's own, and `generated` stays empty. */
static C_Status read_generated(const cu_device_t *dev, int32_t format,
                               const void *data, size_t size,
                               cu_generated_module_t *generated, char *arch,
                               size_t capacity) {
  memset(generated, 0, sizeof *generated);
  if (format != CU_MODULE_KIND_CUDA_C || !cu_generated_source(data, size)) {
    snprintf(arch, capacity, "%s", dev->arch);
    return C_SUCCESS;
  }
  C_Status status = cu_generated_parse(data, size, generated);
  if (status == C_SUCCESS)
    status = cu_generated_arch(generated->arch, dev->arch, arch, capacity);
  if (status != C_SUCCESS)
    cu_generated_free(generated);
  return status;
}

C_Status cu_module_load_data(const C_Device device, const void *data,
                             size_t size, int32_t kind,
                             BP_KernelModule *out_module) {
  (void)kind; /* the bytes say what they are */
  if (!data || !size || !out_module)
    return cu_fail(C_ERROR, "cuda module_load_data: %s",
                   !out_module ? "out_module is NULL"
                               : "data is NULL or empty");
  int32_t format = cu_module_format(data, size);
  if (format == 0)
    return cu_unsupported(
        "cuda: a module must be CUDA C, PTX, a cubin or a fatbin (%zu bytes "
        "that are none of them; host shared objects do not run on a GPU)",
        size);
  cu_device_t *dev = cu_device_enter(device);
  if (!dev)
    return C_ERROR;
  const cu_driver_t *driver = cu_driver();
  if (!driver)
    return C_FAILED;
  struct BP_KernelModule_st *module = calloc(1, sizeof *module);
  if (!module)
    return cu_fail(C_FAILED, "out of host memory");
  char arch[32];
  C_Status status = read_generated(dev, format, data, size, &module->generated,
                                   arch, sizeof arch);
  const void *image = NULL;
  char *owned = NULL;
  if (status == C_SUCCESS)
    status = module_image(arch, format, data, size, &image, &owned);
  CUresult r = CUDA_SUCCESS;
  if (status == C_SUCCESS &&
      (r = driver->module_load_data(&module->module, image)) != CUDA_SUCCESS)
    status = cu_fail_driver(driver, r, "cuModuleLoadData");
  free(owned);
  if (status != C_SUCCESS) {
    cu_generated_free(&module->generated);
    free(module);
    return status;
  }
  module->dev = dev;
  pthread_mutex_init(&module->lock, NULL);
  status = list_names(driver, module);
  if (status != C_SUCCESS) {
    cu_module_unload(device, module);
    return status;
  }
  *out_module = module;
  return C_SUCCESS;
}

C_Status cu_module_load_file(const C_Device device, const char *path,
                             int32_t kind, BP_KernelModule *out_module) {
  if (!path)
    return cu_fail(C_ERROR, "cuda module_load_file: path is NULL");
  char *data = NULL;
  size_t size = 0;
  C_Status status = read_file(path, &data, &size);
  if (status == C_SUCCESS)
    status = cu_module_load_data(device, data, size, kind, out_module);
  free(data);
  return status;
}

C_Status cu_module_unload(const C_Device device, BP_KernelModule module) {
  cu_device_t *dev = cu_device_enter(device);
  if (!dev || !module || module->dev != dev)
    return dev ? cu_fail(C_ERROR,
                         "cuda module_unload: not a module of "
                         "CUDA device %d",
                         dev->id)
               : C_ERROR;
  const cu_driver_t *driver = cu_driver();
  CUresult r = driver ? driver->module_unload(module->module) : CUDA_SUCCESS;
  for (struct BP_KernelFunction_st *f = module->functions, *next; f; f = next) {
    next = f->next;
    free(f->stages);
    free(f);
  }
  pthread_mutex_destroy(&module->lock);
  free(module->names);
  cu_generated_free(&module->generated);
  free(module);
  return r == CUDA_SUCCESS ? C_SUCCESS
                           : cu_fail_driver(driver, r, "cuModuleUnload");
}

/* How many parameters `function` takes (up to 3) and the size of the last;
 * 0 when the driver cannot say. */
static unsigned count_params(const cu_driver_t *driver, CUfunction function,
                             size_t *last_size) {
  unsigned count = 0;
  size_t offset = 0, size = 0;
  *last_size = 0;
  while (driver->func_get_param_info && count < 3 &&
         driver->func_get_param_info(function, count, &offset, &size) ==
             CUDA_SUCCESS) {
    ++count;
    *last_size = size;
  }
  return count;
}

C_Status cu_kernel_find(const cu_driver_t *driver,
                        const struct BP_KernelModule_st *module,
                        const char *name, cu_kernel_t *out) {
  CUfunction function = NULL;
  int max_threads = 0;
  CUresult r = driver->module_get_function(&function, module->module, name);
  if (r == CUDA_ERROR_NOT_FOUND)
    return cu_fail(C_FAILED,
                   "cuda: the module has no kernel %s (is it extern \"C\"?)",
                   name);
  if (r != CUDA_SUCCESS)
    return cu_fail_driver(driver, r, "cuModuleGetFunction");
  r = driver->func_get_attribute(
      &max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
  if (r != CUDA_SUCCESS)
    return cu_fail_driver(driver, r, "cuFuncGetAttribute");
  out->function = function;
  out->threads = max_threads > 0 && max_threads < CU_BLOCK_THREADS
                     ? (unsigned)max_threads
                     : CU_BLOCK_THREADS;
  out->params = count_params(driver, function, &out->last_param_size);
  return C_SUCCESS;
}

/* A new function object for kernel `name` of an ordinary module. */
static C_Status kernel_function(const cu_driver_t *driver,
                                struct BP_KernelModule_st *module,
                                const char *name,
                                struct BP_KernelFunction_st **out) {
  cu_kernel_t kernel;
  C_Status status = cu_kernel_find(driver, module, name, &kernel);
  if (status != C_SUCCESS)
    return status;
  struct BP_KernelFunction_st *function =
      calloc(1, sizeof *function + strlen(name) + 1);
  if (!function)
    return cu_fail(C_FAILED, "out of host memory");
  function->kernel = kernel;
  strcpy(function->name, name);
  *out = function;
  return C_SUCCESS;
}

C_Status cu_module_get_function(const C_Device device, BP_KernelModule module,
                                const char *name,
                                BP_KernelFunction *out_function) {
  cu_device_t *dev = cu_device_enter(device);
  if (!dev || !module || module->dev != dev || !name || !out_function)
    return dev ? cu_fail(C_ERROR,
                         "cuda module_get_function: expected a "
                         "module of device %d, a name and an "
                         "out-pointer",
                         dev->id)
               : C_ERROR;
  const cu_driver_t *driver = cu_driver();
  if (!driver)
    return C_FAILED;
  pthread_mutex_lock(&module->lock);
  struct BP_KernelFunction_st *found = module->functions;
  while (found && strcmp(found->name, name) != 0)
    found = found->next;
  C_Status status = C_SUCCESS;
  if (!found) {
    status = module->generated.function_count
                 ? cu_generated_function(driver, module, name, &found)
                 : kernel_function(driver, module, name, &found);
    if (status == C_SUCCESS) {
      found->module = module;
      found->next = module->functions;
      module->functions = found;
    }
  }
  pthread_mutex_unlock(&module->lock);
  if (status == C_SUCCESS)
    *out_function = found;
  return status;
}

C_Status cu_module_function_names(const C_Device device, BP_KernelModule module,
                                  const char **names, size_t capacity,
                                  size_t *out_count) {
  cu_device_t *dev = cu_device_get(device);
  if (!dev || !module || module->dev != dev || !out_count ||
      (capacity && !names))
    return dev ? cu_fail(C_ERROR, "cuda module_function_names: bad module "
                                  "or out-pointers")
               : C_ERROR;
  for (size_t i = 0; i < module->name_count && i < capacity; ++i)
    names[i] = module->names[i];
  *out_count = module->name_count;
  return C_SUCCESS;
}
