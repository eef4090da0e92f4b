/* Last error, vendor name and version of the cuda op library. */
#include "co_error.h"

#include <stdarg.h>
#include <stdio.h>

#include <diopi/functions.h>

static _Thread_local char last_error[4096]; /* room for an NVRTC log */

static void format_message(const char *op, const char *format, va_list args) {
  int n = snprintf(last_error, sizeof last_error, "%s: ", op);
  vsnprintf(last_error + n, sizeof last_error - (size_t)n, format, args);
}

diopiError_t co_fail(const char *op, const char *format, ...) {
  va_list args;
  va_start(args, format);
  format_message(op, format, args);
  va_end(args);
  return diopiErrorOccurred;
}

diopiError_t co_unsupported(const char *op, const char *format, ...) {
  va_list args;
  va_start(args, format);
  format_message(op, format, args);
  va_end(args);
  return diopiNoImplement;
}

CO_EXPORT const char *diopiGetLastErrorString(void) {
  return last_error;
}

CO_EXPORT const char *diopiGetVendorName(void) {
  return "Backplane cuda";
}

CO_EXPORT const char *diopiGetImplVersion(void) {
  return "DIOPI 1.0.0; cuBLAS sgemm, NVRTC-compiled kernels";
}
