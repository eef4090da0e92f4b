/* The CUDA runtime headers as the plugin uses them, and its error
 * reporting: a thread-local message that BackplanePluginLastError and the
 * kernels and collectives extensions hand to the host. */
#ifndef BACKPLANE_CUDA_CU_H_
#define BACKPLANE_CUDA_CU_H_

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "backplane/device_ext.h"

/* Formats the calling thread's message and returns `status`, so a failure
 * path reads `return cu_fail(C_ERROR, "...", ...)`. */
C_Status cu_fail(C_Status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* cu_fail for a well-formed request this device cannot do: returns C_ERROR
 * and marks the message BP_ERR_UNSUPPORTED (cu_last_status). */
C_Status cu_unsupported(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/* cu_fail for a failed CUDA runtime call: "<what>: <cudaGetErrorName>
 * (<cudaGetErrorString>)", with the C_Status cu_status_of gives. */
C_Status cu_fail_cuda(cudaError_t error, const char *what);

/* The calling thread's last message ("" if none). Never NULL. */
const char *cu_last_error(void);
/* BP_ERR_UNSUPPORTED after cu_unsupported, else 0 (the host maps the
 * C_Status). */
int32_t cu_last_status(void);

/* How a CUDA error maps to the ABI: allocation failures are C_FAILED (out
 * of memory), invalid arguments C_ERROR, anything else C_INTERNAL_ERROR. */
C_Status cu_status_of(cudaError_t error);

#endif /* BACKPLANE_CUDA_CU_H_ */
