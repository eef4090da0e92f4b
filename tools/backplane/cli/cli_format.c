/* Formatting byte counts for people. */
#include "cli_format.h"

#include <stdio.h>

const char *cli_format_bytes(size_t bytes, char *buffer, size_t buffer_size) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  size_t scale = 1;
  while (unit + 1 < sizeof(units) / sizeof(units[0]) && bytes / scale >= 1024 &&
         (bytes % (scale * 1024) == 0 || bytes / scale >= 1024 * 10)) {
    scale *= 1024;
    unit++;
  }
  if (bytes % scale == 0)
    snprintf(buffer, buffer_size, "%zu %s", bytes / scale, units[unit]);
  else
    snprintf(buffer, buffer_size, "%.1f %s", (double)bytes / (double)scale,
             units[unit]);
  return buffer;
}
