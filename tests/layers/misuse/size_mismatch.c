/* Misuse: deallocating with a size other than the allocation's. */
#include "misuse_common.h"

int main(void) {
  misuse_t m = misuse_open();
  void *ptr = NULL;
  m.d->device_memory_allocate(m.dev0, &ptr, 4096);
  m.d->device_memory_deallocate(m.dev0, ptr, 1024);
  return misuse_close(&m);
}
