/* Misuse: a host callback synchronizing the stream it runs on. The
 * synchronization waits for every command of the stream, the running
 * callback included, so it never returns: without validation this program
 * hangs on vcpu (as on real devices), and the corpus driver runs it under
 * validation only. Validation refuses the call from inside the callback. */
#include "misuse_common.h"

static void synchronize_own_stream(C_Device device, C_Stream stream,
                                   void *user_data, C_Status *status) {
  const C_DeviceInterface *d = user_data;
  d->synchronize_stream(device, stream);
  if (status)
    *status = C_SUCCESS;
}

int main(void) {
  misuse_t m = misuse_open();
  C_Stream stream = NULL;
  m.d->create_stream(m.dev0, &stream);
  m.d->stream_add_callback(m.dev0, stream, synchronize_own_stream, (void *)m.d);
  m.d->synchronize_stream(m.dev0, stream);
  m.d->destroy_stream(m.dev0, stream);
  return misuse_close(&m);
}
