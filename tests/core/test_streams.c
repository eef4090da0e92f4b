/* Streams, events and callbacks against the stub plugin, whose stream and
 * event functions succeed without handing out a handle: the core must treat
 * each stream as the device's single queue and stay correct. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "support/runtime_fixture.h"

static int setup(void **state) {
  return fixture_open_two_devices(state, STUB_PLUGIN);
}

static int teardown(void **state) {
  return fixture_close(state);
}

static void stream_lifecycle(void **state) {
  fixture_t *f = *state;
  bp_stream_t *stream = NULL;
  assert_int_equal(bp_stream_create(f->dev0, &stream), BP_OK);
  assert_non_null(stream);
  assert_ptr_equal(bp_stream_device(stream), f->dev0);
  assert_int_equal(bp_stream_query(stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  assert_int_equal(bp_stream_destroy(NULL), BP_OK);
  assert_null(bp_stream_device(NULL));
  assert_int_equal(bp_stream_create(NULL, &stream), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_create(f->dev0, NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_query(NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_synchronize(NULL), BP_ERR_INVALID_ARGUMENT);
}

static void event_lifecycle(void **state) {
  fixture_t *f = *state;
  bp_stream_t *stream;
  bp_event_t *event = NULL;
  assert_int_equal(bp_stream_create(f->dev0, &stream), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &event), BP_OK);
  assert_non_null(event);
  assert_int_equal(bp_event_query(event), BP_OK); /* never recorded */
  assert_int_equal(bp_event_synchronize(event), BP_OK);
  assert_int_equal(bp_event_record(event, stream), BP_OK);
  assert_int_equal(bp_event_query(event), BP_OK);
  assert_int_equal(bp_event_synchronize(event), BP_OK);
  assert_int_equal(bp_event_record(event, stream), BP_OK); /* re-record */
  assert_int_equal(bp_stream_wait_event(stream, event), BP_OK);
  assert_int_equal(bp_event_destroy(event), BP_OK);
  assert_int_equal(bp_event_destroy(NULL), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

static void event_errors(void **state) {
  fixture_t *f = *state;
  bp_stream_t *s1;
  bp_event_t *e0, *e1;
  assert_int_equal(bp_stream_create(f->dev1, &s1), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &e0), BP_OK);
  assert_int_equal(bp_event_create(f->dev1, &e1), BP_OK);
  assert_int_equal(bp_event_record(e0, s1), BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("stub:0");
  assert_error_mentions("stub:1");
  assert_int_equal(bp_event_record(NULL, s1), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_event_record(e1, NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_event_query(NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_event_synchronize(NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_event_create(NULL, &e0), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_event_create(f->dev0, NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_wait_event(NULL, e1), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_wait_event(s1, NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_event_destroy(e0), BP_OK);
  assert_int_equal(bp_event_destroy(e1), BP_OK);
  assert_int_equal(bp_stream_destroy(s1), BP_OK);
}

static void elapsed_time_unsupported(void **state) {
  fixture_t *f = *state;
  bp_stream_t *stream;
  bp_event_t *a, *b, *other;
  float ms = -1.0f;
  assert_int_equal(bp_stream_create(f->dev0, &stream), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &a), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &b), BP_OK);
  assert_int_equal(bp_event_create(f->dev1, &other), BP_OK);
  assert_int_equal(bp_event_record(a, stream), BP_OK);
  assert_int_equal(bp_event_record(b, stream), BP_OK);
  /* The stub's timing extension is too short to hold its function. */
  assert_int_equal(bp_event_elapsed_time(a, b, &ms), BP_ERR_UNSUPPORTED);
  assert_error_mentions("event_timing");
  assert_true(ms == -1.0f);
  assert_int_equal(bp_event_elapsed_time(a, other, &ms),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("different devices");
  assert_int_equal(bp_event_elapsed_time(a, b, NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_event_destroy(a), BP_OK);
  assert_int_equal(bp_event_destroy(b), BP_OK);
  assert_int_equal(bp_event_destroy(other), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

static void sync_from_to(void **state) {
  fixture_t *f = *state;
  bp_stream_t *a, *b, *c;
  assert_int_equal(bp_stream_create(f->dev0, &a), BP_OK);
  assert_int_equal(bp_stream_create(f->dev0, &b), BP_OK);
  assert_int_equal(bp_stream_create(f->dev1, &c), BP_OK);
  assert_int_equal(bp_stream_sync_from_to(a, b), BP_OK);
  assert_int_equal(bp_stream_sync_from_to(a, a), BP_OK);
  assert_int_equal(bp_stream_sync_from_to(b, c), BP_OK);
  assert_int_equal(bp_stream_sync_from_to(NULL, c), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_sync_from_to(c, NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_destroy(a), BP_OK);
  assert_int_equal(bp_stream_destroy(b), BP_OK);
  assert_int_equal(bp_stream_destroy(c), BP_OK);
}

typedef struct callback_record {
  int calls;
  pthread_t thread;
} callback_record_t;

static void record_callback(void *user_data) {
  callback_record_t *record = user_data;
  record->calls++;
  record->thread = pthread_self();
}

/* No stream_add_callback: the callback runs once, on the caller, before the
 * call returns. */
static void callback_runs_on_caller(void **state) {
  fixture_t *f = *state;
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(f->dev1, &stream), BP_OK);
  callback_record_t record = {0};
  assert_int_equal(bp_stream_add_callback(stream, record_callback, &record),
                   BP_OK);
  assert_int_equal(record.calls, 1);
  assert_true(pthread_equal(record.thread, pthread_self()));
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(record.calls, 1);
  assert_int_equal(bp_stream_add_callback(stream, NULL, &record),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_add_callback(NULL, record_callback, &record),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

/* Runs `fn` with stderr captured into `out`. */
static void capture_stderr(void (*fn)(void *), void *arg, char *out,
                           size_t size) {
  char path[] = "/tmp/bp-core-stderr-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  fn(arg);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, out, size - 1);
  out[n > 0 ? n : 0] = '\0';
  close(fd);
  unlink(path);
}

static void destroy_runtime(void *runtime) {
  bp_runtime_destroy(runtime);
}

static void leaks_are_reported_and_released(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(STUB_PLUGIN);
  bp_device_t *device;
  assert_int_equal(bp_device_at(runtime, 1, &device), BP_OK);
  bp_stream_t *s1, *s2;
  bp_event_t *event;
  void *host, *dev;
  assert_int_equal(bp_stream_create(device, &s1), BP_OK);
  assert_int_equal(bp_stream_create(device, &s2), BP_OK);
  assert_int_equal(bp_event_create(device, &event), BP_OK);
  assert_int_equal(bp_host_malloc(device, 300, &host), BP_OK);
  assert_int_equal(bp_device_malloc(device, 1000, &dev), BP_OK);
  char report[4096];
  capture_stderr(destroy_runtime, runtime, report, sizeof report);
  assert_contains(report, "stub:1: 2 streams never destroyed");
  assert_contains(report, "stub:1: 1 events never destroyed");
  assert_contains(report, "stub:1: 1 host allocations (300 bytes) never freed");
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(stream_lifecycle),
      T(event_lifecycle),
      T(event_errors),
      T(elapsed_time_unsupported),
      T(sync_from_to),
      T(callback_runs_on_caller),
      cmocka_unit_test(leaks_are_reported_and_released),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
