#include "train_error.h"

#include <stdarg.h>
#include <stdio.h>

#include "train.h"

static _Thread_local char message[1024];

bp_status_t train_fail(bp_status_t status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  return status;
}

bp_status_t train_fail_call(bp_status_t status, const char *what) {
  return train_fail(status, "%s: %s: %s", what, bp_status_name(status),
                    bp_last_error());
}

const char *train_last_error(void) {
  return message;
}
