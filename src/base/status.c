#include "base/status.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[1024] = "no error";

bp_status_t bp_error(bp_status_t status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(last_error, sizeof last_error, format, args);
  va_end(args);
  return status;
}

BP_API const char *bp_last_error(void) {
  return last_error;
}

BP_API const char *bp_status_name(bp_status_t status) {
  switch (status) {
  case BP_OK:
    return "BP_OK";
  case BP_ERR_INVALID_ARGUMENT:
    return "BP_ERR_INVALID_ARGUMENT";
  case BP_ERR_NOT_FOUND:
    return "BP_ERR_NOT_FOUND";
  case BP_ERR_OUT_OF_MEMORY:
    return "BP_ERR_OUT_OF_MEMORY";
  case BP_ERR_UNSUPPORTED:
    return "BP_ERR_UNSUPPORTED";
  case BP_ERR_NOT_READY:
    return "BP_ERR_NOT_READY";
  case BP_ERR_PLUGIN:
    return "BP_ERR_PLUGIN";
  case BP_ERR_TIMEOUT:
    return "BP_ERR_TIMEOUT";
  case BP_ERR_ABORTED:
    return "BP_ERR_ABORTED";
  case BP_ERR_INTERNAL:
    return "BP_ERR_INTERNAL";
  case BP_ERR_PEER_LOST:
    return "BP_ERR_PEER_LOST";
  }
  return "BP_ERR_UNKNOWN";
}

const char *bp_c_status_name(C_Status status) {
  static _Thread_local char unknown[32];
  switch (status) {
  case C_SUCCESS:
    return "C_SUCCESS";
  case C_WARNING:
    return "C_WARNING";
  case C_FAILED:
    return "C_FAILED";
  case C_ERROR:
    return "C_ERROR";
  case C_INTERNAL_ERROR:
    return "C_INTERNAL_ERROR";
  }
  snprintf(unknown, sizeof unknown, "C_Status(%d)", (int)status);
  return unknown;
}

bp_status_t bp_status_from_c(C_Status status) {
  switch (status) {
  case C_SUCCESS:
  case C_WARNING:
    return BP_OK;
  case C_ERROR:
    return BP_ERR_INVALID_ARGUMENT;
  default:
    return BP_ERR_PLUGIN;
  }
}
