/* The runtime's diagnostics (internal), one switch like NCCL_DEBUG:
 * BACKPLANE_LOG=LEVEL[:SUBSYSTEM,...] with LEVEL off, error, warn (the
 * default), info or debug, and optionally the subsystems to show (plugins,
 * alloc, devices, memory, trace; default every one); BACKPLANE_LOG_FILE=PATH
 * appends them to PATH instead of stderr (%p in it becomes the process id).
 * Each message is one line, written whole:
 *     backplane:1234 WARN plugins: rejected /x/libfoo.so: dlopen failed: ...
 * Errors and warnings are what the runtime printed before there was a
 * switch (leaks at teardown, plugins it rejects); info says what it chose
 * (plugins loaded, fallbacks); debug what it did (out-of-memory retries).
 *
 * The variables are read once, at the first message or check. Thread-safe;
 * never touches bp_last_error(). */
#ifndef BACKPLANE_BASE_LOG_H_
#define BACKPLANE_BASE_LOG_H_

#include <stdbool.h>

typedef enum bp_log_level {
  BP_LOG_OFF,
  BP_LOG_ERROR,
  BP_LOG_WARN,
  BP_LOG_INFO,
  BP_LOG_DEBUG,
} bp_log_level_t;

/* Whether a message of `level` about `subsystem` would be written (to skip
 * building an expensive one). */
bool bp_log_enabled(bp_log_level_t level, const char *subsystem);

/* Writes the message (printf-style, no trailing newline) if enabled. */
void bp_log(bp_log_level_t level, const char *subsystem, const char *format,
            ...) __attribute__((format(printf, 3, 4)));

#endif /* BACKPLANE_BASE_LOG_H_ */
