/* The allocator history (backplane/memory_history.h): a recording runtime
 * keeps each device alloc and free with its size, stream, time and caller,
 * in a bounded ring; BACKPLANE_MEMORY_HISTORY records from creation and
 * dumps at destroy; the summary and the picture read the dump back. */
#include <jansson.h>
#include <stdio.h>
#include <unistd.h>

#include "support/runtime_fixture.h"

typedef struct history_fixture {
  bp_runtime_t *runtime;
  bp_device_t *device;
} history_fixture_t;

static int open_vcpu(void **state) {
  history_fixture_t *f = calloc(1, sizeof *f);
  f->runtime = fixture_runtime(BP_VCPU_PLUGIN);
  assert_int_equal(bp_device_get(f->runtime, "vcpu", 0, &f->device), BP_OK);
  *state = f;
  return 0;
}

static int close_vcpu(void **state) {
  history_fixture_t *f = *state;
  bp_runtime_destroy(f->runtime);
  free(f);
  return 0;
}

/* The runtime's history, parsed. */
static json_t *history_of(bp_runtime_t *runtime) {
  char *text = NULL;
  assert_int_equal(bp_memory_history_snapshot(runtime, &text), BP_OK);
  json_t *root = json_loads(text, 0, NULL);
  free(text);
  assert_non_null(root);
  assert_string_equal(json_string_value(json_object_get(root, "format")),
                      "backplane-memory-history");
  return root;
}

/* The events of `root` whose action is alloc, free or oom, in order. */
static json_t *block_events(json_t *root) {
  json_t *kept = json_array();
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(root, "events"), i, e) {
    const char *action = json_string_value(json_object_get(e, "action"));
    if (strncmp(action, "segment_", 8) != 0)
      json_array_append(kept, e);
  }
  return kept;
}

static void expect_event(json_t *e, const char *action, const void *address,
                         size_t size, const void *stream, const char *caller) {
  char text[32];
  assert_string_equal(json_string_value(json_object_get(e, "action")), action);
  assert_string_equal(json_string_value(json_object_get(e, "device")),
                      "vcpu:0");
  if (address) {
    snprintf(text, sizeof text, "%p", address);
    assert_string_equal(json_string_value(json_object_get(e, "address")), text);
  }
  assert_int_equal(json_integer_value(json_object_get(e, "size")), size);
  if (stream) {
    snprintf(text, sizeof text, "%p", stream);
    assert_string_equal(json_string_value(json_object_get(e, "stream")), text);
  } else {
    assert_true(json_is_null(json_object_get(e, "stream")));
  }
  const char *got = json_string_value(json_object_get(e, "caller"));
  assert_non_null(got);
  if (caller)
    assert_string_equal(got, caller);
}

static void
records_each_alloc_and_free_with_size_stream_and_caller(void **state) {
  history_fixture_t *f = *state;
  assert_false(bp_memory_history_recording(f->runtime));
  assert_int_equal(bp_memory_history_record(f->runtime, 64), BP_OK);
  assert_true(bp_memory_history_recording(f->runtime));
  bp_stream_t *stream = NULL;
  assert_int_equal(bp_stream_create(f->device, &stream), BP_OK);
  void *a = NULL, *b = NULL, *c = NULL;
  bp_memory_history_set_label("phase one");
  assert_int_equal(bp_device_malloc(f->device, 1000, &a), BP_OK);
  assert_int_equal(bp_device_malloc_async(f->device, 3000, stream, &b), BP_OK);
  assert_int_equal(bp_device_free(f->device, a), BP_OK);
  assert_int_equal(bp_device_free_async(f->device, b, stream), BP_OK);
  bp_memory_history_set_label(NULL);
  assert_int_equal(bp_device_malloc(f->device, 10, &c), BP_OK);
  /* A refused free is not an event. */
  assert_int_equal(bp_device_free(f->device, &stream), BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "not a live allocation"));

  json_t *root = history_of(f->runtime);
  json_t *events = block_events(root);
  assert_int_equal(json_array_size(events), 5);
  expect_event(json_array_get(events, 0), "alloc", a, 1000, NULL, "phase one");
  expect_event(json_array_get(events, 1), "alloc", b, 3000, stream,
               "phase one");
  expect_event(json_array_get(events, 2), "free", a, 1000, NULL, "phase one");
  expect_event(json_array_get(events, 3), "free", b, 3000, stream, "phase one");
  /* No label: the function that called the entry point. */
  expect_event(json_array_get(events, 4), "alloc", c, 10, NULL, NULL);
  assert_string_not_equal(
      json_string_value(json_object_get(json_array_get(events, 4), "caller")),
      "phase one");
  /* The first allocation took a chunk from the plugin first. */
  json_t *first = json_array_get(json_object_get(root, "events"), 0);
  assert_string_equal(json_string_value(json_object_get(first, "action")),
                      "segment_alloc");
  json_int_t previous = -1;
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(root, "events"), i, e) {
    json_int_t time = json_integer_value(json_object_get(e, "time_ns"));
    assert_true(time >= previous);
    previous = time;
  }
  json_decref(events);
  json_decref(root);
  assert_int_equal(bp_device_free(f->device, c), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

static void summary_marks_the_peak_per_device_and_stream(void **state) {
  history_fixture_t *f = *state;
  assert_int_equal(bp_memory_history_record(f->runtime, 64), BP_OK);
  bp_stream_t *stream = NULL;
  assert_int_equal(bp_stream_create(f->device, &stream), BP_OK);
  void *a = NULL, *b = NULL, *c = NULL;
  assert_int_equal(bp_device_malloc(f->device, 1000, &a), BP_OK);
  assert_int_equal(bp_device_malloc_async(f->device, 3000, stream, &b), BP_OK);
  assert_int_equal(bp_device_free(f->device, a), BP_OK);
  assert_int_equal(bp_device_malloc(f->device, 500, &c), BP_OK);
  assert_int_equal(bp_device_free_async(f->device, b, stream), BP_OK);
  char *text = NULL, *summary_text = NULL, *svg = NULL;
  assert_int_equal(bp_memory_history_snapshot(f->runtime, &text), BP_OK);
  assert_int_equal(bp_memory_history_summary(text, &summary_text), BP_OK);
  json_t *summary = json_loads(summary_text, 0, NULL);
  assert_non_null(summary);
  json_t *device = json_array_get(json_object_get(summary, "devices"), 0);
  assert_string_equal(json_string_value(json_object_get(device, "device")),
                      "vcpu:0");
  assert_int_equal(json_integer_value(json_object_get(device, "allocs")), 3);
  assert_int_equal(json_integer_value(json_object_get(device, "frees")), 2);
  /* 1000 + 3000 live at once; then 3000 + 500. */
  assert_int_equal(json_integer_value(json_object_get(device, "peak_bytes")),
                   4000);
  assert_int_equal(json_integer_value(json_object_get(device, "live_bytes")),
                   500);
  assert_int_equal(json_integer_value(json_object_get(device, "live_blocks")),
                   1);
  json_t *streams = json_object_get(device, "streams");
  assert_int_equal(json_array_size(streams), 2);
  char stream_text[32];
  snprintf(stream_text, sizeof stream_text, "%p", (void *)stream);
  for (size_t i = 0; i < 2; i++) {
    json_t *s = json_array_get(streams, i);
    const char *name = json_string_value(json_object_get(s, "stream"));
    bool on_stream = !strcmp(name, stream_text);
    assert_true(on_stream || !strcmp(name, "none"));
    assert_int_equal(json_integer_value(json_object_get(s, "peak_bytes")),
                     on_stream ? 3000 : 1000);
    assert_int_equal(json_integer_value(json_object_get(s, "live_bytes")),
                     on_stream ? 0 : 500);
  }
  assert_int_equal(bp_memory_snapshot_to_svg(text, &svg), BP_OK);
  assert_non_null(strstr(svg, "<svg"));
  assert_non_null(strstr(svg, "peak 3.9 KiB"));
  assert_non_null(strstr(svg, stream_text));
  free(svg);
  free(text);
  free(summary_text);
  json_decref(summary);
  assert_int_equal(bp_device_free(f->device, c), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

static void ring_keeps_the_last_events_and_counts_the_dropped(void **state) {
  history_fixture_t *f = *state;
  void *p[4];
  /* A chunk first, so that the recorded allocations take none. */
  assert_int_equal(bp_device_malloc(f->device, 100, &p[0]), BP_OK);
  assert_int_equal(bp_device_free(f->device, p[0]), BP_OK);
  assert_int_equal(bp_memory_history_record(f->runtime, 3), BP_OK);
  for (size_t i = 0; i < 4; i++)
    assert_int_equal(bp_device_malloc(f->device, 100 * (i + 1), &p[i]), BP_OK);
  json_t *root = history_of(f->runtime);
  json_t *events = json_object_get(root, "events");
  assert_int_equal(json_array_size(events), 3);
  assert_int_equal(json_integer_value(json_object_get(root, "dropped")), 1);
  assert_int_equal(json_integer_value(json_object_get(root, "max_events")), 3);
  for (size_t i = 0; i < 3; i++)
    expect_event(json_array_get(events, i), "alloc", p[i + 1], 100 * (i + 2),
                 NULL, NULL);
  json_decref(root);
  /* 0 stops and discards. */
  assert_int_equal(bp_memory_history_record(f->runtime, 0), BP_OK);
  assert_false(bp_memory_history_recording(f->runtime));
  for (size_t i = 0; i < 4; i++)
    assert_int_equal(bp_device_free(f->device, p[i]), BP_OK);
  root = history_of(f->runtime);
  assert_int_equal(json_array_size(json_object_get(root, "events")), 0);
  json_decref(root);
}

static void failed_allocation_is_an_oom_event(void **state) {
  history_fixture_t *f = *state;
  assert_int_equal(bp_memory_history_record(f->runtime, 16), BP_OK);
  void *p = NULL;
  size_t huge = (size_t)1 << 46; /* far beyond vcpu's 1 GiB */
  assert_int_equal(bp_device_malloc(f->device, huge, &p), BP_ERR_OUT_OF_MEMORY);
  json_t *root = history_of(f->runtime);
  json_t *events = block_events(root);
  assert_int_equal(json_array_size(events), 1);
  expect_event(json_array_get(events, 0), "oom", NULL, huge, NULL, NULL);
  json_decref(events);
  json_decref(root);
}

/* Options reading the environment, loading vcpu only. */
static bp_runtime_options_t environment_options(void) {
  bp_runtime_options_t options = fixture_options(BP_VCPU_PLUGIN);
  options.ignore_environment = 0;
  return options;
}

static void environment_records_from_create_and_dumps_at_destroy(void **state) {
  (void)state;
  char path[] = "/tmp/bp_memory_history_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  setenv("BACKPLANE_MEMORY_HISTORY", path, 1);
  setenv("BACKPLANE_MEMORY_HISTORY_EVENTS", "100", 1);
  bp_runtime_options_t options = environment_options();
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  unsetenv("BACKPLANE_MEMORY_HISTORY");
  unsetenv("BACKPLANE_MEMORY_HISTORY_EVENTS");
  assert_true(bp_memory_history_recording(runtime));
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_get(runtime, "vcpu", 0, &device), BP_OK);
  void *p = NULL;
  assert_int_equal(bp_device_malloc(device, 777, &p), BP_OK);
  assert_int_equal(bp_device_free(device, p), BP_OK);
  bp_runtime_destroy(runtime);

  json_error_t error;
  json_t *root = json_load_file(path, 0, &error);
  unlink(path);
  assert_non_null(root);
  assert_int_equal(json_integer_value(json_object_get(root, "max_events")),
                   100);
  json_t *events = block_events(root);
  assert_int_equal(json_array_size(events), 2);
  expect_event(json_array_get(events, 0), "alloc", p, 777, NULL, NULL);
  expect_event(json_array_get(events, 1), "free", p, 777, NULL, NULL);
  json_decref(events);
  json_decref(root);
}

static void bad_event_count_in_the_environment_is_refused(void **state) {
  (void)state;
  setenv("BACKPLANE_MEMORY_HISTORY", "/tmp/bp_never_written.json", 1);
  setenv("BACKPLANE_MEMORY_HISTORY_EVENTS", "lots", 1);
  bp_runtime_options_t options = environment_options();
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime),
                   BP_ERR_INVALID_ARGUMENT);
  unsetenv("BACKPLANE_MEMORY_HISTORY");
  unsetenv("BACKPLANE_MEMORY_HISTORY_EVENTS");
  assert_null(runtime);
  assert_non_null(strstr(bp_last_error(), "BACKPLANE_MEMORY_HISTORY_EVENTS"));
  assert_non_null(strstr(bp_last_error(), "'lots'"));
}

static void summary_refuses_what_is_not_a_history(void **state) {
  (void)state;
  char *out = NULL;
  assert_int_equal(bp_memory_history_summary("{\"chunks\": []}", &out),
                   BP_ERR_INVALID_ARGUMENT);
  assert_null(out);
  assert_non_null(strstr(bp_last_error(), "not a memory history snapshot"));
  assert_int_equal(
      bp_memory_history_summary("{\"format\": \"backplane-memory-history\", "
                                "\"events\": [{\"action\": \"alloc\"}]}",
                                &out),
      BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "event 0"));
  assert_int_equal(bp_memory_history_summary("not json", &out),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_memory_history_record(NULL, 4), BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "bp_memory_history_record"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(
          records_each_alloc_and_free_with_size_stream_and_caller, open_vcpu,
          close_vcpu),
      cmocka_unit_test_setup_teardown(
          summary_marks_the_peak_per_device_and_stream, open_vcpu, close_vcpu),
      cmocka_unit_test_setup_teardown(
          ring_keeps_the_last_events_and_counts_the_dropped, open_vcpu,
          close_vcpu),
      cmocka_unit_test_setup_teardown(failed_allocation_is_an_oom_event,
                                      open_vcpu, close_vcpu),
      cmocka_unit_test(environment_records_from_create_and_dumps_at_destroy),
      cmocka_unit_test(bad_event_count_in_the_environment_is_refused),
      cmocka_unit_test(summary_refuses_what_is_not_a_history),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
