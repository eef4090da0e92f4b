/* Notifies on the opencl plugin, host-side: a wait holds the stream's later
 * work until another stream records the notify; a record that came first
 * lets the wait pass (and is taken by it); a wait that nothing records ends
 * at its timeout as the stream's sticky BP_ERR_TIMEOUT naming the notify,
 * and the stream runs on. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/runtime_fixture.h"

enum { BYTES = 4096 };

typedef struct notify_fixture {
  bp_runtime_t *runtime;
  bp_device_t *device;
  bp_stream_t *waiter, *recorder;
  bp_notify_t *notify;
  unsigned char *memory; /* BYTES of device memory, zeros */
  unsigned char *sevens; /* BYTES of device memory, 7s: copied in order */
} notify_fixture_t;

static int setup(void **state) {
  notify_fixture_t *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->runtime = fixture_runtime(OPENCL_PLUGIN_PATH);
  assert_int_equal(bp_device_get(f->runtime, "opencl", 0, &f->device), BP_OK);
  assert_int_equal(bp_stream_create(f->device, &f->waiter), BP_OK);
  assert_int_equal(bp_stream_create(f->device, &f->recorder), BP_OK);
  assert_int_equal(bp_notify_create(f->device, &f->notify), BP_OK);
  assert_int_equal(bp_device_malloc(f->device, BYTES, (void **)&f->memory),
                   BP_OK);
  assert_int_equal(bp_memset(f->device, f->memory, 0, BYTES, NULL), BP_OK);
  assert_int_equal(bp_device_malloc(f->device, BYTES, (void **)&f->sevens),
                   BP_OK);
  assert_int_equal(bp_memset(f->device, f->sevens, 7, BYTES, NULL), BP_OK);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  notify_fixture_t *f = *state;
  assert_int_equal(bp_device_free(f->device, f->memory), BP_OK);
  assert_int_equal(bp_device_free(f->device, f->sevens), BP_OK);
  assert_int_equal(bp_notify_destroy(f->notify), BP_OK);
  assert_int_equal(bp_stream_destroy(f->recorder), BP_OK);
  assert_int_equal(bp_stream_destroy(f->waiter), BP_OK);
  bp_runtime_destroy(f->runtime);
  free(f);
  return 0;
}

static unsigned char first_byte(notify_fixture_t *f) {
  unsigned char byte = 0xee;
  assert_int_equal(bp_copy(NULL, &byte, f->device, f->memory, 1, NULL), BP_OK);
  return byte;
}

/* Enqueues a copy of the 7s over the memory on the waiting stream (bp_memset
 * would synchronize the stream first: the Paddle ABI's memset has none). */
static void copy_sevens(notify_fixture_t *f) {
  assert_int_equal(
      bp_copy(f->device, f->memory, f->device, f->sevens, BYTES, f->waiter),
      BP_OK);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void a_wait_holds_the_stream_until_the_record(void **state) {
  notify_fixture_t *f = *state;
  assert_int_equal(bp_notify_wait(f->notify, f->waiter, 20000), BP_OK);
  copy_sevens(f);
  struct timespec nap = {0, 100 * 1000000};
  nanosleep(&nap, NULL);
  bp_status_t query = bp_stream_query(f->waiter);
  if (query != BP_ERR_NOT_READY)
    fail_msg("query: %s: %s", bp_status_name(query), bp_last_error());
  assert_int_equal(first_byte(f), 0);
  assert_int_equal(bp_notify_record(f->notify, f->recorder), BP_OK);
  assert_int_equal(bp_stream_synchronize(f->waiter), BP_OK);
  assert_int_equal(first_byte(f), 7);
}

static void a_record_before_the_wait_is_taken_by_it(void **state) {
  notify_fixture_t *f = *state;
  assert_int_equal(bp_notify_record(f->notify, f->recorder), BP_OK);
  assert_int_equal(bp_stream_synchronize(f->recorder), BP_OK);
  assert_int_equal(bp_notify_wait(f->notify, f->waiter, 20000), BP_OK);
  copy_sevens(f);
  assert_int_equal(bp_stream_synchronize(f->waiter), BP_OK);
  assert_int_equal(first_byte(f), 7);
  /* Taken: a second wait holds the stream again (until its timeout). */
  assert_int_equal(bp_notify_wait(f->notify, f->waiter, 100), BP_OK);
  assert_int_equal(bp_stream_synchronize(f->waiter), BP_ERR_TIMEOUT);
  assert_int_equal(bp_stream_reset(f->waiter), BP_OK);
}

static void an_unrecorded_wait_times_out_and_runs_on(void **state) {
  notify_fixture_t *f = *state;
  uint32_t id = 0;
  assert_int_equal(bp_notify_id(f->notify, &id), BP_OK);
  double start = now_ms();
  assert_int_equal(bp_notify_wait(f->notify, f->waiter, 50), BP_OK);
  copy_sevens(f);
  assert_int_equal(bp_stream_synchronize(f->waiter), BP_ERR_TIMEOUT);
  double waited = now_ms() - start;
  char expected[64];
  snprintf(expected, sizeof expected, "notify %u passed its timeout of 50 ms",
           id);
  if (!strstr(bp_last_error(), expected))
    fail_msg("the timeout does not name notify %u: %s", id, bp_last_error());
  if (waited > 5000)
    fail_msg("the 50 ms wait ended after %.0f ms", waited);
  assert_int_equal(first_byte(f), 7); /* ran on past the wait */
  assert_int_equal(bp_stream_reset(f->waiter), BP_OK);
  assert_int_equal(bp_stream_synchronize(f->waiter), BP_OK);
}

static void ids_differ(void **state) {
  notify_fixture_t *f = *state;
  bp_notify_t *other = NULL;
  assert_int_equal(bp_notify_create(f->device, &other), BP_OK);
  uint32_t a = 0, b = 0;
  assert_int_equal(bp_notify_id(f->notify, &a), BP_OK);
  assert_int_equal(bp_notify_id(other, &b), BP_OK);
  assert_int_not_equal(a, b);
  assert_int_equal(bp_notify_destroy(other), BP_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(a_wait_holds_the_stream_until_the_record,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(a_record_before_the_wait_is_taken_by_it,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(an_unrecorded_wait_times_out_and_runs_on,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(ids_differ, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
