/*
 * A minimal framework on Backplane: create a runtime, list what loaded, then
 * on one device allocate, copy host->device on a stream, run a host callback
 * in stream order, time the work with events, copy back, verify, clean up.
 *
 *   framework_example [device_type]
 *
 * Uses device 0 of `device_type` (default: vcpu).
 * Plugins come from BACKPLANE_PLUGIN_PATH, CUSTOM_DEVICE_ROOT and the
 * built-in directory beside libbackplane. Exits 0 only if the data came back
 * intact.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/backplane.h"

/* Every Backplane call returns a bp_status_t; on failure bp_last_error()
 * says which plugin, function and device failed and why. */
#define CHECK(call)                                                            \
  do {                                                                         \
    bp_status_t check_status_ = (call);                                        \
    if (check_status_ != BP_OK) {                                              \
      fprintf(stderr, "%s failed: %s: %s\n", #call,                            \
              bp_status_name(check_status_), bp_last_error());                 \
      goto cleanup;                                                            \
    }                                                                          \
  } while (0)

enum { ELEMENT_COUNT = 1 << 20 };

static void print_plugins(const bp_runtime_t *runtime) {
  for (size_t i = 0; i < bp_runtime_plugin_count(runtime); i++) {
    bp_plugin_info_t info;
    if (bp_runtime_plugin_info(runtime, i, &info) == BP_OK)
      printf("plugin %s (%s) from %s: %zu device(s)\n", info.device_type,
             info.sub_device_type, info.path, info.device_count);
  }
  for (size_t i = 0; i < bp_runtime_rejected_count(runtime); i++) {
    const char *path = NULL;
    const char *reason = NULL;
    if (bp_runtime_rejected_info(runtime, i, &path, &reason) == BP_OK)
      printf("rejected %s: %s\n", path, reason);
  }
}

/* Runs on a runtime thread once the stream reaches it: after the
 * host->device copy, before the device->host copy. */
static void on_upload_done(void *user_data) {
  atomic_int *callback_runs = user_data;
  atomic_fetch_add(callback_runs, 1);
}

int main(int argc, char **argv) {
  /* Devices are named by type and index: which device is ordinal 0 depends
   * on the plugins installed (and on BACKPLANE_VISIBLE_DEVICES). */
  const char *wanted_type = argc > 1 ? argv[1] : "vcpu";
  const size_t bytes = ELEMENT_COUNT * sizeof(float);
  int exit_code = EXIT_FAILURE;
  bp_runtime_t *runtime = NULL;
  bp_device_t *device = NULL;
  bp_stream_t *stream = NULL;
  bp_event_t *start = NULL;
  bp_event_t *end = NULL;
  void *device_buffer = NULL;
  float *input = malloc(bytes);
  float *output = malloc(bytes);
  atomic_int callback_runs = 0;

  if (input == NULL || output == NULL) {
    fprintf(stderr, "out of host memory\n");
    goto cleanup;
  }
  for (size_t i = 0; i < ELEMENT_COUNT; i++) {
    input[i] = (float)i * 0.5f;
    output[i] = -1.0f;
  }

  /* NULL options: the default plugin search. */
  CHECK(bp_runtime_create(NULL, &runtime));
  print_plugins(runtime);
  for (size_t i = 0; i < bp_device_count(runtime); i++) {
    bp_device_t *listed = NULL;
    size_t total = 0;
    size_t free_bytes = 0;
    CHECK(bp_device_at(runtime, i, &listed));
    if (bp_device_memory_info(listed, &total, &free_bytes) == BP_OK)
      printf("device %zu: %s, %zu of %zu bytes free\n", i,
             bp_device_name(listed), free_bytes, total);
    else
      printf("device %zu: %s\n", i, bp_device_name(listed));
  }

  CHECK(bp_device_get(runtime, wanted_type, 0, &device));
  printf("using %s\n", bp_device_name(device));

  CHECK(bp_device_malloc(device, bytes, &device_buffer));
  CHECK(bp_stream_create(device, &stream));
  CHECK(bp_event_create(device, &start));
  CHECK(bp_event_create(device, &end));

  /* Everything below is enqueued and runs in order on the stream; host
   * buffers must stay valid until the stream has passed them. */
  CHECK(bp_event_record(start, stream));
  CHECK(bp_copy(device, device_buffer, NULL, input, bytes, stream));
  CHECK(bp_stream_add_callback(stream, on_upload_done, &callback_runs));
  CHECK(bp_copy(NULL, output, device, device_buffer, bytes, stream));
  CHECK(bp_event_record(end, stream));
  CHECK(bp_stream_synchronize(stream));

  float milliseconds = 0.0f;
  bp_status_t timing = bp_event_elapsed_time(start, end, &milliseconds);
  if (timing == BP_OK)
    printf("round trip of %zu bytes: %.3f ms\n", bytes, (double)milliseconds);
  else if (timing == BP_ERR_UNSUPPORTED)
    printf("round trip of %zu bytes: this device has no event timing\n", bytes);
  else
    CHECK(timing);

  if (atomic_load(&callback_runs) != 1) {
    fprintf(stderr, "the stream callback ran %d times, expected once\n",
            atomic_load(&callback_runs));
    goto cleanup;
  }
  if (memcmp(input, output, bytes) != 0) {
    fprintf(stderr, "data read back differs from data written\n");
    goto cleanup;
  }
  printf("verified %d floats through %s\n", ELEMENT_COUNT,
         bp_device_name(device));
  exit_code = EXIT_SUCCESS;

cleanup:
  /* Each destroy accepts NULL, so one cleanup path serves every failure. */
  bp_event_destroy(end);
  bp_event_destroy(start);
  bp_stream_destroy(stream);
  if (device_buffer != NULL)
    bp_device_free(device, device_buffer);
  bp_runtime_destroy(runtime);
  free(output);
  free(input);
  return exit_code;
}
