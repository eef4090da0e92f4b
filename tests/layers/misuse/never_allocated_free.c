/* Misuse: freeing a pointer the plugin never handed out. */
#include "misuse_common.h"

int main(void) {
  misuse_t m = misuse_open();
  static char not_device_memory[64];
  m.d->device_memory_deallocate(m.dev0, not_device_memory,
                                sizeof not_device_memory);
  return misuse_close(&m);
}
