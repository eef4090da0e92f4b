/* libcublas, opened at run time. */
#include "co_cublas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static co_cublas_t g_cublas;
static const co_cublas_t *g_loaded;
static char g_reason[512];

#define CO_RESOLVE(field, name)                                                \
  ((*(void **)&g_cublas.field = dlsym(library, name)) != NULL)

static void load(void) {
  static const char *const names[] = {"libcublas.so.13", "libcublas.so.12",
                                      "libcublas.so"};
  void *library = NULL; /* never closed: CUDA libraries do not unload */
  for (size_t i = 0; !library && i < sizeof names / sizeof names[0]; i++)
    library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(g_reason, sizeof g_reason,
             "cuBLAS (libcublas.so.13 or .12) cannot be opened: %s", dlerror());
    return;
  }
  if (!(CO_RESOLVE(create, "cublasCreate_v2") &&
        CO_RESOLVE(set_stream, "cublasSetStream_v2") &&
        CO_RESOLVE(sgemm, "cublasSgemm_v2") &&
        CO_RESOLVE(sgemm_strided_batched, "cublasSgemmStridedBatched"))) {
    snprintf(g_reason, sizeof g_reason,
             "cuBLAS lacks cublasCreate_v2, cublasSetStream_v2, "
             "cublasSgemm_v2 or cublasSgemmStridedBatched");
    return;
  }
  (void)CO_RESOLVE(status_string, "cublasGetStatusString");
  g_loaded = &g_cublas;
}

const co_cublas_t *co_cublas(const char **out_reason) {
  pthread_once(&g_once, load);
  *out_reason = g_reason;
  return g_loaded;
}
