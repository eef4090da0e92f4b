/* Setting the thread-local error message (internal). */
#ifndef BACKPLANE_BASE_STATUS_H_
#define BACKPLANE_BASE_STATUS_H_

#include "backplane/device_ext.h"
#include "backplane/status.h"

/* Formats the thread-local message returned by bp_last_error() and returns
 * `status`, so a failure reads `return bp_error(BP_ERR_..., "fmt", ...);`.
 * Messages are truncated at 1 KiB. */
bp_status_t bp_error(bp_status_t status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* "C_FAILED" for a plugin's C_Status; "C_Status(N)" for unknown values. */
const char *bp_c_status_name(C_Status status);

/* How a plugin's failure maps onto a Backplane status: C_FAILED is a
 * resource failure (BP_ERR_PLUGIN, or out-of-memory at allocation sites,
 * decided by the caller), C_ERROR a bad argument. */
bp_status_t bp_status_from_c(C_Status status);

#endif /* BACKPLANE_BASE_STATUS_H_ */
