/* Environment settings of the plugin. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "ocl.h"

static bool parse_size(const char *text, size_t *out) {
  errno = 0;
  char *end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0 || end == text || text[0] == '-')
    return false;
  unsigned shift = 0;
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
  case 'T':
    shift = 40;
    break;
  case '\0':
    break;
  default:
    return false;
  }
  if (shift != 0 && end[1] != '\0')
    return false;
  if (value > (unsigned long long)(SIZE_MAX >> shift))
    return false;
  *out = (size_t)value << shift;
  return true;
}

bool ocl_config_read(ocl_config_t *config) {
  *config = (ocl_config_t){.memory = OCL_MEMORY_AUTO};
  const char *devices = getenv("BACKPLANE_OPENCL_DEVICES");
  if (devices) {
    if (strlen(devices) >= sizeof config->devices) {
      ocl_fail(C_ERROR, "BACKPLANE_OPENCL_DEVICES is longer than %zu bytes",
               sizeof config->devices - 1);
      return false;
    }
    strcpy(config->devices, devices);
  }
  const char *memory = getenv("BACKPLANE_OPENCL_MEMORY");
  if (memory && *memory) {
    if (strcmp(memory, "auto") == 0)
      config->memory = OCL_MEMORY_AUTO;
    else if (strcmp(memory, "svm") == 0)
      config->memory = OCL_MEMORY_SVM;
    else if (strcmp(memory, "buffer") == 0)
      config->memory = OCL_MEMORY_BUFFER;
    else {
      ocl_fail(C_ERROR,
               "BACKPLANE_OPENCL_MEMORY=\"%s\" is not auto, svm or buffer",
               memory);
      return false;
    }
  }
  const char *limit = getenv("BACKPLANE_OPENCL_MEMORY_LIMIT");
  if (limit && *limit && !parse_size(limit, &config->memory_limit)) {
    ocl_fail(C_ERROR,
             "BACKPLANE_OPENCL_MEMORY_LIMIT=\"%s\" is not a size (e.g. 256M)",
             limit);
    return false;
  }
  return true;
}

bool ocl_config_keeps(const char *patterns, const char *type_name,
                      const char *platform_name, const char *device_name) {
  if (!patterns[0])
    return true;
  char pattern[512];
  const char *at = patterns;
  while (*at) {
    size_t length = strcspn(at, ",");
    if (length > 0 && length < sizeof pattern) {
      memcpy(pattern, at, length);
      pattern[length] = '\0';
      if (fnmatch(pattern, type_name, FNM_CASEFOLD) == 0 ||
          fnmatch(pattern, platform_name, FNM_CASEFOLD) == 0 ||
          fnmatch(pattern, device_name, FNM_CASEFOLD) == 0)
        return true;
    }
    at += length;
    if (*at == ',')
      at++;
  }
  return false;
}
