/* Launches: the param block set as argument 0 and the NDRange enqueued under
 * the function's lock (OpenCL copies the argument at the enqueue); each
 * launch's completion event and deadline kept on its stream, which
 * synchronize_stream waits for; the sticky stream errors. */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backplane/status.h"
#include "kernel_internal.h"

/* Largest param block: kernel.h's BP_LAUNCH_MAX_ARGS. */
enum { OCL_MAX_ARGS = 4096 };
/* How long a wait for a launch yields before it sleeps. */
#define OCL_SPIN_NS 200000u

typedef struct pending_launch {
  cl_event done;
  uint64_t deadline_ns;
  uint64_t timeout_ns;
  char what[160]; /* "kernel K (op L)" */
} pending_launch_t;

struct ocl_stream_kernels {
  pthread_mutex_t lock;
  pending_launch_t *pending; /* in enqueue order */
  size_t count, capacity;
  int32_t status; /* sticky bp_status_t, 0 while healthy */
  char message[768];
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct ocl_stream_kernels *ocl_stream_kernels_create(void) {
  struct ocl_stream_kernels *kernels = calloc(1, sizeof *kernels);
  if (kernels)
    pthread_mutex_init(&kernels->lock, NULL);
  return kernels;
}

void ocl_stream_kernels_destroy(struct ocl_stream_kernels *kernels) {
  if (!kernels)
    return;
  for (size_t i = 0; i < kernels->count; ++i)
    clReleaseEvent(kernels->pending[i].done);
  free(kernels->pending);
  pthread_mutex_destroy(&kernels->lock);
  free(kernels);
}

static cl_int state_of(cl_event event) {
  cl_int state = CL_QUEUED;
  cl_int error = clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                sizeof state, &state, NULL);
  return error == CL_SUCCESS ? state : error;
}

static void fail_locked(struct ocl_stream_kernels *kernels, int32_t status,
                        const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_locked(struct ocl_stream_kernels *kernels, int32_t status,
                        const char *format, ...) {
  if (kernels->status != 0)
    return;
  kernels->status = status;
  va_list args;
  va_start(args, format);
  vsnprintf(kernels->message, sizeof kernels->message, format, args);
  va_end(args);
}

void ocl_stream_kernels_fail(struct ocl_stream_kernels *kernels, int32_t status,
                             const char *format, ...) {
  pthread_mutex_lock(&kernels->lock);
  if (kernels->status == 0) {
    kernels->status = status;
    va_list args;
    va_start(args, format);
    vsnprintf(kernels->message, sizeof kernels->message, format, args);
    va_end(args);
  }
  pthread_mutex_unlock(&kernels->lock);
}

/* Drops the first `n` records; a record of a failed command first becomes
 * the sticky error. */
static void retire_locked(struct ocl_stream_kernels *kernels, size_t n) {
  if (n == 0)
    return; /* nothing to drop; `pending` may still be NULL */
  for (size_t i = 0; i < n; ++i) {
    cl_int state = state_of(kernels->pending[i].done);
    if (state < 0)
      fail_locked(kernels, BP_ERR_PLUGIN, "%s failed on the device: %s",
                  kernels->pending[i].what, ocl_error_name(state));
    clReleaseEvent(kernels->pending[i].done);
  }
  kernels->count -= n;
  memmove(kernels->pending, kernels->pending + n,
          kernels->count * sizeof *kernels->pending);
}

/* Retires the completed launches at the front. */
static void prune_locked(struct ocl_stream_kernels *kernels) {
  size_t n = 0;
  while (n < kernels->count) {
    cl_int state = state_of(kernels->pending[n].done);
    if (state != CL_COMPLETE && state >= 0)
      break;
    ++n;
  }
  retire_locked(kernels, n);
}

/* Polls `done` until it completes or fails (true) or `deadline_ns` passes
 * (false): yielding for the first OCL_SPIN_NS (a short kernel ends within
 * it, and a sleep would cost more than the kernel), then sleeping with
 * backoff. Takes no lock: launches on the stream go on meanwhile. */
static bool wait_until(cl_event done, uint64_t deadline_ns) {
  uint64_t spin_until = now_ns() + OCL_SPIN_NS;
  for (long sleep_ns = 20000;;) {
    cl_int state = state_of(done);
    if (state == CL_COMPLETE || state < 0)
      return true;
    uint64_t now = now_ns();
    if (now >= deadline_ns)
      return false;
    if (now < spin_until) {
      sched_yield();
      continue;
    }
    struct timespec nap = {0, sleep_ns};
    nanosleep(&nap, NULL);
    if (sleep_ns < 1000000)
      sleep_ns *= 2;
  }
}

bool ocl_stream_kernels_wait(struct C_Stream_st *stream) {
  struct ocl_stream_kernels *kernels = stream->kernels;
  pthread_mutex_lock(&kernels->lock);
  bool timed_out = false;
  while (kernels->count && !timed_out) {
    pending_launch_t head = kernels->pending[0];
    clRetainEvent(head.done);
    pthread_mutex_unlock(&kernels->lock);
    bool ended = wait_until(head.done, head.deadline_ns);
    pthread_mutex_lock(&kernels->lock);
    if (!ended) {
      fail_locked(kernels, BP_ERR_TIMEOUT,
                  "%s passed its timeout of %llu ms on %s; OpenCL cannot "
                  "cancel it, so it runs on and later work of the stream "
                  "waits for it",
                  head.what, (unsigned long long)(head.timeout_ns / 1000000u),
                  stream->dev->name);
      timed_out = true;
    }
    /* Another waiter may have retired it meanwhile. */
    if (kernels->count && kernels->pending[0].done == head.done)
      retire_locked(kernels, 1);
    clReleaseEvent(head.done);
  }
  pthread_mutex_unlock(&kernels->lock);
  return timed_out;
}

bool ocl_stream_kernels_failed(struct C_Stream_st *stream) {
  pthread_mutex_lock(&stream->kernels->lock);
  bool failed = stream->kernels->status != 0;
  pthread_mutex_unlock(&stream->kernels->lock);
  return failed;
}

/* SVM path: the device pointers in the param block, for
 * CL_KERNEL_EXEC_INFO_SVM_PTRS. Buffer path: unsupported (ocl_unsupported)
 * if it holds one. */
static C_Status pointers_in(ocl_device_t *dev, const char *kernel,
                            const void *args, size_t args_size, void **pointers,
                            size_t *out_count) {
  size_t count = 0;
  C_Status status = C_SUCCESS;
  pthread_mutex_lock(&dev->memory_lock);
  for (size_t at = 0; at + sizeof(uint64_t) <= args_size;
       at += sizeof(uint64_t)) {
    uint64_t word;
    memcpy(&word, (const char *)args + at, sizeof word);
    if (!word || !ocl_allocations_find(&dev->allocations, (uintptr_t)word, 1))
      continue;
    if (!dev->svm) {
      status = ocl_unsupported(
          "launch %s on %s: the param block holds device "
          "pointer %#llx at byte %zu, but this device uses the "
          "buffer memory path, whose cl_mem objects cannot ride "
          "inside a by-value struct (device pointers in "
          "arguments need SVM)",
          kernel, dev->name, (unsigned long long)word, at);
      break;
    }
    pointers[count++] = (void *)(uintptr_t)word;
  }
  pthread_mutex_unlock(&dev->memory_lock);
  *out_count = count;
  return status;
}

C_Status ocl_launch_track(struct C_Stream_st *stream, cl_event done,
                          uint64_t timeout_ns, const char *kernel,
                          const char *label) {
  struct ocl_stream_kernels *kernels = stream->kernels;
  pthread_mutex_lock(&kernels->lock);
  prune_locked(kernels);
  if (kernels->count == kernels->capacity) {
    size_t capacity = kernels->capacity ? kernels->capacity * 2 : 16;
    pending_launch_t *grown =
        realloc(kernels->pending, capacity * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&kernels->lock);
      clReleaseEvent(done);
      return ocl_fail(C_FAILED, "launch %s: out of host memory", kernel);
    }
    kernels->pending = grown;
    kernels->capacity = capacity;
  }
  pending_launch_t *launch = &kernels->pending[kernels->count++];
  launch->done = done;
  launch->timeout_ns = timeout_ns;
  uint64_t now = now_ns();
  launch->deadline_ns =
      timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
  snprintf(launch->what, sizeof launch->what, "kernel %s (op %s)", kernel,
           label ? label : kernel);
  pthread_mutex_unlock(&kernels->lock);
  return C_SUCCESS;
}

C_Status ocl_launch(const C_Device device, C_Stream handle,
                    BP_KernelFunction function, uint32_t blocks,
                    const void *args, size_t args_size,
                    const BP_LaunchConfig *config, const char *label) {
  ocl_device_t *dev = ocl_device_get(device);
  struct C_Stream_st *stream = ocl_stream_of(dev, handle);
  if (!stream)
    return C_ERROR;
  if (!function || blocks == 0 || (args_size && !args))
    return ocl_fail(C_ERROR, "launch: no function, no blocks or NULL args");
  if (function->module->dev != dev)
    return ocl_fail(C_ERROR, "launch %s: the function belongs to %s, not %s",
                    function->name, function->module->dev->name, dev->name);
  bool has_timeout =
      config && config->struct_size >=
                    offsetof(BP_LaunchConfig, timeout_ns) + sizeof(uint64_t);
  uint64_t timeout_ns = has_timeout && config->timeout_ns
                            ? config->timeout_ns
                            : OCL_DEFAULT_TIMEOUT_NS;

  if (function->generated)
    return ocl_generated_launch(dev, stream, function, args, args_size,
                                timeout_ns, label);
  if (function->arg_count > 1 || (function->arg_count == 1) != (args_size > 0))
    return ocl_fail(C_ERROR,
                    "launch %s: the kernel takes %u arguments and the param "
                    "block has %zu bytes; a kernel takes nothing, or one "
                    "by-value struct matching the param block",
                    function->name, function->arg_count, args_size);
  size_t local = function->local_size;
  if ((size_t)blocks > SIZE_MAX / local)
    return ocl_fail(C_ERROR, "launch %s: %u blocks of %zu work-items overflow",
                    function->name, blocks, local);
  size_t global = (size_t)blocks * local;
  void *pointers[OCL_MAX_ARGS / sizeof(void *)];
  size_t pointer_count = 0;
  if (args_size > sizeof pointers)
    return ocl_fail(C_ERROR, "launch %s: a %zu-byte param block is over %zu",
                    function->name, args_size, sizeof pointers);
  C_Status status = pointers_in(dev, function->name, args, args_size, pointers,
                                &pointer_count);
  if (status != C_SUCCESS)
    return status;
  cl_event done = NULL;
  const char *step = "clSetKernelArg";
  pthread_mutex_lock(&function->lock);
  cl_int error = CL_SUCCESS;
  if (args_size)
    error = clSetKernelArg(function->kernel, 0, args_size, args);
  /* The kernel keeps its SVM pointer list between launches: an empty list
   * need not be set again (an empty launch stays one enqueue). */
  if (error == CL_SUCCESS && dev->svm &&
      (pointer_count || function->svm_pointers_set)) {
    step = "clSetKernelExecInfo";
    error = clSetKernelExecInfo(function->kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS,
                                pointer_count * sizeof *pointers,
                                pointer_count ? pointers : NULL);
    if (error == CL_SUCCESS)
      function->svm_pointers_set = pointer_count > 0;
  }
  if (error == CL_SUCCESS) {
    step = "clEnqueueNDRangeKernel";
    error = clEnqueueNDRangeKernel(stream->queue, function->kernel, 1, NULL,
                                   &global, &local, 0, NULL, &done);
  }
  pthread_mutex_unlock(&function->lock);
  if (error != CL_SUCCESS)
    return ocl_fail(ocl_status_of(error) == C_FAILED ? C_FAILED : C_ERROR,
                    "launch %s on %s: %s: %s%s", function->name, dev->name,
                    step, ocl_error_name(error),
                    error == CL_INVALID_ARG_SIZE
                        ? " (the param block's size is not the size of the "
                          "kernel's struct argument)"
                        : "");
  clFlush(stream->queue);
  return ocl_launch_track(stream, done, timeout_ns, function->name, label);
}

C_Status ocl_kernel_stream_error(const C_Device device, C_Stream handle,
                                 int32_t *out_status, char *message,
                                 size_t capacity) {
  struct C_Stream_st *stream = ocl_stream_of(ocl_device_get(device), handle);
  if (!stream || !out_status)
    return C_ERROR;
  struct ocl_stream_kernels *kernels = stream->kernels;
  pthread_mutex_lock(&kernels->lock);
  prune_locked(kernels);
  *out_status = kernels->status;
  if (message && capacity)
    snprintf(message, capacity, "%s", kernels->status ? kernels->message : "");
  pthread_mutex_unlock(&kernels->lock);
  return C_SUCCESS;
}

C_Status ocl_kernel_stream_reset(const C_Device device, C_Stream handle) {
  struct C_Stream_st *stream = ocl_stream_of(ocl_device_get(device), handle);
  if (!stream)
    return C_ERROR;
  pthread_mutex_lock(&stream->kernels->lock);
  stream->kernels->status = 0;
  stream->kernels->message[0] = '\0';
  pthread_mutex_unlock(&stream->kernels->lock);
  return C_SUCCESS;
}
