/* Environment parsing for the vcpu plugin. */
#include "base/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Parses a decimal integer with an optional K/M/G suffix (when `scaled`);
 * false on anything else, on overflow, or outside [min, max]. */
static bool parse_size(const char *text, bool scaled, unsigned long long min,
                       unsigned long long max, unsigned long long *out) {
  if (!isdigit((unsigned char)text[0]))
    return false;
  errno = 0;
  char *end;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0)
    return false;
  unsigned shift = 0;
  if (scaled && *end != '\0' && end[1] == '\0') {
    switch (toupper((unsigned char)*end)) {
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    default:
      return false;
    }
    ++end;
  }
  if (*end != '\0' || value > (max >> shift))
    return false;
  value <<= shift;
  if (value < min)
    return false;
  *out = value;
  return true;
}

static unsigned long long read_setting(const char *name, bool scaled,
                                       unsigned long long min,
                                       unsigned long long max,
                                       unsigned long long fallback) {
  const char *text = getenv(name);
  if (!text)
    return fallback;
  unsigned long long value;
  if (parse_size(text, scaled, min, max, &value))
    return value;
  fprintf(
      stderr,
      "backplane vcpu: ignoring %s=\"%s\" (want %s%llu..%llu), using %llu\n",
      name, text, scaled ? "bytes with optional K/M/G suffix, " : "", min, max,
      fallback);
  return fallback;
}

vcpu_config vcpu_config_from_environment(void) {
  vcpu_config config;
  config.device_count =
      (int)read_setting("BACKPLANE_VCPU_DEVICES", false, 1, VCPU_MAX_DEVICES,
                        VCPU_DEFAULT_DEVICES);
  config.memory_per_device =
      (size_t)read_setting("BACKPLANE_VCPU_MEMORY", true, VCPU_MIN_MEMORY,
                           VCPU_MAX_MEMORY, VCPU_DEFAULT_MEMORY);
  config.jitter_us = (unsigned)read_setting("BACKPLANE_VCPU_JITTER_US", false,
                                            0, VCPU_MAX_JITTER_US, 0);
  config.cores = (unsigned)read_setting("BACKPLANE_VCPU_CORES", false, 1,
                                        VCPU_MAX_CORES, 0);
  return config;
}
