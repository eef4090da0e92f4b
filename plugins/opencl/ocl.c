/* OpenCL error names and the thread-local message. */
#include "ocl.h"

#include <stdarg.h>
#include <stdio.h>

#include "backplane/status.h"

static _Thread_local char t_message[1024];
static _Thread_local int32_t t_status; /* ocl_last_status */

const char *ocl_error_name(cl_int error) {
  switch (error) {
#define OCL_NAME(code)                                                         \
  case code:                                                                   \
    return #code;
    OCL_NAME(CL_SUCCESS)
    OCL_NAME(CL_DEVICE_NOT_FOUND)
    OCL_NAME(CL_DEVICE_NOT_AVAILABLE)
    OCL_NAME(CL_COMPILER_NOT_AVAILABLE)
    OCL_NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    OCL_NAME(CL_OUT_OF_RESOURCES)
    OCL_NAME(CL_OUT_OF_HOST_MEMORY)
    OCL_NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    OCL_NAME(CL_MEM_COPY_OVERLAP)
    OCL_NAME(CL_BUILD_PROGRAM_FAILURE)
    OCL_NAME(CL_MAP_FAILURE)
    OCL_NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    OCL_NAME(CL_COMPILE_PROGRAM_FAILURE)
    OCL_NAME(CL_LINK_PROGRAM_FAILURE)
    OCL_NAME(CL_INVALID_VALUE)
    OCL_NAME(CL_INVALID_DEVICE_TYPE)
    OCL_NAME(CL_INVALID_PLATFORM)
    OCL_NAME(CL_INVALID_DEVICE)
    OCL_NAME(CL_INVALID_CONTEXT)
    OCL_NAME(CL_INVALID_QUEUE_PROPERTIES)
    OCL_NAME(CL_INVALID_COMMAND_QUEUE)
    OCL_NAME(CL_INVALID_HOST_PTR)
    OCL_NAME(CL_INVALID_MEM_OBJECT)
    OCL_NAME(CL_INVALID_BINARY)
    OCL_NAME(CL_INVALID_BUILD_OPTIONS)
    OCL_NAME(CL_INVALID_PROGRAM)
    OCL_NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    OCL_NAME(CL_INVALID_KERNEL_NAME)
    OCL_NAME(CL_INVALID_KERNEL_DEFINITION)
    OCL_NAME(CL_INVALID_KERNEL)
    OCL_NAME(CL_INVALID_ARG_INDEX)
    OCL_NAME(CL_INVALID_ARG_VALUE)
    OCL_NAME(CL_INVALID_ARG_SIZE)
    OCL_NAME(CL_INVALID_KERNEL_ARGS)
    OCL_NAME(CL_INVALID_WORK_DIMENSION)
    OCL_NAME(CL_INVALID_WORK_GROUP_SIZE)
    OCL_NAME(CL_INVALID_WORK_ITEM_SIZE)
    OCL_NAME(CL_INVALID_GLOBAL_OFFSET)
    OCL_NAME(CL_INVALID_EVENT_WAIT_LIST)
    OCL_NAME(CL_INVALID_EVENT)
    OCL_NAME(CL_INVALID_OPERATION)
    OCL_NAME(CL_INVALID_BUFFER_SIZE)
    OCL_NAME(CL_INVALID_GLOBAL_WORK_SIZE)
    OCL_NAME(CL_INVALID_PROPERTY)
    OCL_NAME(CL_PLATFORM_NOT_FOUND_KHR)
#undef OCL_NAME
  default: {
    static _Thread_local char unknown[32];
    snprintf(unknown, sizeof unknown, "CL error %d", (int)error);
    return unknown;
  }
  }
}

C_Status ocl_fail(C_Status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(t_message, sizeof t_message, format, args);
  va_end(args);
  t_status = 0;
  return status;
}

C_Status ocl_unsupported(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(t_message, sizeof t_message, format, args);
  va_end(args);
  t_status = BP_ERR_UNSUPPORTED;
  return C_ERROR;
}

const char *ocl_last_error(void) {
  return t_message;
}

int32_t ocl_last_status(void) {
  return t_status;
}

C_Status ocl_status_of(cl_int error) {
  switch (error) {
  case CL_SUCCESS:
    return C_SUCCESS;
  case CL_MEM_OBJECT_ALLOCATION_FAILURE:
  case CL_OUT_OF_RESOURCES:
  case CL_OUT_OF_HOST_MEMORY:
  case CL_INVALID_BUFFER_SIZE:
    return C_FAILED;
  case CL_INVALID_VALUE:
  case CL_INVALID_MEM_OBJECT:
  case CL_INVALID_EVENT:
  case CL_INVALID_COMMAND_QUEUE:
  case CL_MEM_COPY_OVERLAP:
    return C_ERROR;
  default:
    return C_INTERNAL_ERROR;
  }
}
