/* Misuse: a device-to-host copy whose host destination is device memory. */
#include "misuse_common.h"

int main(void) {
  misuse_t m = misuse_open();
  void *a = NULL, *b = NULL;
  m.d->device_memory_allocate(m.dev0, &a, 4096);
  m.d->device_memory_allocate(m.dev0, &b, 4096);
  m.d->memory_copy_d2h(m.dev0, b, a, 4096);
  m.d->device_memory_deallocate(m.dev0, b, 4096);
  m.d->device_memory_deallocate(m.dev0, a, 4096);
  return misuse_close(&m);
}
