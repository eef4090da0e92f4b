#include "bench_opencl.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_timing.h"

/* The OpenCL types and entry points used, as the ICD loader exports them
 * (OpenCL 1.2/2.0 signatures; handles are opaque pointers). */
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_bitfield;
typedef struct cl_opaque *cl_handle;

enum {
  CL_SUCCESS = 0,
  CL_DEVICE_NAME = 0x102B,
  CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE = 0x11B3,
};
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define CL_MEM_READ_WRITE 1u

#define BENCH_OPENCL_FUNCTIONS(X)                                              \
  X(cl_int, clGetPlatformIDs, (cl_uint, cl_handle *, cl_uint *))               \
  X(cl_int, clGetDeviceIDs,                                                    \
    (cl_handle, cl_bitfield, cl_uint, cl_handle *, cl_uint *))                 \
  X(cl_int, clGetDeviceInfo, (cl_handle, cl_uint, size_t, void *, size_t *))   \
  X(cl_handle, clCreateContext,                                                \
    (const intptr_t *, cl_uint, const cl_handle *, void *, void *, cl_int *))  \
  X(cl_handle, clCreateCommandQueueWithProperties,                             \
    (cl_handle, cl_handle, const cl_bitfield *, cl_int *))                     \
  X(cl_handle, clCreateBuffer,                                                 \
    (cl_handle, cl_bitfield, size_t, void *, cl_int *))                        \
  X(cl_int, clEnqueueCopyBuffer,                                               \
    (cl_handle, cl_handle, cl_handle, size_t, size_t, size_t, cl_uint,         \
     const cl_handle *, cl_handle *))                                          \
  X(cl_int, clEnqueueMarkerWithWaitList,                                       \
    (cl_handle, cl_uint, const cl_handle *, cl_handle *))                      \
  X(cl_handle, clCreateProgramWithSource,                                      \
    (cl_handle, cl_uint, const char **, const size_t *, cl_int *))             \
  X(cl_int, clBuildProgram,                                                    \
    (cl_handle, cl_uint, const cl_handle *, const char *, void *, void *))     \
  X(cl_handle, clCreateKernel, (cl_handle, const char *, cl_int *))            \
  X(cl_int, clGetKernelWorkGroupInfo,                                          \
    (cl_handle, cl_handle, cl_uint, size_t, void *, size_t *))                 \
  X(cl_int, clEnqueueNDRangeKernel,                                            \
    (cl_handle, cl_handle, cl_uint, const size_t *, const size_t *,            \
     const size_t *, cl_uint, const cl_handle *, cl_handle *))                 \
  X(cl_int, clReleaseKernel, (cl_handle))                                      \
  X(cl_int, clReleaseProgram, (cl_handle))                                     \
  X(cl_int, clFinish, (cl_handle))                                             \
  X(cl_int, clReleaseEvent, (cl_handle))                                       \
  X(cl_int, clReleaseMemObject, (cl_handle))                                   \
  X(cl_int, clReleaseCommandQueue, (cl_handle))                                \
  X(cl_int, clReleaseContext, (cl_handle))

struct bench_opencl {
  bench_ctx_t *ctx;
  void *loader;
#define BENCH_OPENCL_FIELD(ret, name, args) ret(*name) args;
  BENCH_OPENCL_FUNCTIONS(BENCH_OPENCL_FIELD)
#undef BENCH_OPENCL_FIELD
  cl_handle device, context, queue, src, dst;
  cl_handle program, empty_kernel; /* built on first use */
  size_t empty_local;              /* its preferred work-group multiple */
  size_t bytes;
  char name[128];
};

bool bench_opencl_wanted(const bench_ctx_t *ctx) {
  return ctx->plugin_name && strcmp(ctx->plugin_name, "opencl") == 0;
}

static bench_opencl_t *fail(bench_opencl_t *cl, const char *what,
                            cl_int error) {
  fprintf(stderr, "bench %s: OpenCL directly: %s failed (%d)\n", cl->ctx->bench,
          what, (int)error);
  bench_opencl_close(cl);
  return NULL;
}

static bool load(bench_opencl_t *cl) {
  cl->loader = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cl->loader)
    return false;
#define BENCH_OPENCL_LOAD(ret, name, args)                                     \
  *(void **)&cl->name = dlsym(cl->loader, #name);                              \
  if (!cl->name)                                                               \
    return false;
  BENCH_OPENCL_FUNCTIONS(BENCH_OPENCL_LOAD)
#undef BENCH_OPENCL_LOAD
  return true;
}

/* The first device of the first platform that has one. */
static cl_handle first_device(bench_opencl_t *cl) {
  cl_handle platforms[16];
  cl_uint count = 0;
  if (cl->clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS)
    return NULL;
  for (cl_uint p = 0; p < count && p < 16; p++) {
    cl_handle device = NULL;
    cl_uint devices = 0;
    if (cl->clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &device,
                           &devices) == CL_SUCCESS &&
        devices > 0)
      return device;
  }
  return NULL;
}

bench_opencl_t *bench_opencl_open(bench_ctx_t *ctx, size_t bytes) {
  bench_opencl_t *cl = calloc(1, sizeof *cl);
  if (!cl) {
    bench_error(ctx, "OpenCL directly", BP_ERR_OUT_OF_MEMORY);
    return NULL;
  }
  cl->ctx = ctx;
  cl->bytes = bytes;
  if (!load(cl))
    return fail(cl, "loading libOpenCL.so.1", 0);
  cl_handle device = cl->device = first_device(cl);
  if (!device)
    return fail(cl, "finding a device", 0);
  cl->clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof cl->name, cl->name, NULL);
  cl_int error = CL_SUCCESS;
  cl->context = cl->clCreateContext(NULL, 1, &device, NULL, NULL, &error);
  if (!cl->context)
    return fail(cl, "clCreateContext", error);
  cl->queue =
      cl->clCreateCommandQueueWithProperties(cl->context, device, NULL, &error);
  if (!cl->queue)
    return fail(cl, "clCreateCommandQueueWithProperties", error);
  cl->src =
      cl->clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
  if (cl->src)
    cl->dst =
        cl->clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes, NULL, &error);
  if (!cl->dst)
    return fail(cl, "clCreateBuffer", error);
  return cl;
}

void bench_opencl_close(bench_opencl_t *cl) {
  if (!cl)
    return;
  if (cl->queue)
    cl->clFinish(cl->queue);
  if (cl->empty_kernel)
    cl->clReleaseKernel(cl->empty_kernel);
  if (cl->program)
    cl->clReleaseProgram(cl->program);
  if (cl->dst)
    cl->clReleaseMemObject(cl->dst);
  if (cl->src)
    cl->clReleaseMemObject(cl->src);
  if (cl->queue)
    cl->clReleaseCommandQueue(cl->queue);
  if (cl->context)
    cl->clReleaseContext(cl->context);
  /* The loader stays open: closing it with vendor state allocated leaks
   * (the plugin pins it too). */
  free(cl);
}

const char *bench_opencl_device_name(const bench_opencl_t *cl) {
  return cl->name;
}

double bench_opencl_copy_ns(bench_opencl_t *cl, size_t bytes) {
  uint64_t start = cli_now_ns();
  cl_int error = cl->clEnqueueCopyBuffer(cl->queue, cl->src, cl->dst, 0, 0,
                                         bytes, 0, NULL, NULL);
  if (error == CL_SUCCESS)
    error = cl->clFinish(cl->queue);
  uint64_t elapsed = cli_now_ns() - start;
  return error == CL_SUCCESS ? (double)(elapsed ? elapsed : 1) : 0;
}

double bench_opencl_marker_ns(bench_opencl_t *cl) {
  cl_handle event = NULL;
  uint64_t start = cli_now_ns();
  cl_int error = cl->clEnqueueMarkerWithWaitList(cl->queue, 0, NULL, &event);
  if (error == CL_SUCCESS)
    error = cl->clFinish(cl->queue);
  uint64_t elapsed = cli_now_ns() - start;
  if (event)
    cl->clReleaseEvent(event);
  return error == CL_SUCCESS ? (double)(elapsed ? elapsed : 1) : 0;
}

/* Builds `kernel void empty_kernel(void) {}` once. */
static bool build_empty_kernel(bench_opencl_t *cl) {
  if (cl->empty_kernel)
    return true;
  static const char *source = "kernel void empty_kernel(void) {}\n";
  cl_int error = CL_SUCCESS;
  cl->program =
      cl->clCreateProgramWithSource(cl->context, 1, &source, NULL, &error);
  if (cl->program)
    error = cl->clBuildProgram(cl->program, 1, &cl->device, "", NULL, NULL);
  if (error == CL_SUCCESS)
    cl->empty_kernel = cl->clCreateKernel(cl->program, "empty_kernel", &error);
  cl->empty_local = 1;
  if (cl->empty_kernel)
    cl->clGetKernelWorkGroupInfo(cl->empty_kernel, cl->device,
                                 CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                 sizeof cl->empty_local, &cl->empty_local,
                                 NULL);
  if (cl->empty_local == 0)
    cl->empty_local = 1;
  if (!cl->empty_kernel)
    fprintf(stderr,
            "bench %s: OpenCL directly: building the empty kernel "
            "failed (%d)\n",
            cl->ctx->bench, (int)error);
  return cl->empty_kernel != NULL;
}

double bench_opencl_enqueue_rate(bench_opencl_t *cl, size_t count) {
  if (!build_empty_kernel(cl))
    return 0;
  size_t global = cl->empty_local, local = cl->empty_local;
  cl_int error = CL_SUCCESS;
  uint64_t start = cli_now_ns();
  for (size_t i = 0; i < count && error == CL_SUCCESS; i++)
    error = cl->clEnqueueNDRangeKernel(cl->queue, cl->empty_kernel, 1, NULL,
                                       &global, &local, 0, NULL, NULL);
  uint64_t elapsed = cli_now_ns() - start;
  if (error == CL_SUCCESS)
    error = cl->clFinish(cl->queue);
  return error == CL_SUCCESS
             ? (double)count * 1e3 / (double)(elapsed ? elapsed : 1)
             : 0;
}

double bench_opencl_empty_launch_ns(bench_opencl_t *cl) {
  if (!build_empty_kernel(cl))
    return 0;
  size_t global = cl->empty_local, local = cl->empty_local;
  uint64_t start = cli_now_ns();
  cl_int error = cl->clEnqueueNDRangeKernel(
      cl->queue, cl->empty_kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  if (error == CL_SUCCESS)
    error = cl->clFinish(cl->queue);
  uint64_t elapsed = cli_now_ns() - start;
  return error == CL_SUCCESS ? (double)(elapsed ? elapsed : 1) : 0;
}
