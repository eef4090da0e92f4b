/* Misuse: recording an event of device 0 on a stream of device 1. */
#include "misuse_common.h"

int main(void) {
  misuse_t m = misuse_open();
  C_Stream stream = NULL;
  C_Event event = NULL;
  m.d->create_stream(m.dev1, &stream);
  m.d->create_event(m.dev0, &event);
  m.d->record_event(m.dev0, stream, event);
  m.d->destroy_event(m.dev0, event);
  m.d->destroy_stream(m.dev1, stream);
  return misuse_close(&m);
}
