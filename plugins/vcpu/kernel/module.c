/* Modules: shared objects dlopen'ed RTLD_NOW | RTLD_LOCAL (from a file, or
 * from bytes through a memfd), their exported functions, and the device API
 * pointer every module that includes kernel_device.h carries. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device.h"
#include "kernels.h"

static pthread_mutex_t g_functions_lock = PTHREAD_MUTEX_INITIALIZER;

void vk_module_retain(struct BP_KernelModule_st *module) {
  atomic_fetch_add_explicit(&module->refs, 1, memory_order_relaxed);
}

void vk_module_release(struct BP_KernelModule_st *module) {
  if (atomic_fetch_sub_explicit(&module->refs, 1, memory_order_acq_rel) != 1)
    return;
  dlclose(module->handle);
  if (module->memfd >= 0)
    close(module->memfd);
  for (size_t i = 0; i < module->name_count; ++i)
    free(module->names[i]);
  free(module->names);
  while (module->functions) {
    struct BP_KernelFunction_st *next = module->functions->next;
    free(module->functions);
    module->functions = next;
  }
  free(module);
}

/* Lists the image's functions from the open file `fd`. */
static C_Status list_functions(int fd, const char *path,
                               struct BP_KernelModule_st *module) {
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size <= 0)
    return vk_fail(C_ERROR, "%s: cannot stat: %s", path, strerror(errno));
  void *image = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (image == MAP_FAILED)
    return vk_fail(C_FAILED, "%s: cannot map: %s", path, strerror(errno));
  bool elf = vk_elf_functions(image, (size_t)st.st_size, &module->names,
                              &module->name_count);
  munmap(image, (size_t)st.st_size);
  return elf ? C_SUCCESS
             : vk_fail(C_ERROR, "%s: not an ELF64 shared object", path);
}

/* dlopens `open_path` (a file, or /proc/self/fd/N) and wires it up. */
static C_Status open_module(const char *open_path, const char *shown_path,
                            int fd, int memfd, BP_KernelModule *out_module) {
  struct BP_KernelModule_st *module = calloc(1, sizeof *module);
  if (!module)
    return vk_fail(C_FAILED, "%s: out of memory", shown_path);
  module->memfd = memfd;
  atomic_init(&module->refs, 1);
  C_Status status = list_functions(fd, shown_path, module);
  if (status == C_SUCCESS) {
    dlerror();
    module->handle = dlopen(open_path, RTLD_NOW | RTLD_LOCAL);
    if (!module->handle) {
      const char *why = dlerror();
      status = vk_fail(C_ERROR, "%s: dlopen failed: %s", shown_path,
                       why ? why : "unknown error");
    }
  }
  if (status != C_SUCCESS) {
    for (size_t i = 0; i < module->name_count; ++i)
      free(module->names[i]);
    free(module->names);
    free(module);
    return status;
  }
  const bp_kernel_device_api_t **api =
      dlsym(module->handle, BP_KERNEL_DEVICE_API_SYMBOL);
  if (api)
    *api = &vk_device_api;
  *out_module = module;
  return C_SUCCESS;
}

C_Status vk_module_load_file(const C_Device device, const char *path,
                             int32_t kind, BP_KernelModule *out_module) {
  if (!vcpu_device_get(device) || !path || !out_module)
    return vk_fail(C_ERROR, "module_load_file: bad device, path or out_module");
  if (kind != BP_MODULE_KIND_SHARED_OBJECT)
    return vk_fail(C_ERROR, "%s: module kind %d is not a shared object", path,
                   (int)kind);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return vk_fail(C_ERROR, "%s: cannot open: %s", path, strerror(errno));
  C_Status status = open_module(path, path, fd, -1, out_module);
  close(fd);
  return status;
}

C_Status vk_module_load_data(const C_Device device, const void *data,
                             size_t size, int32_t kind,
                             BP_KernelModule *out_module) {
  if (!vcpu_device_get(device) || !data || !size || !out_module)
    return vk_fail(C_ERROR, "module_load_data: bad device, data or out_module");
  if (kind != BP_MODULE_KIND_SHARED_OBJECT)
    return vk_fail(C_ERROR, "module_load_data: kind %d is not a shared object",
                   (int)kind);
  int fd = memfd_create("backplane-vcpu-module", MFD_CLOEXEC);
  if (fd < 0)
    return vk_fail(C_FAILED, "module_load_data: memfd_create: %s",
                   strerror(errno));
  const unsigned char *bytes = data;
  for (size_t done = 0; done < size;) {
    ssize_t n = write(fd, bytes + done, size - done);
    if (n <= 0) {
      close(fd);
      return vk_fail(C_FAILED, "module_load_data: write: %s", strerror(errno));
    }
    done += (size_t)n;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  C_Status status =
      open_module(path, "module_load_data image", fd, fd, out_module);
  if (status != C_SUCCESS)
    close(fd);
  return status;
}

C_Status vk_module_unload(const C_Device device, BP_KernelModule module) {
  if (!vcpu_device_get(device) || !module)
    return vk_fail(C_ERROR, "module_unload: bad device or module");
  vk_module_release(module);
  return C_SUCCESS;
}

C_Status vk_module_get_function(const C_Device device, BP_KernelModule module,
                                const char *name,
                                BP_KernelFunction *out_function) {
  if (!vcpu_device_get(device) || !module || !name || !out_function)
    return vk_fail(C_ERROR, "module_get_function: bad argument");
  pthread_mutex_lock(&g_functions_lock);
  struct BP_KernelFunction_st *function = module->functions;
  while (function && strcmp(function->name, name) != 0)
    function = function->next;
  C_Status status = C_SUCCESS;
  if (!function) {
    void *symbol = dlsym(module->handle, name);
    size_t n = strlen(name);
    function = symbol ? malloc(sizeof *function + n + 1) : NULL;
    if (!symbol)
      status = vk_fail(C_FAILED, "no symbol \"%s\" in the module", name);
    else if (!function)
      status = vk_fail(C_FAILED, "out of memory");
    if (function) {
      function->module = module;
      memcpy(&function->fn, &symbol, sizeof function->fn);
      memcpy(function->name, name, n + 1);
      function->next = module->functions;
      module->functions = function;
    }
  }
  pthread_mutex_unlock(&g_functions_lock);
  if (status == C_SUCCESS)
    *out_function = function;
  return status;
}

C_Status vk_module_function_names(const C_Device device, BP_KernelModule module,
                                  const char **names, size_t capacity,
                                  size_t *out_count) {
  if (!vcpu_device_get(device) || !module || !out_count || (capacity && !names))
    return vk_fail(C_ERROR, "module_function_names: bad argument");
  for (size_t i = 0; i < capacity && i < module->name_count; ++i)
    names[i] = module->names[i];
  *out_count = module->name_count;
  return C_SUCCESS;
}
