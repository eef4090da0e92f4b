/* libcuda.so.1, opened at run time. */
#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "cu.h"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static cu_driver_t g_driver;
static const cu_driver_t *g_loaded;
static char g_reason[256];

static void *symbol(void *library, const char *name) {
  return dlsym(library, name);
}

#define CU_RESOLVE(field, name)                                                \
  ((*(void **)&g_driver.field = symbol(library, name)) != NULL)

static void load(void) {
  /* Never closed: the driver cannot be unloaded cleanly. */
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(g_reason, sizeof g_reason,
             "the CUDA driver (libcuda.so.1) cannot be opened: %s", dlerror());
    return;
  }
  if (!(CU_RESOLVE(module_load_data, "cuModuleLoadData") &&
        CU_RESOLVE(module_unload, "cuModuleUnload") &&
        CU_RESOLVE(module_get_function, "cuModuleGetFunction") &&
        CU_RESOLVE(launch_kernel, "cuLaunchKernel") &&
        CU_RESOLVE(func_get_attribute, "cuFuncGetAttribute") &&
        CU_RESOLVE(get_error_string, "cuGetErrorString") &&
        CU_RESOLVE(device_get, "cuDeviceGet") &&
        CU_RESOLVE(device_get_attribute, "cuDeviceGetAttribute") &&
        CU_RESOLVE(primary_ctx_retain, "cuDevicePrimaryCtxRetain") &&
        CU_RESOLVE(ctx_set_current, "cuCtxSetCurrent"))) {
    snprintf(g_reason, sizeof g_reason,
             "the CUDA driver (libcuda.so.1) lacks a module function");
    return;
  }
  (void)CU_RESOLVE(module_get_function_count, "cuModuleGetFunctionCount");
  (void)CU_RESOLVE(module_enumerate_functions, "cuModuleEnumerateFunctions");
  (void)CU_RESOLVE(func_get_name, "cuFuncGetName");
  (void)CU_RESOLVE(func_get_param_info, "cuFuncGetParamInfo");
  g_loaded = &g_driver;
}

const cu_driver_t *cu_driver(void) {
  pthread_once(&g_once, load);
  if (!g_loaded)
    cu_fail(C_FAILED, "%s", g_reason);
  return g_loaded;
}

C_Status cu_fail_driver(const cu_driver_t *driver, CUresult error,
                        const char *what) {
  const char *text = NULL;
  if (driver->get_error_string(error, &text) != CUDA_SUCCESS || !text)
    text = "unknown CUDA driver error";
  C_Status status = error == CUDA_ERROR_OUT_OF_MEMORY ? C_FAILED
                    : error == CUDA_ERROR_INVALID_VALUE ||
                            error == CUDA_ERROR_INVALID_IMAGE ||
                            error == CUDA_ERROR_NOT_FOUND
                        ? C_ERROR
                        : C_INTERNAL_ERROR;
  return cu_fail(status, "%s: %s (CUresult %d)", what, text, (int)error);
}
