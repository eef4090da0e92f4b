/* The profiler buffer behind the exported profiler_add_*_trace_event hooks:
 * events are deep-copied, read only as far as struct_size covers, and bad
 * events are counted as dropped, never crash. */
#include <pthread.h>
#include <stdlib.h>

#include "profiler/trace_buffer.h"
#include "support/runtime_fixture.h"

static BP_TraceEvent sample_event(void) {
  BP_TraceEvent event = {
      .struct_size = sizeof(BP_TraceEvent),
      .name = "memcpy_h2d",
      .category = "copy",
      .start_ns = 100,
      .end_ns = 250,
      .device_id = 1,
      .stream_id = 7,
      .correlation_id = 42,
      .thread_id = 9,
      .args_json = "{\"bytes\":4096}",
  };
  return event;
}

static void copies_events(void **state) {
  (void)state;
  C_Profiler profiler;
  assert_int_equal(bp_profiler_create(&profiler), BP_OK);
  char name[] = "kernel_a";
  BP_TraceEvent event = sample_event();
  event.name = name;
  profiler_add_runtime_trace_event(profiler, &event);
  name[0] = 'X'; /* the profiler holds its own copy */
  BP_TraceEvent device_event = sample_event();
  device_event.category = NULL;
  device_event.args_json = NULL;
  profiler_add_device_trace_event(profiler, &device_event);

  bp_trace_record_t *records;
  size_t count;
  bp_profiler_take(profiler, &records, &count);
  assert_int_equal(count, 2);
  assert_int_equal(records[0].kind, BP_TRACE_RUNTIME);
  assert_string_equal(records[0].name, "kernel_a");
  assert_string_equal(records[0].category, "copy");
  assert_string_equal(records[0].args_json, "{\"bytes\":4096}");
  assert_int_equal(records[0].start_ns, 100);
  assert_int_equal(records[0].end_ns, 250);
  assert_int_equal(records[0].device_id, 1);
  assert_int_equal(records[0].stream_id, 7);
  assert_int_equal(records[0].correlation_id, 42);
  assert_int_equal(records[0].thread_id, 9);
  assert_int_equal(records[1].kind, BP_TRACE_DEVICE);
  assert_null(records[1].category);
  assert_null(records[1].args_json);
  bp_trace_records_free(records, count);
  bp_profiler_take(profiler, &records, &count);
  assert_int_equal(count, 0);
  assert_null(records);
  assert_int_equal(bp_profiler_dropped(profiler), 0);
  bp_profiler_destroy(profiler);
}

static void bad_events_are_dropped(void **state) {
  (void)state;
  C_Profiler profiler;
  assert_int_equal(bp_profiler_create(&profiler), BP_OK);
  profiler_add_runtime_trace_event(profiler, NULL);
  BP_TraceEvent event = sample_event();
  event.name = NULL;
  profiler_add_runtime_trace_event(profiler, &event);
  event = sample_event();
  event.struct_size = 4;
  profiler_add_device_trace_event(profiler, &event);
  event.struct_size = offsetof(BP_TraceEvent, name); /* name not covered */
  profiler_add_device_trace_event(profiler, &event);
  /* A NULL profiler cannot count, but must not crash. */
  event = sample_event();
  profiler_add_runtime_trace_event(NULL, &event);
  profiler_add_device_trace_event(NULL, &event);
  assert_int_equal(bp_profiler_dropped(profiler), 4);
  bp_trace_record_t *records;
  size_t count;
  bp_profiler_take(profiler, &records, &count);
  assert_int_equal(count, 0);
  bp_profiler_destroy(profiler);
  bp_profiler_destroy(NULL);
  assert_int_equal(bp_profiler_create(NULL), BP_ERR_INVALID_ARGUMENT);
}

/* An older plugin's shorter event: fields beyond struct_size read as
 * defaults, not as whatever follows in memory. */
static void short_events_read_only_covered_fields(void **state) {
  (void)state;
  C_Profiler profiler;
  assert_int_equal(bp_profiler_create(&profiler), BP_OK);
  BP_TraceEvent event = sample_event();
  event.struct_size = offsetof(BP_TraceEvent, device_id);
  profiler_add_runtime_trace_event(profiler, &event);
  bp_trace_record_t *records;
  size_t count;
  bp_profiler_take(profiler, &records, &count);
  assert_int_equal(count, 1);
  assert_string_equal(records[0].name, "memcpy_h2d");
  assert_int_equal(records[0].end_ns, 250);
  assert_int_equal(records[0].device_id, -1);
  assert_int_equal(records[0].stream_id, 0);
  assert_null(records[0].args_json);
  bp_trace_records_free(records, count);
  bp_profiler_destroy(profiler);
}

enum { THREADS = 4, EVENTS_PER_THREAD = 1000 };

static void *add_many(void *profiler) {
  BP_TraceEvent event = sample_event();
  for (int i = 0; i < EVENTS_PER_THREAD; ++i) {
    event.correlation_id = (uint64_t)i;
    profiler_add_device_trace_event(profiler, &event);
  }
  return NULL;
}

static void concurrent_adds(void **state) {
  (void)state;
  C_Profiler profiler;
  assert_int_equal(bp_profiler_create(&profiler), BP_OK);
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; ++i)
    assert_int_equal(pthread_create(&threads[i], NULL, add_many, profiler), 0);
  for (int i = 0; i < THREADS; ++i)
    pthread_join(threads[i], NULL);
  bp_trace_record_t *records;
  size_t count;
  bp_profiler_take(profiler, &records, &count);
  assert_int_equal(count, THREADS * EVENTS_PER_THREAD);
  size_t sum = 0;
  for (size_t i = 0; i < count; ++i)
    sum += records[i].correlation_id;
  assert_int_equal(sum, (size_t)THREADS * (EVENTS_PER_THREAD - 1) *
                            EVENTS_PER_THREAD / 2);
  bp_trace_records_free(records, count);
  bp_profiler_destroy(profiler);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(copies_events),
      cmocka_unit_test(bad_events_are_dropped),
      cmocka_unit_test(short_events_read_only_covered_fields),
      cmocka_unit_test(concurrent_adds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
