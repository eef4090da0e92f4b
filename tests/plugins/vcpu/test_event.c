/* vcpu plugin: events. Never-recorded events are complete; records complete
 * when the stream reaches them; re-recording resets; timing is monotone;
 * stream_wait_event orders work across streams and devices; destroying a
 * pending event is safe, also while records on several streams race it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "plugins/vcpu/vcpu_fixture.h"

static C_Stream create_stream(int device) {
  C_Stream stream = NULL;
  assert_int_equal(vcpu.table.create_stream(vcpu_dev(device), &stream),
                   C_SUCCESS);
  return stream;
}

static C_Event create_event(int device) {
  C_Event event = NULL;
  assert_int_equal(vcpu.table.create_event(vcpu_dev(device), &event),
                   C_SUCCESS);
  assert_non_null(event);
  return event;
}

static void block_on(int device, C_Stream stream, vcpu_gate *gate) {
  assert_int_equal(vcpu.table.stream_add_callback(vcpu_dev(device), stream,
                                                  vcpu_gate_callback, gate),
                   C_SUCCESS);
}

static C_Status elapsed(int device, C_Event start, C_Event end, float *ms) {
  return vcpu.timing->event_elapsed_time(vcpu_dev(device), start, end, ms);
}

static void add_one(C_Device device, C_Stream stream, void *counter,
                    C_Status *status) {
  (void)device;
  (void)stream;
  (void)status;
  atomic_fetch_add((atomic_int *)counter, 1);
}

static void test_never_recorded_event_is_complete(void **state) {
  (void)state;
  C_Device d0 = vcpu_dev(0);
  C_Event event = create_event(0), other = create_event(0);
  C_Stream stream = create_stream(0);
  assert_int_equal(vcpu.table.query_event(d0, event), C_SUCCESS);
  assert_int_equal(vcpu.table.synchronize_event(d0, event), C_SUCCESS);
  /* Waiting on it adds no wait: the stream runs on. */
  atomic_int ran = 0;
  assert_int_equal(vcpu.table.stream_wait_event(d0, stream, event), C_SUCCESS);
  assert_int_equal(vcpu.table.stream_add_callback(d0, stream, add_one, &ran),
                   C_SUCCESS);
  assert_int_equal(vcpu.table.synchronize_stream(d0, stream), C_SUCCESS);
  assert_int_equal(atomic_load(&ran), 1);
  float ms = -1;
  assert_int_equal(elapsed(0, event, other, &ms), C_ERROR);
  assert_int_equal(vcpu.table.record_event(d0, stream, other), C_SUCCESS);
  assert_int_equal(vcpu.table.synchronize_event(d0, other), C_SUCCESS);
  assert_int_equal(elapsed(0, event, other, &ms), C_ERROR);
  assert_int_equal(elapsed(0, other, event, &ms), C_ERROR);
  assert_true(ms == -1);
  assert_int_equal(vcpu.table.destroy_event(d0, event), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_event(d0, other), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d0, stream), C_SUCCESS);
}

static void test_record_completes_when_the_stream_gets_there(void **state) {
  (void)state;
  C_Device d0 = vcpu_dev(0);
  C_Stream stream = create_stream(0);
  C_Event start = create_event(0), end = create_event(0);
  vcpu_gate gate = {0};
  assert_int_equal(vcpu.table.record_event(d0, stream, start), C_SUCCESS);
  block_on(0, stream, &gate);
  assert_int_equal(vcpu.table.record_event(d0, stream, end), C_SUCCESS);
  vcpu_gate_wait_reached(&gate);
  assert_int_equal(vcpu.table.synchronize_event(d0, start), C_SUCCESS);
  assert_int_equal(vcpu.table.query_event(d0, start), C_SUCCESS);
  assert_int_equal(vcpu.table.query_event(d0, end), C_FAILED);
  float ms = -1;
  assert_int_equal(elapsed(0, start, end, &ms), C_FAILED);
  vcpu_gate_open(&gate);
  assert_int_equal(vcpu.table.synchronize_event(d0, end), C_SUCCESS);
  assert_int_equal(vcpu.table.query_event(d0, end), C_SUCCESS);
  assert_int_equal(elapsed(0, start, end, &ms), C_SUCCESS);
  assert_true(ms >= 0.0f);
  /* Re-recording resets: pending again until the new record completes. */
  vcpu_gate again = {0};
  block_on(0, stream, &again);
  assert_int_equal(vcpu.table.record_event(d0, stream, end), C_SUCCESS);
  assert_int_equal(vcpu.table.query_event(d0, end), C_FAILED);
  assert_int_equal(elapsed(0, start, end, &ms), C_FAILED);
  vcpu_gate_open(&again);
  assert_int_equal(vcpu.table.synchronize_event(d0, end), C_SUCCESS);
  assert_int_equal(vcpu.table.query_event(d0, end), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_event(d0, start), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_event(d0, end), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d0, stream), C_SUCCESS);
}

/* Makes the stream take some time between two records. */
static void pause_briefly(C_Device device, C_Stream stream, void *user_data,
                          C_Status *status) {
  (void)device;
  (void)stream;
  (void)user_data;
  (void)status;
  struct timespec delay = {0, 200 * 1000};
  nanosleep(&delay, NULL);
}

static void test_elapsed_time_is_monotone(void **state) {
  (void)state;
  C_Device d1 = vcpu_dev(1);
  C_Stream stream = create_stream(1);
  enum { EVENTS = 5 };
  C_Event events[EVENTS];
  for (int i = 0; i < EVENTS; ++i) {
    events[i] = create_event(1);
    assert_int_equal(vcpu.table.record_event(d1, stream, events[i]), C_SUCCESS);
    assert_int_equal(
        vcpu.table.stream_add_callback(d1, stream, pause_briefly, NULL),
        C_SUCCESS);
  }
  assert_int_equal(vcpu.table.synchronize_stream(d1, stream), C_SUCCESS);
  float previous = 0;
  for (int i = 1; i < EVENTS; ++i) {
    float ms = -1;
    assert_int_equal(elapsed(1, events[0], events[i], &ms), C_SUCCESS);
    assert_true(ms > previous);
    previous = ms;
    float step = -1;
    assert_int_equal(elapsed(1, events[i - 1], events[i], &step), C_SUCCESS);
    assert_true(step > 0 && step <= ms);
  }
  float self = -1;
  assert_int_equal(elapsed(1, events[2], events[2], &self), C_SUCCESS);
  assert_true(self == 0);
  /* Bad arguments: other device, NULL out, NULL events. */
  float ms = 0;
  assert_int_equal(elapsed(0, events[0], events[1], &ms), C_ERROR);
  assert_int_equal(elapsed(1, events[0], events[1], NULL), C_ERROR);
  assert_int_equal(elapsed(1, NULL, events[1], &ms), C_ERROR);
  for (int i = 0; i < EVENTS; ++i)
    assert_int_equal(vcpu.table.destroy_event(d1, events[i]), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d1, stream), C_SUCCESS);
}

/* Stream `waiter` (device `wait_device`) waits on an event recorded on a
 * blocked stream of `record_device`: its later work must not start before
 * the record, and a copy after the wait sees data written before it. */
static void wait_across(int record_device, int wait_device) {
  C_Stream producer = create_stream(record_device);
  C_Stream waiter = create_stream(wait_device);
  C_Event event = create_event(record_device);
  const size_t size = 256 * 1024;
  unsigned char *host = malloc(size), *result = calloc(1, size);
  void *dev = NULL, *staged = NULL;
  assert_int_equal(
      vcpu.table.device_memory_allocate(vcpu_dev(record_device), &dev, size),
      C_SUCCESS);
  assert_int_equal(
      vcpu.table.device_memory_allocate(vcpu_dev(wait_device), &staged, size),
      C_SUCCESS);
  vcpu_fill(host, size, 42);
  vcpu_gate gate = {0};
  atomic_int after = 0;
  block_on(record_device, producer, &gate);
  assert_int_equal(vcpu.table.async_memory_copy_h2d(vcpu_dev(record_device),
                                                    producer, dev, host, size),
                   C_SUCCESS);
  assert_int_equal(
      vcpu.table.record_event(vcpu_dev(record_device), producer, event),
      C_SUCCESS);
  assert_int_equal(
      vcpu.table.stream_wait_event(vcpu_dev(wait_device), waiter, event),
      C_SUCCESS);
  assert_int_equal(vcpu.table.stream_add_callback(vcpu_dev(wait_device), waiter,
                                                  add_one, &after),
                   C_SUCCESS);
  assert_int_equal(vcpu.table.async_memory_copy_p2p(vcpu_dev(wait_device),
                                                    vcpu_dev(record_device),
                                                    waiter, staged, dev, size),
                   C_SUCCESS);
  assert_int_equal(vcpu.table.async_memory_copy_d2h(
                       vcpu_dev(wait_device), waiter, result, staged, size),
                   C_SUCCESS);
  vcpu_gate_wait_reached(&gate);
  assert_int_equal(vcpu.table.query_stream(vcpu_dev(wait_device), waiter),
                   C_FAILED);
  assert_int_equal(atomic_load(&after), 0);
  assert_int_equal(vcpu.table.query_event(vcpu_dev(record_device), event),
                   C_FAILED);
  vcpu_gate_open(&gate);
  assert_int_equal(vcpu.table.synchronize_stream(vcpu_dev(wait_device), waiter),
                   C_SUCCESS);
  assert_int_equal(atomic_load(&after), 1);
  assert_int_equal(vcpu.table.query_event(vcpu_dev(record_device), event),
                   C_SUCCESS);
  assert_true(vcpu_matches(result, size, 42));
  assert_int_equal(vcpu.table.destroy_event(vcpu_dev(record_device), event),
                   C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(vcpu_dev(wait_device), waiter),
                   C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(vcpu_dev(record_device), producer),
                   C_SUCCESS);
  assert_int_equal(
      vcpu.table.device_memory_deallocate(vcpu_dev(record_device), dev, size),
      C_SUCCESS);
  assert_int_equal(
      vcpu.table.device_memory_deallocate(vcpu_dev(wait_device), staged, size),
      C_SUCCESS);
  free(host);
  free(result);
}

static void test_wait_event_across_streams(void **state) {
  (void)state;
  wait_across(0, 0);
}

static void test_wait_event_across_devices(void **state) {
  (void)state;
  wait_across(0, 1);
  wait_across(1, 0);
}

static void test_destroy_pending_event_is_safe(void **state) {
  (void)state;
  C_Device d0 = vcpu_dev(0);
  C_Stream stream = create_stream(0), waiter = create_stream(0);
  C_Event event = create_event(0);
  vcpu_gate gate = {0};
  block_on(0, stream, &gate);
  assert_int_equal(vcpu.table.record_event(d0, stream, event), C_SUCCESS);
  assert_int_equal(vcpu.table.stream_wait_event(d0, waiter, event), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_event(d0, event), C_SUCCESS);
  atomic_int after = 0;
  assert_int_equal(vcpu.table.stream_add_callback(d0, waiter, add_one, &after),
                   C_SUCCESS);
  vcpu_gate_open(&gate);
  assert_int_equal(vcpu.table.synchronize_device(d0), C_SUCCESS);
  assert_int_equal(atomic_load(&after), 1);
  assert_int_equal(vcpu.table.destroy_stream(d0, stream), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d0, waiter), C_SUCCESS);
}

/* Records on two streams and a wait on a third race the destroy: whichever of
 * them drops the last reference frees the event, exactly once (ASan and
 * LSan check the memory; TSan the hand-over). */
static void test_destroy_races_records_on_several_streams(void **state) {
  (void)state;
  enum { ROUNDS = 300, RECORDS = 4 };
  C_Device d0 = vcpu_dev(0);
  C_Stream first = create_stream(0), second = create_stream(0),
           waiter = create_stream(0);
  atomic_int after = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    C_Event event = create_event(0);
    for (int i = 0; i < RECORDS; ++i) {
      assert_int_equal(vcpu.table.record_event(d0, first, event), C_SUCCESS);
      assert_int_equal(vcpu.table.record_event(d0, second, event), C_SUCCESS);
    }
    assert_int_equal(vcpu.table.stream_wait_event(d0, waiter, event),
                     C_SUCCESS);
    assert_int_equal(vcpu.table.destroy_event(d0, event), C_SUCCESS);
    assert_int_equal(
        vcpu.table.stream_add_callback(d0, waiter, add_one, &after), C_SUCCESS);
  }
  assert_int_equal(vcpu.table.synchronize_device(d0), C_SUCCESS);
  assert_int_equal(atomic_load(&after), ROUNDS);
  assert_int_equal(vcpu.table.destroy_stream(d0, first), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d0, second), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d0, waiter), C_SUCCESS);
}

static void test_event_argument_checks(void **state) {
  (void)state;
  C_Device d0 = vcpu_dev(0), d1 = vcpu_dev(1);
  C_Stream s0 = create_stream(0), s1 = create_stream(1);
  C_Event e0 = create_event(0);
  assert_int_equal(vcpu.table.record_event(d0, NULL, e0), C_ERROR);
  assert_int_equal(vcpu.table.record_event(d0, s0, NULL), C_ERROR);
  assert_int_equal(vcpu.table.record_event(d1, s1, e0), C_ERROR);
  assert_int_equal(vcpu.table.record_event(d0, s1, e0), C_ERROR);
  assert_int_equal(vcpu.table.stream_wait_event(d0, s0, NULL), C_ERROR);
  assert_int_equal(vcpu.table.stream_wait_event(d0, s1, e0), C_ERROR);
  assert_int_equal(vcpu.table.stream_wait_event(d1, s1, e0), C_SUCCESS);
  assert_int_equal(vcpu.table.synchronize_event(d1, e0), C_ERROR);
  assert_int_equal(vcpu.table.destroy_event(d0, e0), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d0, s0), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d1, s1), C_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_never_recorded_event_is_complete),
      cmocka_unit_test(test_record_completes_when_the_stream_gets_there),
      cmocka_unit_test(test_elapsed_time_is_monotone),
      cmocka_unit_test(test_wait_event_across_streams),
      cmocka_unit_test(test_wait_event_across_devices),
      cmocka_unit_test(test_destroy_pending_event_is_safe),
      cmocka_unit_test(test_destroy_races_records_on_several_streams),
      cmocka_unit_test(test_event_argument_checks),
  };
  return cmocka_run_group_tests_name("vcpu events", tests, vcpu_setup,
                                     vcpu_teardown);
}
