/* Misuse: device memory never freed before the plugin is unloaded. */
#include "misuse_common.h"

int main(void) {
  misuse_t m = misuse_open();
  void *ptr = NULL;
  m.d->device_memory_allocate(m.dev1, &ptr, 4096);
  return misuse_close(&m);
}
