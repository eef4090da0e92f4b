/* The reference library's error reporting: a thread-local message that
 * diopiGetLastErrorString() returns, naming the op, the argument and what was
 * expected. */
#ifndef BACKPLANE_REF_OPS_ERROR_H_
#define BACKPLANE_REF_OPS_ERROR_H_

#include <diopi/diopirt.h>

/* Formats the message ("diopiAdd: other: ...") and returns
 * diopiErrorOccurred. */
diopiError_t ref_fail(const char *op, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* BACKPLANE_REF_OPS_ERROR_H_ */
