/* The trainer's thread-local error message (train_last_error in train.h). */
#ifndef BACKPLANE_TRAIN_ERROR_H_
#define BACKPLANE_TRAIN_ERROR_H_

#include "backplane/backplane.h"

/* Formats the message and returns `status`. */
__attribute__((format(printf, 2, 3))) bp_status_t
train_fail(bp_status_t status, const char *format, ...);
/* For a failed Backplane call: "<what>: <status name>: <bp_last_error()>". */
bp_status_t train_fail_call(bp_status_t status, const char *what);

#endif /* BACKPLANE_TRAIN_ERROR_H_ */
