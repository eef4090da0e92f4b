/* The OpenCL headers as the plugin uses them (OpenCL 3.0 API names, 2.0
 * functions such as SVM and clCreateCommandQueueWithProperties, resolved at
 * run time through the ICD loader), and the plugin's error reporting: a
 * thread-local message that the kernels and collectives extensions hand to
 * the host as their last_error. */
#ifndef BACKPLANE_OPENCL_OCL_H_
#define BACKPLANE_OPENCL_OCL_H_

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "backplane/device_ext.h"

/* The CL_* name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or
 * "CL error <n>" for a code this table does not know. Static storage for
 * known codes; the unknown case uses a thread-local buffer. */
const char *ocl_error_name(cl_int error);

/* Formats the calling thread's message and returns `status`, so a failure
 * path reads `return ocl_fail(C_ERROR, "...", ...)`. */
C_Status ocl_fail(C_Status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* ocl_fail for a well-formed request this device cannot do: returns
 * C_ERROR and marks the message BP_ERR_UNSUPPORTED (ocl_last_status), which
 * the kernels extension reports to the host. */
C_Status ocl_unsupported(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/* The calling thread's last message ("" if none). Never NULL. */
const char *ocl_last_error(void);
/* The bp_status_t of the calling thread's last message: BP_ERR_UNSUPPORTED
 * after ocl_unsupported, else 0 (the host maps the C_Status). */
int32_t ocl_last_status(void);

/* How an OpenCL failure maps to the ABI: the allocation failures are
 * C_FAILED (out of memory), invalid arguments C_ERROR, anything else
 * C_INTERNAL_ERROR. */
C_Status ocl_status_of(cl_int error);

#endif /* BACKPLANE_OPENCL_OCL_H_ */
