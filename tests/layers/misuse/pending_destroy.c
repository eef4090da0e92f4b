/* Misuse: destroying a stream while work is still queued on it. The queued
 * callback holds the stream busy until the validation report about it has
 * been written (without validation it returns at once), so the work is
 * pending when destroy_stream runs, whatever the scheduling. */
#include <string.h>
#include <time.h>

#include "misuse_common.h"

static int report_written(const char *log_path) {
  FILE *log = fopen(log_path, "r");
  if (!log)
    return 0;
  char line[1024];
  int found = 0;
  while (!found && fgets(line, sizeof line, log))
    found = strstr(line, "work pending") != NULL;
  fclose(log);
  return found;
}

static void hold_until_reported(C_Device device, C_Stream stream,
                                void *user_data, C_Status *status) {
  (void)device;
  (void)stream;
  (void)status;
  const char *log_path = user_data;
  const char *layers = getenv("BACKPLANE_LAYERS");
  if (!log_path || !layers || !strstr(layers, "validation"))
    return;
  /* Bounded so a broken layer fails the check instead of hanging. */
  for (int i = 0; i < 10000 && !report_written(log_path); ++i)
    nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
}

int main(void) {
  misuse_t m = misuse_open();
  C_Stream stream = NULL;
  m.d->create_stream(m.dev0, &stream);
  m.d->stream_add_callback(m.dev0, stream, hold_until_reported,
                           getenv("BACKPLANE_VALIDATION_LOG"));
  m.d->destroy_stream(m.dev0, stream);
  return misuse_close(&m);
}
