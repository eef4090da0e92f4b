#include "bench_cuda.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/diopi/functions.h"
#include "backplane/ops.h"
#include "cli/cli_private_file.h"
#include "cli/cli_timing.h"

/* The CUDA entry points used, with opaque handles (as the libraries export
 * them; no CUDA header needed). */
typedef int cuda_error_t; /* cudaError_t, CUresult, cublasStatus_t: 0 = ok */
typedef void *cuda_handle;

enum { CUDA_H2D = 1, CUDA_D2H = 2, CUDA_HOST_ALLOC_PORTABLE = 1 };

#define BENCH_CUDART_FUNCTIONS(X)                                              \
  X(cudaSetDevice, (int))                                                      \
  X(cudaFree, (void *))                                                        \
  X(cudaMalloc, (void **, size_t))                                             \
  X(cudaHostAlloc, (void **, size_t, unsigned))                                \
  X(cudaFreeHost, (void *))                                                    \
  X(cudaStreamCreate, (cuda_handle *))                                         \
  X(cudaStreamDestroy, (cuda_handle))                                          \
  X(cudaStreamSynchronize, (cuda_handle))                                      \
  X(cudaMemcpy, (void *, const void *, size_t, int))                           \
  X(cudaMemcpyAsync, (void *, const void *, size_t, int, cuda_handle))
#define BENCH_DRIVER_FUNCTIONS(X)                                              \
  X(cuModuleLoadData, (cuda_handle *, const void *))                           \
  X(cuModuleGetFunction, (cuda_handle *, cuda_handle, const char *))           \
  X(cuModuleUnload, (cuda_handle))                                             \
  X(cuLaunchKernel,                                                            \
    (cuda_handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,  \
     unsigned, cuda_handle, void **, void **))
#define BENCH_CUBLAS_FUNCTIONS(X)                                              \
  X(cublasCreate_v2, (cuda_handle *))                                          \
  X(cublasDestroy_v2, (cuda_handle))                                           \
  X(cublasSetStream_v2, (cuda_handle, cuda_handle))                            \
  X(cublasSgemm_v2,                                                            \
    (cuda_handle, int, int, int, int, int, const float *, const float *, int,  \
     const float *, int, const float *, float *, int))

typedef struct bench_cuda {
  bench_ctx_t *ctx;
  void *cudart, *driver, *cublas;
#define BENCH_CUDA_FIELD(name, args) cuda_error_t(*name) args;
  BENCH_CUDART_FUNCTIONS(BENCH_CUDA_FIELD)
  BENCH_DRIVER_FUNCTIONS(BENCH_CUDA_FIELD)
  BENCH_CUBLAS_FUNCTIONS(BENCH_CUDA_FIELD)
#undef BENCH_CUDA_FIELD
  cuda_handle stream;
} bench_cuda_t;

/* An empty kernel in PTX, which the driver compiles for any GPU from
 * sm_80 up; the plugin loads the same text. Launched as one block of 256
 * threads, as the plugin launches a block. */
static const char empty_ptx[] = ".version 8.0\n"
                                ".target sm_80\n"
                                ".address_size 64\n"
                                ".visible .entry empty_kernel()\n"
                                "{\n"
                                "  ret;\n"
                                "}\n";
enum { BLOCK_THREADS = 256 };

bool bench_cuda_wanted(const bench_ctx_t *ctx) {
  return ctx->plugin_name && strcmp(ctx->plugin_name, "cuda") == 0;
}

static void *open_first(const char *const *names) {
  for (; *names; ++names) {
    void *library = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
    if (library)
      return library;
  }
  return NULL;
}

static void cuda_close(bench_cuda_t *cu) {
  if (cu->stream)
    cu->cudaStreamDestroy(cu->stream);
  /* The libraries stay loaded: CUDA cannot be unloaded cleanly. */
  free(cu);
}

/* Opens libcudart (and, when asked, libcuda and libcublas), makes device 0
 * current and creates a stream. NULL (reported) when one is missing. */
static bench_cuda_t *cuda_open(bench_ctx_t *ctx, bool driver, bool cublas) {
  static const char *const cudart_names[] = {
      "libcudart.so.13", "libcudart.so.12", "libcudart.so", NULL};
  static const char *const driver_names[] = {"libcuda.so.1", NULL};
  static const char *const cublas_names[] = {
      "libcublas.so.13", "libcublas.so.12", "libcublas.so", NULL};
  bench_cuda_t *cu = calloc(1, sizeof *cu);
  if (!cu) {
    bench_error(ctx, "CUDA directly", BP_ERR_OUT_OF_MEMORY);
    return NULL;
  }
  cu->ctx = ctx;
  const char *missing = NULL;
  if (!(cu->cudart = open_first(cudart_names)))
    missing = "libcudart";
  else if (driver && !(cu->driver = open_first(driver_names)))
    missing = "libcuda.so.1";
  else if (cublas && !(cu->cublas = open_first(cublas_names)))
    missing = "libcublas";
#define BENCH_CUDA_LOAD(library, name)                                         \
  if (!missing && !(*(void **)&cu->name = dlsym(cu->library, #name)))          \
    missing = #name;
#define BENCH_CUDART_LOAD(name, args) BENCH_CUDA_LOAD(cudart, name)
#define BENCH_DRIVER_LOAD(name, args) BENCH_CUDA_LOAD(driver, name)
#define BENCH_CUBLAS_LOAD(name, args) BENCH_CUDA_LOAD(cublas, name)
  BENCH_CUDART_FUNCTIONS(BENCH_CUDART_LOAD)
  if (driver) {
    BENCH_DRIVER_FUNCTIONS(BENCH_DRIVER_LOAD)
  }
  if (cublas) {
    BENCH_CUBLAS_FUNCTIONS(BENCH_CUBLAS_LOAD)
  }
#undef BENCH_CUDART_LOAD
#undef BENCH_DRIVER_LOAD
#undef BENCH_CUBLAS_LOAD
#undef BENCH_CUDA_LOAD
  if (!missing && (cu->cudaSetDevice(0) || cu->cudaFree(NULL) ||
                   cu->cudaStreamCreate(&cu->stream)))
    missing = "device 0 (cudaSetDevice/cudaStreamCreate failed)";
  if (missing) {
    fprintf(stderr, "bench %s: CUDA directly: %s is missing\n", ctx->bench,
            missing);
    cuda_close(cu);
    return NULL;
  }
  return cu;
}

enum { COPY_BYTES = 64 << 20, COPY_REPS = 21, LAUNCH_REPS = 2001 };

/* One direction of the copy rows: the plugin and CUDA called directly,
 * interleaved. With a stream, pinned `host` memory on both sides,
 * cudaMemcpyAsync + synchronize; without one, ordinary (pageable) `host`
 * memory, synchronous copies against cudaMemcpy. */
static bp_status_t copy_row(bench_cuda_t *cu, bp_stream_t *stream,
                            void *device_buffer, void *host, size_t bytes,
                            bool to_device) {
  bench_ctx_t *ctx = cu->ctx;
  size_t reps = bench_reps(ctx, COPY_REPS);
  double ours[COPY_REPS + 1], direct[COPY_REPS + 1];
  void *dst = to_device ? device_buffer : host;
  const void *src = to_device ? host : device_buffer;
  int kind = to_device ? CUDA_H2D : CUDA_D2H;
  bp_status_t status = BP_OK;
  for (size_t r = 0; r <= reps && status == BP_OK; r++) { /* 0: warm-up */
    uint64_t start = cli_now_ns();
    status = bp_copy(to_device ? ctx->device : NULL, dst,
                     to_device ? NULL : ctx->device, src, bytes, stream);
    if (status == BP_OK && stream)
      status = bp_stream_synchronize(stream);
    ours[r] = (double)bytes / (double)(cli_now_ns() - start);
    start = cli_now_ns();
    if (stream ? cu->cudaMemcpyAsync(dst, src, bytes, kind, cu->stream) ||
                     cu->cudaStreamSynchronize(cu->stream)
               : cu->cudaMemcpy(dst, src, bytes, kind))
      status = BP_ERR_PLUGIN;
    direct[r] = (double)bytes / (double)(cli_now_ns() - start);
  }
  if (status != BP_OK)
    return bench_error(ctx, "copies against CUDA", status);
  char name[64];
  snprintf(name, sizeof name, "%s %zu MiB %s", to_device ? "h2d" : "d2h",
           bytes >> 20, stream ? "pinned stream" : "pageable sync");
  bench_record(
      ctx, &(bench_result_t){
               .bench_case = name,
               .value = cli_median(ours + 1, reps),
               .unit = "GB/s",
               .baseline = stream ? "cudaMemcpyAsync + cudaStreamSynchronize"
                                  : "cudaMemcpy",
               .baseline_value = cli_median(direct + 1, reps),
               .budget = BENCH_BUDGET_MIN_RATIO,
               .limit = 0.95,
               .budget_text = ">= 95% of CUDA",
           });
  return BP_OK;
}

bp_status_t bench_cuda_copy(bench_ctx_t *ctx) {
  bench_cuda_t *cu = cuda_open(ctx, false, false);
  if (!cu)
    return BP_ERR_UNSUPPORTED;
  size_t bytes = ctx->quick ? (size_t)1 << 20 : (size_t)COPY_BYTES;
  bp_stream_t *stream = NULL;
  void *device_buffer = NULL, *pinned = NULL;
  unsigned char *pageable = malloc(bytes);
  bp_status_t status =
      pageable ? bp_stream_create(ctx->device, &stream) : BP_ERR_OUT_OF_MEMORY;
  if (status == BP_OK)
    status = bp_device_malloc(ctx->device, bytes, &device_buffer);
  if (status == BP_OK)
    status = bp_host_malloc(ctx->device, bytes, &pinned);
  if (status == BP_OK) {
    memset(pinned, 0x5a, bytes);
    memset(pageable, 0x5a, bytes); /* pre-faulted */
  } else {
    bench_error(ctx, "setting up the CUDA copy rows", status);
  }
  for (int row = 0; row < 4 && status == BP_OK; row++)
    status = copy_row(cu, row < 2 ? stream : NULL, device_buffer,
                      row < 2 ? pinned : (void *)pageable, bytes, row % 2 == 0);
  free(pageable);
  bp_host_free(ctx->device, pinned);
  bp_device_free(ctx->device, device_buffer);
  bp_stream_destroy(stream);
  cuda_close(cu);
  return status;
}

/* The empty kernel through the plugin: a PTX module in a private folder
 * (the loader refuses modules in folders others may write to, /tmp's own
 * included), removed once loaded. */
static bp_status_t load_empty_kernel(bench_ctx_t *ctx, bp_module_t **module,
                                     bp_function_t **function) {
  cli_private_file_t ptx;
  if (cli_private_file_write(&ptx, "empty_kernel.ptx", empty_ptx,
                             sizeof empty_ptx - 1) != 0) {
    fprintf(stderr, "bench launch: cannot write the PTX module: %s\n",
            strerror(errno));
    return BP_ERR_INTERNAL;
  }
  bp_status_t status = bp_module_load(ctx->device, ptx.path, module);
  cli_private_file_remove(&ptx);
  if (status == BP_OK)
    status = bp_module_function(*module, "empty_kernel", function);
  return status;
}

bp_status_t bench_cuda_launch(bench_ctx_t *ctx) {
  bench_cuda_t *cu = cuda_open(ctx, true, false);
  if (!cu)
    return BP_ERR_UNSUPPORTED;
  bp_module_t *module = NULL;
  bp_function_t *function = NULL;
  bp_stream_t *stream = NULL;
  cuda_handle cu_module = NULL, cu_function = NULL;
  bp_status_t status = load_empty_kernel(ctx, &module, &function);
  if (status == BP_OK)
    status = bp_stream_create(ctx->device, &stream);
  if (status == BP_OK &&
      (cu->cuModuleLoadData(&cu_module, empty_ptx) ||
       cu->cuModuleGetFunction(&cu_function, cu_module, "empty_kernel")))
    status = BP_ERR_PLUGIN;
  size_t reps = bench_reps(ctx, LAUNCH_REPS);
  double *ours = calloc(reps + 1, sizeof *ours);
  double *direct = calloc(reps + 1, sizeof *direct);
  if (!ours || !direct)
    status = BP_ERR_OUT_OF_MEMORY;
  for (size_t r = 0; r <= reps && status == BP_OK; r++) { /* 0: warm-up */
    uint64_t start = cli_now_ns();
    status = bp_launch(function, 1, NULL, 0, NULL, stream);
    if (status == BP_OK)
      status = bp_stream_synchronize(stream);
    ours[r] = (double)(cli_now_ns() - start);
    start = cli_now_ns();
    if (cu->cuLaunchKernel(cu_function, 1, 1, 1, BLOCK_THREADS, 1, 1, 0,
                           cu->stream, NULL, NULL) ||
        cu->cudaStreamSynchronize(cu->stream))
      status = BP_ERR_PLUGIN;
    direct[r] = (double)(cli_now_ns() - start);
  }
  if (status == BP_OK)
    bench_record(ctx, &(bench_result_t){
                          .bench_case = "empty launch + sync",
                          .value = cli_median(ours + 1, reps),
                          .unit = "ns",
                          .baseline = "cuLaunchKernel + cudaStreamSynchronize",
                          .baseline_value = cli_median(direct + 1, reps),
                          .budget = BENCH_BUDGET_MAX_EXTRA,
                          .limit = 1000,
                          .budget_text = "<= 1 us extra",
                      });
  else
    bench_error(ctx, "empty launch against cuLaunchKernel", status);
  free(ours);
  free(direct);
  if (cu_module)
    cu->cuModuleUnload(cu_module);
  bp_stream_destroy(stream);
  bp_module_unload(module);
  cuda_close(cu);
  return status;
}

enum { GEMM_N = 4096, GEMM_REPS = 11 };

/* The op path's GEMM: diopiMm of the op library the device's plugin names,
 * on a Backplane stream, over tensors from the caching allocator. */
typedef struct op_path {
  bp_ops_library_t *library;
  bp_stream_t *stream;
  diopiContextHandle_t ctx;
  diopiTensorHandle_t a, b, c;
  __typeof__(&diopiMm) mm;
} op_path_t;

static void op_path_close(op_path_t *p) {
  bp_ops_tensor_destroy(p->a);
  bp_ops_tensor_destroy(p->b);
  bp_ops_tensor_destroy(p->c);
  bp_ops_context_destroy(p->ctx);
  bp_stream_destroy(p->stream);
  bp_ops_library_close(p->library);
}

/* a and b hold `host` (n x n); c is the output. */
static bp_status_t op_path_open(bench_ctx_t *ctx, int n, const float *host,
                                op_path_t *p) {
  const char *path = bp_ops_library_for_device(ctx->device);
  if (!path) {
    fprintf(stderr, "bench %s: the %s plugin names no op library\n", ctx->bench,
            ctx->plugin_name);
    return BP_ERR_UNSUPPORTED;
  }
  const int64_t shape[2] = {n, n};
  size_t bytes = (size_t)n * (size_t)n * sizeof(float);
  void *fn = NULL, *a = NULL, *b = NULL;
  bp_status_t status = bp_ops_library_open(path, &p->library);
  if (status == BP_OK)
    status = bp_ops_library_find(p->library, "diopiMm", &fn);
  if (status == BP_OK)
    status = bp_stream_create(ctx->device, &p->stream);
  if (status == BP_OK)
    status = bp_ops_context_create(ctx->device, p->stream, &p->ctx);
  diopiTensorHandle_t *tensors[] = {&p->a, &p->b, &p->c};
  for (size_t i = 0; i < 3 && status == BP_OK; i++)
    status = bp_ops_tensor_create(ctx->device, p->stream, diopi_dtype_float32,
                                  2, shape, tensors[i]);
  if (status == BP_OK && (diopiGetTensorData(p->a, &a) != diopiSuccess ||
                          diopiGetTensorData(p->b, &b) != diopiSuccess))
    status = BP_ERR_INTERNAL;
  if (status == BP_OK)
    status = bp_copy(ctx->device, a, NULL, host, bytes, NULL);
  if (status == BP_OK)
    status = bp_copy(ctx->device, b, NULL, host, bytes, NULL);
  memcpy(&p->mm, &fn, sizeof fn);
  return status;
}

/* One diopiMm + synchronize. */
static bp_status_t op_path_run(op_path_t *p) {
  diopiError_t e = p->mm(p->ctx, p->c, p->a, p->b);
  if (e != diopiSuccess) {
    fprintf(stderr, "diopiMm: %s\n", bp_ops_library_last_error(p->library));
    return bp_ops_status(e);
  }
  return bp_stream_synchronize(p->stream);
}

bp_status_t bench_cuda_ops(bench_ctx_t *ctx) {
  bench_cuda_t *cu = cuda_open(ctx, false, true);
  if (!cu)
    return BP_ERR_UNSUPPORTED;
  int n = ctx->quick ? 256 : GEMM_N;
  size_t bytes = (size_t)n * (size_t)n * sizeof(float);
  float *host = malloc(bytes), *a = NULL, *b = NULL, *c = NULL;
  cuda_handle handle = NULL;
  op_path_t path = {0};
  bp_status_t status = host ? BP_OK : BP_ERR_OUT_OF_MEMORY;
  if (status == BP_OK) {
    srand(7); /* never time on zeros */
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
      host[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    if (cu->cudaMalloc((void **)&a, bytes) ||
        cu->cudaMalloc((void **)&b, bytes) ||
        cu->cudaMalloc((void **)&c, bytes) ||
        cu->cudaMemcpyAsync(a, host, bytes, CUDA_H2D, cu->stream) ||
        cu->cudaMemcpyAsync(b, host, bytes, CUDA_H2D, cu->stream) ||
        cu->cublasCreate_v2(&handle) ||
        cu->cublasSetStream_v2(handle, cu->stream))
      status = BP_ERR_PLUGIN;
  }
  if (status == BP_OK)
    status = op_path_open(ctx, n, host, &path);
  size_t reps = bench_reps(ctx, GEMM_REPS);
  double ours[GEMM_REPS + 1], direct[GEMM_REPS + 1];
  const double flops = 2.0 * n * n * (double)n;
  const float alpha = 1, beta = 0;
  /* Interleaved, each + synchronize; rep 0 warms both up (the op library
   * compiles its kernels and creates its cuBLAS handle there). */
  for (size_t r = 0; r <= reps && status == BP_OK; r++) {
    uint64_t start = cli_now_ns();
    status = op_path_run(&path);
    ours[r] = flops / (double)(cli_now_ns() - start);
    start = cli_now_ns();
    if (status == BP_OK && (cu->cublasSgemm_v2(handle, 0, 0, n, n, n, &alpha, a,
                                               n, b, n, &beta, c, n) ||
                            cu->cudaStreamSynchronize(cu->stream)))
      status = BP_ERR_PLUGIN;
    direct[r] = flops / (double)(cli_now_ns() - start);
  }
  if (status == BP_OK) {
    char name[96];
    snprintf(name, sizeof name, "sgemm %d op path (diopiMm)", n);
    bench_record(ctx, &(bench_result_t){
                          .bench_case = name,
                          .value = cli_median(ours + 1, reps),
                          .unit = "GFLOP/s",
                          .baseline = "cublasSgemm + cudaStreamSynchronize",
                          .baseline_value = cli_median(direct + 1, reps),
                          .budget = BENCH_BUDGET_MIN_RATIO,
                          .limit = 0.90,
                          .budget_text = ">= 90% of cuBLAS",
                      });
  } else {
    bench_error(ctx, "sgemm through the op path against cuBLAS", status);
  }
  op_path_close(&path);
  if (handle)
    cu->cublasDestroy_v2(handle);
  cu->cudaFree(a);
  cu->cudaFree(b);
  cu->cudaFree(c);
  free(host);
  cuda_close(cu);
  return status;
}
