/* bp_stream_fail: host work that finds it cannot be done leaves a sticky
 * failure on its stream, reported by query and synchronize until
 * bp_stream_reset, naming the stream; later work still runs. On vcpu (real
 * worker threads) and on the stub plugin (no native stream handles). */
#include <stdatomic.h>
#include <string.h>

#include "support/runtime_fixture.h"

static void expect_message(const char *text) {
  if (!strstr(bp_last_error(), text))
    fail_msg("message \"%s\" lacks \"%s\"", bp_last_error(), text);
}

typedef struct failing_work {
  bp_stream_t *stream;
  bp_status_t status;
  const char *message;
  bp_status_t returned;
} failing_work_t;

static void fail_from_callback(void *user_data) {
  failing_work_t *w = user_data;
  w->returned = bp_stream_fail(w->stream, w->status, w->message);
}

static void count_run(void *user_data) {
  atomic_fetch_add((atomic_int *)user_data, 1);
}

static void failure_is_sticky_until_reset(bp_device_t *device) {
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  failing_work_t first = {stream, BP_ERR_INVALID_ARGUMENT,
                          "op: index 7 out of range", -1};
  failing_work_t second = {stream, BP_ERR_OUT_OF_MEMORY, "a later failure", -1};
  atomic_int later_runs = 0;
  assert_int_equal(bp_stream_add_callback(stream, fail_from_callback, &first),
                   BP_OK);
  assert_int_equal(bp_stream_add_callback(stream, fail_from_callback, &second),
                   BP_OK);
  assert_int_equal(bp_stream_add_callback(stream, count_run, &later_runs),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_ERR_INVALID_ARGUMENT);
  expect_message("op: index 7 out of range"); /* the first is kept */
  expect_message(bp_device_name(device));
  assert_int_equal(first.returned, BP_OK);
  assert_int_equal(second.returned, BP_OK);
  assert_int_equal(atomic_load(&later_runs), 1); /* work after it ran */
  assert_int_equal(bp_stream_query(stream), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_synchronize(stream), BP_ERR_INVALID_ARGUMENT);

  assert_int_equal(bp_stream_reset(stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(bp_stream_query(stream), BP_OK);
  /* A failure after the reset is recorded again. */
  assert_int_equal(bp_stream_fail(stream, BP_ERR_UNSUPPORTED, "from the host"),
                   BP_OK);
  assert_int_equal(bp_stream_query(stream), BP_ERR_UNSUPPORTED);
  expect_message("from the host");
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

static void other_streams_are_untouched(bp_device_t *device) {
  bp_stream_t *failed, *other;
  assert_int_equal(bp_stream_create(device, &failed), BP_OK);
  assert_int_equal(bp_stream_create(device, &other), BP_OK);
  assert_int_equal(bp_stream_fail(failed, BP_ERR_INVALID_ARGUMENT, "x"), BP_OK);
  assert_int_equal(bp_stream_synchronize(other), BP_OK);
  assert_int_equal(bp_stream_synchronize(failed), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_destroy(failed), BP_OK);
  assert_int_equal(bp_stream_destroy(other), BP_OK);
}

static void bad_arguments_are_refused(bp_device_t *device) {
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  assert_int_equal(bp_stream_fail(NULL, BP_ERR_INVALID_ARGUMENT, "x"),
                   BP_ERR_INVALID_ARGUMENT);
  expect_message("bp_stream_fail: stream is NULL");
  assert_int_equal(
      bp_stream_fail(BP_STREAM_ACTIVE, BP_ERR_INVALID_ARGUMENT, "x"),
      BP_ERR_INVALID_ARGUMENT);
  expect_message("bp_stream_fail");
  assert_int_equal(bp_stream_fail(stream, BP_OK, "x"), BP_ERR_INVALID_ARGUMENT);
  expect_message("status is BP_OK");
  assert_int_equal(bp_stream_synchronize(stream), BP_OK); /* nothing kept */
  /* NULL message allowed. */
  assert_int_equal(bp_stream_fail(stream, BP_ERR_INVALID_ARGUMENT, NULL),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

#define ON_PLUGIN(name, plugin, body)                                          \
  static void name(void **state) {                                             \
    (void)state;                                                               \
    bp_runtime_t *rt = fixture_runtime(plugin);                                \
    bp_device_t *device = NULL;                                                \
    assert_int_equal(bp_device_at(rt, 0, &device), BP_OK);                     \
    body(device);                                                              \
    bp_runtime_destroy(rt);                                                    \
  }

ON_PLUGIN(vcpu_failure_is_sticky_until_reset, BP_VCPU_PLUGIN,
          failure_is_sticky_until_reset)
ON_PLUGIN(stub_failure_is_sticky_until_reset, STUB_PLUGIN,
          failure_is_sticky_until_reset)
ON_PLUGIN(vcpu_other_streams_are_untouched, BP_VCPU_PLUGIN,
          other_streams_are_untouched)
ON_PLUGIN(vcpu_bad_arguments_are_refused, BP_VCPU_PLUGIN,
          bad_arguments_are_refused)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(vcpu_failure_is_sticky_until_reset),
      cmocka_unit_test(stub_failure_is_sticky_until_reset),
      cmocka_unit_test(vcpu_other_streams_are_untouched),
      cmocka_unit_test(vcpu_bad_arguments_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
