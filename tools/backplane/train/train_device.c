#include "train_device.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "train_error.h"

bp_status_t train_device_type_pick(bp_runtime_t *runtime, const char *asked,
                                   size_t count, const char **out_type) {
  char have[256] = "";
  size_t used = 0;
  size_t plugins = bp_runtime_plugin_count(runtime);
  for (size_t p = 0; p < plugins; p++) {
    bp_plugin_info_t info;
    if (bp_runtime_plugin_info(runtime, p, &info) != BP_OK)
      continue;
    bool named = !asked || strcmp(asked, info.device_type) == 0;
    if (named && info.device_count >= count) {
      *out_type = info.device_type;
      return BP_OK;
    }
    int n = snprintf(have + used, sizeof have - used, "%s%s: %zu",
                     used ? ", " : "", info.device_type, info.device_count);
    if (n > 0 && (size_t)n < sizeof have - used)
      used += (size_t)n;
  }
  if (asked)
    return train_fail(BP_ERR_NOT_FOUND,
                      "--device %s: %zu devices asked for, no plugin of that "
                      "type has them (devices per type: %s)",
                      asked, count, used ? have : "no plugin loaded");
  return train_fail(BP_ERR_NOT_FOUND,
                    "%zu devices asked for, no plugin has that many (devices "
                    "per type: %s)",
                    count, used ? have : "no plugin loaded");
}

bool train_device_host_addressable(bp_device_t *device) {
  unsigned char pattern[64], seen[64];
  for (size_t i = 0; i < sizeof pattern; i++)
    pattern[i] = (unsigned char)(0xa5 ^ (i * 37));
  void *memory = NULL;
  if (bp_device_malloc(device, sizeof pattern, &memory) != BP_OK)
    return false;
  bool addressable = false;
  if (bp_copy(device, memory, NULL, pattern, sizeof pattern, NULL) == BP_OK) {
    /* Through a pipe: write() refuses an unreadable address with EFAULT. */
    int fds[2];
    if (pipe(fds) == 0) {
      addressable =
          write(fds[1], memory, sizeof seen) == (ssize_t)sizeof seen &&
          read(fds[0], seen, sizeof seen) == (ssize_t)sizeof seen &&
          memcmp(seen, pattern, sizeof seen) == 0;
      close(fds[0]);
      close(fds[1]);
    }
  }
  bp_device_free(device, memory);
  return addressable;
}
