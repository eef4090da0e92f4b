/* Misuse: a host-to-device copy running past the end of its allocation. */
#include "misuse_common.h"

int main(void) {
  misuse_t m = misuse_open();
  void *ptr = NULL;
  static char host[8192];
  m.d->device_memory_allocate(m.dev0, &ptr, 4096);
  m.d->memory_copy_h2d(m.dev0, ptr, host, sizeof host);
  m.d->device_memory_deallocate(m.dev0, ptr, 4096);
  return misuse_close(&m);
}
