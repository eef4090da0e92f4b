/* Validation of calls made from host callbacks: inside a callback of stream
 * S on device D, synchronizing or destroying S and synchronizing D would
 * wait for the callback itself; the layer refuses each with one report.
 * Calls that do not wait for the callback (another device's stream, a query
 * of S) pass, and so does everything once the callback has returned. The
 * callbacks run on vcpu's stream threads (label concurrency: TSan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backplane/vendor_access.h"
#include "support/file_lines.h"
#include "support/runtime_fixture.h"

typedef struct inside {
  const C_DeviceInterface *d;
  C_Device other_device;
  C_Stream other_stream;
  C_Status sync_own, destroy_own, sync_device, sync_other, query_own;
  bp_stream_t *framework_stream; /* NULL at the dispatch level */
  bp_device_t *framework_device;
  bp_status_t framework_sync, framework_device_sync;
} inside_t;

static void misbehave(C_Device device, C_Stream stream, void *user_data,
                      C_Status *status) {
  inside_t *in = user_data;
  in->sync_own = in->d->synchronize_stream(device, stream);
  in->destroy_own = in->d->destroy_stream(device, stream);
  in->sync_device = in->d->synchronize_device(device);
  in->sync_other =
      in->d->synchronize_stream(in->other_device, in->other_stream);
  in->query_own = in->d->query_stream(device, stream);
  if (status)
    *status = C_SUCCESS;
}

static void temp_log(char *path) {
  strcpy(path, "/tmp/bp-callbacks-XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
}

static void test_dispatch_level(void **state) {
  (void)state;
  char log[32];
  temp_log(log);
  bp_layer_options_t options = fixture_layer_options("validation", "");
  options.validation_log = log;
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  bp_device_t *dev0 = NULL, *dev1 = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &dev0), BP_OK);
  assert_int_equal(bp_device_at(runtime, 1, &dev1), BP_OK);
  inside_t in = {.d = bp_runtime_plugin_dispatch(runtime, 0),
                 .other_device = bp_device_c_handle(dev1)};
  C_Device c0 = bp_device_c_handle(dev0);
  C_Stream own = NULL;
  assert_int_equal(in.d->create_stream(c0, &own), C_SUCCESS);
  assert_int_equal(in.d->create_stream(in.other_device, &in.other_stream),
                   C_SUCCESS);
  assert_int_equal(in.d->stream_add_callback(c0, own, misbehave, &in),
                   C_SUCCESS);
  assert_int_equal(in.d->synchronize_stream(c0, own), C_SUCCESS);
  assert_int_equal(in.sync_own, C_ERROR);
  assert_int_equal(in.destroy_own, C_ERROR);
  assert_int_equal(in.sync_device, C_ERROR);
  assert_int_equal(in.sync_other, C_SUCCESS);
  assert_int_not_equal(in.query_own, C_ERROR);
  /* Outside the callback the same calls are fine. */
  assert_int_equal(in.d->synchronize_device(c0), C_SUCCESS);
  assert_int_equal(in.d->destroy_stream(c0, own), C_SUCCESS);
  assert_int_equal(in.d->destroy_stream(in.other_device, in.other_stream),
                   C_SUCCESS);
  assert_int_equal(fixture_layer_stats(runtime).validation_reports, 3);
  bp_runtime_destroy(runtime);
  assert_int_equal(file_lines_with(log, "backplane validation: "), 3);
  assert_int_equal(
      file_lines_with(log, "synchronize_stream on vcpu:0: called on stream 0x"),
      1);
  assert_int_equal(
      file_lines_with(log, "destroy_stream on vcpu:0: called on stream 0x"), 1);
  assert_int_equal(file_lines_with(log, "synchronize_device on vcpu:0: called "
                                        "from a host callback of stream 0x"),
                   1);
  unlink(log);
}

static void framework_misbehave(void *user_data) {
  inside_t *in = user_data;
  in->framework_sync = bp_stream_synchronize(in->framework_stream);
  in->framework_device_sync = bp_device_synchronize(in->framework_device);
}

static void test_framework_face(void **state) {
  (void)state;
  bp_layer_options_t options = fixture_layer_options("validation", "");
  options.validation_log = "/dev/null";
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  inside_t in = {0};
  assert_int_equal(bp_device_at(runtime, 1, &in.framework_device), BP_OK);
  assert_int_equal(bp_stream_create(in.framework_device, &in.framework_stream),
                   BP_OK);
  assert_int_equal(
      bp_stream_add_callback(in.framework_stream, framework_misbehave, &in),
      BP_OK);
  assert_int_equal(bp_stream_synchronize(in.framework_stream), BP_OK);
  assert_int_not_equal(in.framework_sync, BP_OK);
  assert_int_not_equal(in.framework_device_sync, BP_OK);
  assert_int_equal(fixture_layer_stats(runtime).validation_reports, 2);
  assert_int_equal(bp_stream_destroy(in.framework_stream), BP_OK);
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dispatch_level),
      cmocka_unit_test(test_framework_face),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
