/* The runtime's diagnostics (log.h). */
#include "base/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_SUBSYSTEMS = 16, SUBSYSTEM_BYTES = 24 };

static struct {
  bp_log_level_t level;
  size_t subsystem_count; /* 0: every subsystem */
  char subsystems[MAX_SUBSYSTEMS][SUBSYSTEM_BYTES];
  FILE *file; /* stderr unless BACKPLANE_LOG_FILE */
} config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static const char *const level_names[] = {"off", "error", "warn", "info",
                                          "debug"};
static const char *const level_tags[] = {"", "ERROR", "WARN", "INFO", "DEBUG"};

static bool parse_level(const char *text, size_t length, bp_log_level_t *out) {
  for (int l = BP_LOG_OFF; l <= BP_LOG_DEBUG; l++)
    if (strlen(level_names[l]) == length &&
        !strncasecmp(text, level_names[l], length)) {
      *out = (bp_log_level_t)l;
      return true;
    }
  return false;
}

/* "alloc,plugins" into config.subsystems; false if one is empty or too
 * many or too long. */
static bool parse_subsystems(const char *list) {
  for (const char *p = list; *p;) {
    size_t length = strcspn(p, ",");
    if (!length || length >= SUBSYSTEM_BYTES ||
        config.subsystem_count == MAX_SUBSYSTEMS)
      return false;
    memcpy(config.subsystems[config.subsystem_count], p, length);
    config.subsystems[config.subsystem_count++][length] = '\0';
    p += length + (p[length] == ',');
  }
  return config.subsystem_count > 0;
}

/* PATH with %p replaced by the process id, opened for appending. */
static FILE *open_log_file(const char *pattern) {
  char path[4096];
  size_t n = 0;
  for (const char *p = pattern; *p && n < sizeof path - 24; p++) {
    if (p[0] == '%' && p[1] == 'p') {
      n += (size_t)snprintf(path + n, sizeof path - n, "%ld", (long)getpid());
      p++;
    } else {
      path[n++] = *p;
    }
  }
  path[n] = '\0';
  FILE *file = fopen(path, "a");
  if (!file)
    fprintf(stderr,
            "backplane:%ld WARN log: BACKPLANE_LOG_FILE: cannot open '%s' "
            "(%s); writing to stderr\n",
            (long)getpid(), path, strerror(errno));
  else
    setvbuf(file, NULL, _IOLBF, 0);
  return file;
}

static void read_config(void) {
  config.level = BP_LOG_WARN;
  config.file = stderr;
  const char *value = getenv("BACKPLANE_LOG");
  if (value && *value) {
    size_t length = strcspn(value, ":");
    bp_log_level_t level;
    bool ok = parse_level(value, length, &level) &&
              (!value[length] || parse_subsystems(value + length + 1));
    if (ok) {
      config.level = level;
    } else {
      config.subsystem_count = 0;
      fprintf(stderr,
              "backplane:%ld WARN log: BACKPLANE_LOG: expected "
              "off|error|warn|info|debug, optionally followed by "
              ":SUBSYSTEM,..., got '%s'; using warn\n",
              (long)getpid(), value);
    }
  }
  const char *path = getenv("BACKPLANE_LOG_FILE");
  if (path && *path && config.level != BP_LOG_OFF) {
    FILE *file = open_log_file(path);
    if (file)
      config.file = file;
  }
}

bool bp_log_enabled(bp_log_level_t level, const char *subsystem) {
  pthread_once(&config_once, read_config);
  if (level == BP_LOG_OFF || level > config.level)
    return false;
  if (!config.subsystem_count)
    return true;
  for (size_t i = 0; i < config.subsystem_count; i++)
    if (!strcmp(config.subsystems[i], subsystem))
      return true;
  return false;
}

void bp_log(bp_log_level_t level, const char *subsystem, const char *format,
            ...) {
  if (!bp_log_enabled(level, subsystem))
    return;
  int saved_errno = errno;
  char line[2048];
  int n = snprintf(line, sizeof line, "backplane:%ld %s %s: ", (long)getpid(),
                   level_tags[level], subsystem);
  va_list args;
  va_start(args, format);
  if (n > 0 && (size_t)n < sizeof line)
    vsnprintf(line + n, sizeof line - (size_t)n, format, args);
  va_end(args);
  /* One line, written whole even when threads log at once. */
  flockfile(config.file);
  fputs(line, config.file);
  fputc('\n', config.file);
  funlockfile(config.file);
  errno = saved_errno;
}
