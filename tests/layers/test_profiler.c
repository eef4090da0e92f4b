/* The profiler API on vcpu: Paddle's call order, vcpu's own device records
 * (copies with size and direction, callbacks, also those run on the caller's
 * thread, event records and waits), the
 * Chrome trace export, a profile beside a traced runtime keeping only its
 * own streams, and plugins without profiler functions skipped. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/runtime_fixture.h"
#include "workload.h"

#define STUB_PLUGIN BP_CORPUS_DIR "/libbp_stub.so"

/* How many complete events named `name` (with `arg`=`value` when given). */
static size_t count_events(json_t *events, const char *name, const char *arg,
                           json_int_t value) {
  size_t n = 0, i;
  json_t *event;
  json_array_foreach(events, i, event) {
    const char *ph = json_string_value(json_object_get(event, "ph"));
    const char *ev = json_string_value(json_object_get(event, "name"));
    if (!ph || strcmp(ph, "X") != 0 || !ev || strcmp(ev, name) != 0)
      continue;
    if (arg && json_integer_value(json_object_get(
                   json_object_get(event, "args"), arg)) != value)
      continue;
    ++n;
  }
  return n;
}

static size_t count_metadata(json_t *events, const char *what,
                             const char *name) {
  size_t n = 0, i;
  json_t *event;
  json_array_foreach(events, i, event) {
    const char *ph = json_string_value(json_object_get(event, "ph"));
    const char *ev = json_string_value(json_object_get(event, "name"));
    const char *arg = json_string_value(
        json_object_get(json_object_get(event, "args"), "name"));
    if (ph && strcmp(ph, "M") == 0 && ev && strcmp(ev, what) == 0 &&
        (!name || (arg && strcmp(arg, name) == 0)))
      ++n;
  }
  return n;
}

static void test_vcpu_reports_its_stream_commands(void **state) {
  (void)state;
  bp_layer_options_t none = fixture_layer_options("", "");
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &none);
  bp_profile_t *profile = NULL;
  assert_int_equal(bp_profile_create(runtime, &profile), BP_OK);
  assert_string_equal(bp_profile_plugin_note(profile, 0), "traced");
  assert_int_equal(bp_profile_stop(profile), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_profile_start(profile), BP_OK);
  assert_int_equal(bp_profile_start(profile), BP_ERR_INVALID_ARGUMENT);
  atomic_int ran = 0;
  outcome_t outcome = workload(runtime, &ran);
  assert_true(outcome.completed);
  assert_int_equal(bp_profile_stop(profile), BP_OK);
  assert_true(bp_profile_event_count(profile) > 0);

  char path[] = "/tmp/bp-profile-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(bp_profile_export_chrome(profile, path), BP_OK);
  json_error_t error;
  json_t *root = json_load_file(path, 0, &error);
  if (getenv("BP_KEEP_TRACE") == NULL)
    unlink(path);
  if (!root)
    fail_msg("trace is not valid JSON: %s", error.text);
  json_t *events = json_object_get(root, "traceEvents");
  assert_true(json_is_array(events));
  /* The workload's copies, each once: its stream commands (2 h2d, 1 p2p,
   * 1 d2h, 1 d2d) from vcpu, its synchronous copies (1 h2d, 1 p2p, 3 d2h,
   * 1 d2d) from the core. */
  assert_int_equal(count_events(events, "h2d", "bytes", 4096), 3);
  assert_int_equal(count_events(events, "p2p", "bytes", 4096), 2);
  assert_int_equal(count_events(events, "d2h", "bytes", 4096), 4);
  assert_int_equal(count_events(events, "d2d", "bytes", 4096), 2);
  assert_int_equal(count_events(events, "callback", NULL, 0), 1);
  /* vcpu enqueues no wait for an event already complete. */
  assert_in_range(count_events(events, "event_wait", NULL, 0), 0, 1);
  assert_true(count_events(events, "event_record", NULL, 0) >= 1);
  assert_int_equal(count_metadata(events, "process_name", "vcpu:0"), 1);
  assert_int_equal(count_metadata(events, "process_name", "vcpu:1"), 1);
  /* One stream per device in the workload: one track each, and each
   * device's track of copies ordered after no stream. */
  assert_int_equal(count_metadata(events, "thread_name", NULL), 4);
  assert_int_equal(count_metadata(events, "thread_name", "no stream"), 2);
  json_decref(root);

  /* Nothing is recorded while stopped. */
  size_t before = bp_profile_event_count(profile);
  ran = 0;
  workload(runtime, &ran);
  assert_int_equal(bp_profile_event_count(profile), before);
  bp_profile_destroy(profile);
  bp_runtime_destroy(runtime);
}

enum { OTHER_BYTES = 8192, OTHER_COPIES = 3 };

/* Host->device copies of OTHER_BYTES (a size the workload never uses) on a
 * stream of the runtime's first device. */
static void other_copies(bp_runtime_t *runtime) {
  static unsigned char host[OTHER_BYTES];
  bp_device_t *device;
  bp_stream_t *stream;
  void *buffer;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  assert_int_equal(bp_device_malloc(device, OTHER_BYTES, &buffer), BP_OK);
  for (int i = 0; i < OTHER_COPIES; ++i)
    assert_int_equal(
        bp_copy_async_unsafe(device, buffer, NULL, host, OTHER_BYTES, stream),
        BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(bp_device_free(device, buffer), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

/* A profile next to a traced runtime sharing the loaded vcpu: both get a
 * device timeline, the profile only its own runtime's streams. */
static void test_profile_keeps_its_own_streams(void **state) {
  (void)state;
  char trace_path[] = "/tmp/bp-trace-XXXXXX";
  int fd = mkstemp(trace_path);
  assert_true(fd >= 0);
  close(fd);
  bp_layer_options_t traced = fixture_layer_options("trace", "");
  traced.trace_file = trace_path;
  bp_runtime_t *other = fixture_layered_runtime(BP_VCPU_PLUGIN, &traced);
  bp_layer_options_t none = fixture_layer_options("", "");
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &none);
  bp_profile_t *profile = NULL;
  assert_int_equal(bp_profile_create(runtime, &profile), BP_OK);
  assert_int_equal(bp_profile_start(profile), BP_OK);
  assert_string_equal(bp_profile_plugin_note(profile, 0), "traced");
  atomic_int ran = 0;
  other_copies(other);
  assert_true(workload(runtime, &ran).completed);
  other_copies(other);
  assert_int_equal(bp_profile_stop(profile), BP_OK);
  char path[] = "/tmp/bp-profile-XXXXXX";
  fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(bp_profile_export_chrome(profile, path), BP_OK);
  json_t *root = json_load_file(path, 0, NULL);
  unlink(path);
  assert_non_null(root);
  json_t *events = json_object_get(root, "traceEvents");
  assert_int_equal(count_events(events, "h2d", "bytes", 4096), 3);
  assert_int_equal(count_events(events, "h2d", "bytes", OTHER_BYTES), 0);
  assert_int_equal(count_metadata(events, "thread_name", NULL), 4);
  json_decref(root);
  bp_profile_destroy(profile);
  bp_runtime_destroy(runtime);
  bp_runtime_destroy(other);
  root = json_load_file(trace_path, 0, NULL);
  unlink(trace_path);
  assert_non_null(root);
  events = json_object_get(root, "traceEvents");
  assert_int_equal(count_events(events, "h2d", "bytes", OTHER_BYTES),
                   2 * OTHER_COPIES);
  assert_int_equal(count_events(events, "h2d", "bytes", 4096), 0);
  json_decref(root);
}

static void count_run(void *ran) {
  atomic_fetch_add((atomic_int *)ran, 1);
}

/* A callback vcpu ran on the caller's thread (idle stream) is reported as
 * the worker would report it: one slice, named by its label. */
static void test_inline_callback_keeps_its_label(void **state) {
  (void)state;
  bp_layer_options_t none = fixture_layer_options("", "");
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &none);
  bp_device_t *device;
  bp_stream_t *stream;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  bp_profile_t *profile = NULL;
  assert_int_equal(bp_profile_create(runtime, &profile), BP_OK);
  assert_int_equal(bp_profile_start(profile), BP_OK);
  atomic_int ran = 0;
  assert_int_equal(
      bp_stream_add_inline_callback(stream, count_run, &ran, "inline_op"),
      BP_OK);
  assert_int_equal(atomic_load(&ran), 1); /* it ran here, before returning */
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(bp_profile_stop(profile), BP_OK);
  char path[] = "/tmp/bp-profile-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(bp_profile_export_chrome(profile, path), BP_OK);
  json_t *root = json_load_file(path, 0, NULL);
  unlink(path);
  assert_non_null(root);
  json_t *events = json_object_get(root, "traceEvents");
  assert_int_equal(count_events(events, "inline_op", NULL, 0), 1);
  assert_int_equal(count_events(events, "callback", NULL, 0), 0);
  json_decref(root);
  bp_profile_destroy(profile);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  bp_runtime_destroy(runtime);
}

static void test_plugin_without_profiler_is_skipped(void **state) {
  (void)state;
  bp_runtime_options_t options = {.struct_size = sizeof options,
                                  .plugin_path = STUB_PLUGIN,
                                  .ignore_environment = 1,
                                  .skip_builtin_plugins = 1};
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  assert_int_equal(bp_runtime_plugin_count(runtime), 1);
  bp_profile_t *profile = NULL;
  assert_int_equal(bp_profile_create(runtime, &profile), BP_OK);
  const char *note = bp_profile_plugin_note(profile, 0);
  assert_non_null(strstr(note, "skipped: the plugin has no profiler_"));
  assert_null(bp_profile_plugin_note(profile, 1));
  assert_int_equal(bp_profile_start(profile), BP_OK);
  assert_int_equal(bp_profile_stop(profile), BP_OK);
  assert_int_equal(bp_profile_event_count(profile), 0);
  bp_profile_destroy(profile);
  bp_runtime_destroy(runtime);
}

static void test_bad_arguments(void **state) {
  (void)state;
  bp_profile_t *profile = NULL;
  assert_int_equal(bp_profile_create(NULL, &profile), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_profile_start(NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_profile_export_chrome(NULL, "x"),
                   BP_ERR_INVALID_ARGUMENT);
  bp_profile_destroy(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vcpu_reports_its_stream_commands),
      cmocka_unit_test(test_profile_keeps_its_own_streams),
      cmocka_unit_test(test_inline_callback_keeps_its_label),
      cmocka_unit_test(test_plugin_without_profiler_is_skipped),
      cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
