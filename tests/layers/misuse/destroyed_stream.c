/* Misuse: synchronizing a stream after destroying it. */
#include "misuse_common.h"

int main(void) {
  misuse_t m = misuse_open();
  C_Stream stream = NULL;
  m.d->create_stream(m.dev0, &stream);
  m.d->destroy_stream(m.dev0, stream);
  m.d->synchronize_stream(m.dev0, stream);
  return misuse_close(&m);
}
