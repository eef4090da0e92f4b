/* The thread-local message and the CUDA error mapping. */
#include "cu.h"

#include <stdarg.h>
#include <stdio.h>

#include "backplane/status.h"

static _Thread_local char t_message[4096]; /* room for an NVRTC log */
static _Thread_local int32_t t_status;

static void format_message(const char *format, va_list args) {
  vsnprintf(t_message, sizeof t_message, format, args);
}

C_Status cu_fail(C_Status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  format_message(format, args);
  va_end(args);
  t_status = 0;
  return status;
}

C_Status cu_unsupported(const char *format, ...) {
  va_list args;
  va_start(args, format);
  format_message(format, args);
  va_end(args);
  t_status = BP_ERR_UNSUPPORTED;
  return C_ERROR;
}

C_Status cu_fail_cuda(cudaError_t error, const char *what) {
  return cu_fail(cu_status_of(error), "%s: %s (%s)", what,
                 cudaGetErrorName(error), cudaGetErrorString(error));
}

const char *cu_last_error(void) {
  return t_message;
}

int32_t cu_last_status(void) {
  return t_status;
}

C_Status cu_status_of(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return C_SUCCESS;
  case cudaErrorMemoryAllocation:
    return C_FAILED;
  case cudaErrorInvalidValue:
  case cudaErrorInvalidDevicePointer:
  case cudaErrorInvalidResourceHandle:
  case cudaErrorInvalidMemcpyDirection:
  case cudaErrorInvalidDevice:
    return C_ERROR;
  default:
    return C_INTERNAL_ERROR;
  }
}
