/* Last error, vendor name and version of the reference library. */
#include "ref_error.h"

#include <stdarg.h>
#include <stdio.h>

#include <diopi/functions.h>

static _Thread_local char last_error[1024];

diopiError_t ref_fail(const char *op, const char *format, ...) {
  int n = snprintf(last_error, sizeof last_error, "%s: ", op);
  va_list args;
  va_start(args, format);
  vsnprintf(last_error + n, sizeof last_error - (size_t)n, format, args);
  va_end(args);
  return diopiErrorOccurred;
}

__attribute__((visibility("default"))) const char *
diopiGetLastErrorString(void) {
  return last_error;
}

__attribute__((visibility("default"))) const char *diopiGetVendorName(void) {
  return "Backplane reference (vcpu)";
}

__attribute__((visibility("default"))) const char *diopiGetImplVersion(void) {
  return "DIOPI 1.0.0; OpenBLAS sgemm, dgemm";
}
