/* Misuse: querying an event after destroying it. */
#include "misuse_common.h"

int main(void) {
  misuse_t m = misuse_open();
  C_Event event = NULL;
  m.d->create_event(m.dev0, &event);
  m.d->destroy_event(m.dev0, event);
  m.d->query_event(m.dev0, event);
  return misuse_close(&m);
}
